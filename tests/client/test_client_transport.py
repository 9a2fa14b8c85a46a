"""The client's HTTP behaviour against ``httpx.MockTransport``: retries on 429/5xx honouring
``Retry-After`` (capped, with jitter), timeouts, conditional GETs, errors."""

import json
import random

import httpx
import pytest
from newsroom_client import ApiError, Client, ClientError, Conflict, InvalidDocument, RateLimited, RetryPolicy
from newsroom_client.retry import ETagCache, parse_retry_after

BASE = "https://news.example"


def make(handler, **options):
    waits: list[float] = []
    options.setdefault("retry", RetryPolicy(rng=random.Random(1)))
    client = Client(BASE, "hc_abc_secret", transport=httpx.MockTransport(handler), sleep=waits.append, **options)
    return client, waits


def replies(*answers):
    """A handler answering each request with the next of ``answers`` (status, headers, body)."""
    seen: list[httpx.Request] = []
    queue = list(answers)

    def handler(request):
        seen.append(request)
        status, headers, body = queue.pop(0)
        return httpx.Response(status, headers=headers, content=json.dumps(body).encode())

    return handler, seen


OK_RUBRIC = {"passed": True, "score": 1.0, "criteria": []}


def test_a_429_is_retried_after_the_retry_after_it_names_plus_jitter():
    handler, seen = replies(
        (429, {"Retry-After": "2"}, {"error": {"code": "throttled", "message": "slow down"}}), (200, {}, OK_RUBRIC)
    )
    client, waits = make(handler)
    assert client.check({"schema": "x"}) == OK_RUBRIC
    assert len(seen) == 2 and len(waits) == 1
    assert 2.0 <= waits[0] <= 2.0 * 1.25  # at most a quarter more, at random


def test_5xx_is_retried_with_exponential_backoff_then_raised():
    error = {"error": {"code": "server_error", "message": "A server error occurred."}}
    handler, seen = replies(*[(502, {}, error)] * 4)
    client, waits = make(handler, retry=RetryPolicy(attempts=4, backoff=1, jitter=0, rng=random.Random(1)))
    with pytest.raises(ApiError) as caught:
        client.get_story("81")
    assert caught.value.status == 502 and caught.value.code == "server_error"
    assert len(seen) == 4 and waits == [1, 2, 4]
    assert client.stats.requests == 4 and client.stats.retries == 3


def test_a_retry_after_past_the_cap_is_not_waited_out():
    handler, seen = replies((429, {"Retry-After": "3600"}, {"error": {"code": "throttled", "message": "wait"}}))
    client, waits = make(handler, retry=RetryPolicy(retry_after_max=60))
    with pytest.raises(RateLimited) as caught:
        client.check({})
    assert caught.value.retry_after == 3600 and waits == [] and len(seen) == 1


def test_a_submission_is_not_retried_after_a_500_but_is_after_a_429():
    handler, seen = replies((500, {}, {"error": {"code": "server_error", "message": "boom"}}))
    client, _ = make(handler)
    with pytest.raises(ApiError):
        client.submit({})
    assert len(seen) == 1
    handler, seen = replies((429, {"Retry-After": "1"}, {}), (201, {}, {"id": "9"}))
    client, _ = make(handler)
    assert client.submit({})["id"] == "9" and len(seen) == 2


def test_a_timeout_is_retried_for_a_read_and_then_reported():
    calls = []

    def handler(request):
        calls.append(request)
        raise httpx.ReadTimeout("read timed out", request=request)

    client, waits = make(handler, retry=RetryPolicy(attempts=3, jitter=0))
    with pytest.raises(ClientError, match="ReadTimeout"):
        client.get_story("81")
    assert len(calls) == 3 and len(waits) == 2


def test_every_request_has_a_timeout():
    client = Client(BASE, "k", timeout=7)
    assert client._http.timeout.read == 7


