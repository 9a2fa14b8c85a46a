"""The API's warm path (syndication.fastpath): a current stored answer costs no query and no
DRF machinery, yet every security property of the full path holds on it: hashed keys,
revocation at once, the throttle, usage counting, and freshness."""

import pytest
from django.core.cache import cache

from stories import actions
from stories.models import Story
from syndication.models import ApiKey, ApiKeyUsage
from syndication.usage import flush
from tests.syndication.helpers import client_for

pytestmark = pytest.mark.django_db

DETAIL, NINJS, LIST = "/api/v1/stories/81/", "/api/v1/stories/81/ninjs", "/api/v1/stories/"


def warm(api, url):
    first = api.get(url)
    assert first.status_code == 200
    api.get(url)  # the key cached after its last use was recorded
    return first


@pytest.mark.parametrize("url", [DETAIL, NINJS, LIST, LIST + "?page_size=1"])
def test_a_warm_answer_is_the_full_paths_bytes_and_headers_in_no_query(api, demo, url, django_assert_num_queries):
    first = warm(api, url)
    with django_assert_num_queries(0):
        again = api.get(url)
    assert again.status_code == 200
    assert again.content == first.content
    for header in ("Content-Type", "ETag", "Last-Modified", "Cache-Control", "Vary", "Allow"):
        assert again.get(header) == first.get(header), header


def test_a_conditional_request_gets_304_on_the_warm_path(api, demo, django_assert_num_queries):
    etag = warm(api, DETAIL)["ETag"]
    with django_assert_num_queries(0):
        response = api.get(DETAIL, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304


def test_a_revoked_key_is_refused_at_once(api, read_key, demo):
    warm(api, DETAIL)
    ApiKey.objects.get(pk=read_key[0].pk).revoke()
    response = api.get(DETAIL)
    assert response.status_code == 401
    assert b"Agent training" not in response.content


def test_the_admins_revoke_action_is_seen_at_once(api, read_key, demo):
    from syndication import keys

    warm(api, DETAIL)
    ApiKey.objects.filter(pk=read_key[0].pk).update(revoked_at="2026-01-01T00:00:00Z")
    keys.forget(read_key[0].prefix)  # what the admin action does after its update()
    assert api.get(DETAIL).status_code == 401


def test_a_wrong_secret_with_a_known_prefix_is_refused_on_a_warm_url(api, read_key, demo):
    warm(api, DETAIL)
    forged = read_key[1][:-4] + ("aaaa" if not read_key[1].endswith("aaaa") else "bbbb")
    response = client_for(forged).get(DETAIL)
    assert response.status_code == 401
    assert response.content.startswith(b'{"error"')


def test_no_key_and_a_staff_session_take_the_full_path(demo, api, admin_client):
    warm(api, DETAIL)
    assert client_for(None).get(DETAIL).status_code == 401
    assert admin_client.get(DETAIL).status_code == 200


@pytest.mark.usefixtures("noon_utc")  # one day's count
def test_the_throttle_still_throttles_on_the_warm_path(settings, read_key, demo):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"partner": "4/min"}}
    api = client_for(read_key[1])
    codes = [api.get(DETAIL).status_code for _ in range(6)]
    assert codes == [200, 200, 200, 200, 429, 429]
    flush(read_key[0].pk)
    assert ApiKeyUsage.objects.get(key=read_key[0]).count == 6  # refused requests are counted too


@pytest.mark.usefixtures("noon_utc")  # one day's count
def test_usage_is_counted_on_the_warm_path(api, read_key, demo):
    for _ in range(5):
        assert api.get(DETAIL).status_code == 200
    flush(read_key[0].pk)
    assert ApiKeyUsage.objects.get(key=read_key[0]).count == 5


def test_a_correction_shows_on_the_next_request(api, demo, editor):
    warm(api, DETAIL)
    warm(api, LIST)
    actions.record_correction(story=demo, text="A figure was wrong.", kind="correction", user=editor)
    assert b"A figure was wrong." in api.get(DETAIL).content
    assert b"A figure was wrong." in api.get(LIST).content