def test_conditional_get_sends_the_etag_and_a_304_returns_the_cached_body():
    seen = []

    def handler(request):
        seen.append(request)
        if request.headers.get("If-None-Match") == '"v1"':
            return httpx.Response(304, headers={"ETag": '"v1"'})
        return httpx.Response(200, headers={"ETag": '"v1"'}, json={"id": "81", "version": 3})

    client, _ = make(handler)
    assert client.get_story("81") == {"id": "81", "version": 3}
    assert client.get_story("81") == {"id": "81", "version": 3}
    assert "If-None-Match" not in seen[0].headers and seen[1].headers["If-None-Match"] == '"v1"'
    assert client.stats.not_modified == 1


def test_the_etag_cache_drops_the_least_recently_used():
    cache = ETagCache(max_entries=2)
    cache.put("a", '"1"', b"{}")
    cache.put("b", '"2"', b"{}")
    cache.get("a")
    cache.put("c", '"3"', b"{}")
    assert cache.get("b") is None and cache.get("a") and len(cache) == 2


def test_the_key_goes_to_the_api_and_not_to_the_public_checks_record():
    seen = []

    def handler(request):
        seen.append(request)
        if request.url.path.startswith("/api/"):
            return httpx.Response(200, json={"id": "81", "url": "https://elsewhere.example/stories/2026-10-16/a/"})
        return httpx.Response(200, json={"schema": "hangingcontext.checks/1"})

    client, _ = make(handler)
    assert client.get_checks_record("81")["schema"] == "hangingcontext.checks/1"
    assert seen[0].headers["Authorization"] == "Bearer hc_abc_secret"
    assert str(seen[1].url) == BASE + "/stories/2026-10-16/a/checks.json"  # this client's site, the story's path
    assert "Authorization" not in seen[1].headers


def test_a_story_url_naming_another_host_does_not_send_the_client_there():
    seen = []

    def handler(request):
        seen.append(request)
        return httpx.Response(200, json={})

    client, _ = make(handler)
    client.get_checks_record({"url": "https://news.example//evil.example/stories/a/"})
    assert seen[0].url.host == "news.example" and seen[0].url.path == "/evil.example/stories/a/checks.json"


def test_errors_carry_the_apis_code_message_and_path():
    handler, _ = replies(
        (400, {}, {"error": {"code": "invalid", "message": "required", "path": "headline"}}),
        (409, {}, {"error": {"code": "conflict", "message": "not yours", "story": {"id": "81"}}}),
    )
    client, _ = make(handler)
    with pytest.raises(InvalidDocument) as caught:
        client.check({})
    assert caught.value.path == "headline" and caught.value.message == "required"
    with pytest.raises(Conflict) as conflict:
        client.submit({})
    assert conflict.value.story == {"id": "81"}


def test_bad_arguments_are_refused_before_any_request():
    import datetime as dt

    client, _ = make(lambda r: httpx.Response(500))
    with pytest.raises(ValueError, match="time zone"):
        client.iter_stories(updated_since=dt.datetime(2026, 10, 16))
    with pytest.raises(ValueError, match="story id"):
        client.get_story("../admin")
    with pytest.raises(ValueError, match="base_url"):
        Client("ftp://x", "k")


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("5", 5.0), ("0", 0.0), (None, None), ("soon", None), ("Thu, 01 Jan 1970 00:00:10 GMT", 10.0)],
)
def test_retry_after_is_read_as_seconds_or_an_http_date(value, seconds):
    assert parse_retry_after(value, now=0) == seconds


def test_the_package_imports_without_django_or_the_frameworks():
    import subprocess
    import sys
    from pathlib import Path

    import newsroom_client

    code = (
        "import sys, newsroom_client, newsroom_client.rewards, newsroom_client.rewards.trl_rewards,"
        " newsroom_client.rewards.verifiers_rubric, newsroom_client.rewards.inspect_scorer;"
        " print(sorted({m.split('.')[0] for m in sys.modules} & {'django', 'stories', 'verifiers', 'inspect_ai'}))"
    )
    package_root = str(Path(newsroom_client.__file__).resolve().parents[1])
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={"PYTHONPATH": package_root}, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