def test_an_unpublished_story_is_gone_on_the_next_request(api, demo, editor):
    warm(api, DETAIL)
    actions.unpublish_story(story=Story.objects.get(pk=demo.pk), user=editor)
    assert api.get(DETAIL).status_code == 404


@pytest.mark.parametrize(
    "headers,query",
    [({"HTTP_ACCEPT": "application/json; indent=2"}, ""), ({}, "?format=json"), ({"HTTP_ACCEPT": "text/html"}, "")],
)
def test_other_negotiations_take_the_full_path(api, demo, headers, query):
    warm(api, DETAIL)
    response = api.get(DETAIL + query, **headers)
    full = api.get(DETAIL + query, **headers)
    assert response.status_code == full.status_code
    if headers.get("HTTP_ACCEPT", "").endswith("indent=2"):
        assert response.content.startswith(b"{\n")


def test_the_cache_unreachable_falls_back_to_the_full_path(api, read_key, demo, monkeypatch):
    from django.test import RequestFactory

    from syndication import fastpath

    warm(api, DETAIL)

    def broken(*args, **kwargs):
        raise ConnectionError("cache down")

    monkeypatch.setattr(cache, "get_many", broken)
    request = RequestFactory().get(DETAIL, HTTP_AUTHORIZATION=f"Bearer {read_key[1]}")
    assert fastpath.answer(request) is None


@pytest.mark.usefixtures("noon_utc")  # one day's count
def test_a_warm_answer_writes_the_cache_once_and_still_counts_the_request(api, read_key, demo, monkeypatch):
    import time

    from django.core.cache import caches

    from syndication import usage
    from syndication.auth import PartnerRateThrottle

    now = time.time()
    monkeypatch.setattr(PartnerRateThrottle, "timer", lambda self: now)  # one throttle window
    # No addition of the counts to the cache while it runs, however slowly: they wait in memory.
    monkeypatch.setattr(usage, "ADD_EVERY", 3600.0)
    monkeypatch.setattr(usage, "_added_at", time.monotonic())
    warm(api, DETAIL)
    default = caches["default"]
    writes = []
    for method in ("incr", "add", "set", "set_many"):
        real = getattr(default, method)
        monkeypatch.setattr(
            default, method, lambda *a, _real=real, _name=method, **k: writes.append(_name) or _real(*a, **k)
        )
    for _ in range(5):
        assert api.get(DETAIL).status_code == 200
    assert writes == ["incr"] * 5  # the throttle's window counter; the usage count waits in memory
    monkeypatch.undo()
    flush(read_key[0].pk)
    assert ApiKeyUsage.objects.get(key=read_key[0]).count == 7  # the two warm-up requests and these five
    assert usage._pending == {}


def test_the_warm_path_reads_no_pickled_key(api, read_key, demo):
    from syndication import keys

    warm(api, DETAIL)
    record = cache.get(keys.record_key(read_key[0].prefix))
    assert record == (read_key[0].pk, read_key[0].hashed_secret, "read", record[3])
    assert isinstance(record[3], float)
    keys.forget(read_key[0].prefix)
    assert not isinstance(cache.get(keys.record_key(read_key[0].prefix)), tuple)  # the full path reads it


@pytest.mark.parametrize(
    "header",
    ["HTTP_IF_MATCH", "HTTP_IF_NONE_MATCH", "HTTP_IF_MODIFIED_SINCE", "HTTP_IF_UNMODIFIED_SINCE"],
)
def test_each_conditional_header_is_answered_on_the_warm_path_as_before(api, demo, header):
    first = warm(api, DETAIL)
    values = {
        "HTTP_IF_MATCH": '"not-this-one"',
        "HTTP_IF_NONE_MATCH": first["ETag"],
        "HTTP_IF_MODIFIED_SINCE": first["Last-Modified"],
        "HTTP_IF_UNMODIFIED_SINCE": "Thu, 01 Jan 1970 00:00:00 GMT",
    }
    warm_answer = api.get(DETAIL, **{header: values[header]})
    cache.clear()  # the full path
    full_answer = api.get(DETAIL, **{header: values[header]})
    assert warm_answer.status_code == full_answer.status_code
    assert warm_answer.content == full_answer.content
