"""Each worker's copies of warm story renderings (public.views.copies): a plain read is
answered from the copy with the same bytes and headers as the full path, after one read of
the ``lists`` generation; every change shows on the next request; hostile requests neither
fill the table nor get another reader's answer."""

from urllib.parse import urlsplit

import pytest
from django.core.cache import cache

from newsroom.infra import pagecache
from public.views import copies
from stories import actions, desk

pytestmark = pytest.mark.django_db

VIEW_HEADERS = (
    "Content-Type",
    "ETag",
    "Last-Modified",
    "Link",
    "Cache-Control",
    "Vary",
    "Content-Digest",
    "Signature-Input",
    "Signature",
)


@pytest.fixture
def url(demo):
    return urlsplit(demo.url).path


@pytest.fixture
def cache_reads(monkeypatch):
    """The keys read from the shared cache, one list per call."""
    reads = []
    real_get, real_get_many = cache.get, cache.get_many

    def get(key, *args, **kwargs):
        reads.append([key])
        return real_get(key, *args, **kwargs)

    def get_many(keys, *args, **kwargs):
        reads.append(list(keys))
        return real_get_many(keys, *args, **kwargs)

    monkeypatch.setattr(cache, "get", get)
    monkeypatch.setattr(cache, "get_many", get_many)
    return reads


@pytest.mark.parametrize("suffix", ["", "index.json", "index.md", "index.txt", "checks.json"])
def test_a_warm_read_is_the_full_paths_answer_after_one_generation_read(
    client, url, suffix, cache_reads, django_assert_num_queries
):
    first = client.get(url + suffix)
    assert first.status_code == 200
    assert len(copies._copies) == 1
    cache_reads.clear()
    with django_assert_num_queries(0):
        second = client.get(url + suffix)
    assert cache_reads == [[pagecache.generation_key("lists")]]
    assert second.status_code == 200
    assert second.content == first.content
    for header in VIEW_HEADERS:
        assert second.get(header) == first.get(header), header
    # The middleware's headers are the request's own, not the copy's.
    assert second["X-Request-ID"] != first["X-Request-ID"]
    assert "Content-Security-Policy" in second and "X-Content-Type-Options" in second


def test_a_change_shows_on_the_next_request_and_replaces_the_copy(client, url, seed_doc):
    old = client.get(url)
    client.get(url)
    actions.import_story(desk.validate(dict(seed_doc, headline="A headline after the copy")), restore=True)
    new = client.get(url)
    assert b"A headline after the copy" in new.content
    assert new["ETag"] != old["ETag"] and new["Signature"] != old["Signature"]
    again = client.get(url)
    assert again.content == new.content and again["ETag"] == new["ETag"]


def test_a_generation_moved_by_another_process_is_seen(client, url, demo):
    """Another process's change reaches this one only through the shared cache: moving the
    generation there (as any action does) is enough to retire every copy."""
    client.get(url)
    demo.headline = "Saved by another process"
    type(demo).objects.filter(pk=demo.pk).update(headline=demo.headline)  # no signal here
    assert b"Saved by another process" not in client.get(url).content  # the copy, as before
    cache.set(pagecache.generation_key("lists"), "9999999999.000001", None)
    assert client.get(url).status_code == 200  # the full path, under the new generation
    key = next(iter(copies._copies))
    assert copies._copies[key][0] == "9999999999.000001"


def test_an_unpublished_story_is_not_served_from_a_copy(client, url, demo):
    from stories.actions import unpublish_story

    client.get(url)
    assert client.get(url).status_code == 200
    unpublish_story(story=demo, reason="withdrawn")
    assert client.get(url).status_code == 404


CONDITIONALS = [
    ("HTTP_IF_NONE_MATCH", lambda first: first["ETag"], 304),
    ("HTTP_IF_NONE_MATCH", lambda first: '"another"', 200),
    ("HTTP_IF_NONE_MATCH", lambda first: "*", 304),
    ("HTTP_IF_MODIFIED_SINCE", lambda first: first["Last-Modified"], 304),
    ("HTTP_IF_MODIFIED_SINCE", lambda first: "Thu, 01 Jan 2015 00:00:00 GMT", 200),
    ("HTTP_IF_MATCH", lambda first: '"not-this-one"', 412),
    ("HTTP_IF_MATCH", lambda first: first["ETag"], 200),
    ("HTTP_IF_UNMODIFIED_SINCE", lambda first: "Thu, 01 Jan 2015 00:00:00 GMT", 412),
]


@pytest.mark.parametrize("suffix", ["", "index.json"])
@pytest.mark.parametrize("header,value,status", CONDITIONALS)
def test_a_conditional_request_gets_from_the_copy_what_the_full_path_gives(
    client, url, suffix, header, value, status, cache_reads, django_assert_num_queries
):
    first = client.get(url + suffix)
    asked = {header: value(first)}
    full = client.get(url + suffix, **asked)  # this worker has a copy: answered from it
    assert full.status_code == status
    copies.clear()  # the full path, as a worker without a copy answers
    reference = client.get(url + suffix, **asked)
    client.get(url + suffix)
    cache_reads.clear()
    with django_assert_num_queries(0):
        from_copy = client.get(url + suffix, **asked)
    assert cache_reads == [[pagecache.generation_key("lists")]]
    for answer in (full, from_copy):
        assert answer.status_code == reference.status_code == status
        assert answer.content == reference.content
        names = {name for name, _ in reference.items()} - {"X-Request-ID"}
        assert {name for name, _ in answer.items()} - {"X-Request-ID"} == names
        for name in names:
            assert answer[name] == reference[name], name


def test_a_query_string_is_neither_kept_nor_served_from_a_copy(client, url):
    first = client.get(url)
    with_query = client.get(url + "?x=1")
    assert with_query.status_code == 200 and with_query.content == first.content
    assert list(copies._copies) == [(url, "testserver", False, url)]
    # The signature covers the URI asked for: the copy of the plain URL is not reused.
    assert with_query["Signature"] != first["Signature"]


def test_hosts_under_a_wildcard_keep_no_copies(client, url, settings):
    settings.ALLOWED_HOSTS = ["*"]
    for i in range(20):
        response = client.get(url, HTTP_HOST=f"h{i}.attacker.example")
        assert response.status_code == 200
    assert copies._copies == {}


def test_ports_and_capitals_of_a_named_host_keep_no_copies(client, url, settings):
    settings.ALLOWED_HOSTS = ["news.example"]
    for host in [f"news.example:{port}" for port in range(1, 10)] + ["News.Example", "NEWS.EXAMPLE"]:
        assert client.get(url, HTTP_HOST=host).status_code == 200
    assert copies._copies == {}


def test_each_named_host_and_scheme_has_its_own_signed_copy(client, url, settings):
    settings.ALLOWED_HOSTS = ["news.example", "www.news.example"]
    a = client.get(url, HTTP_HOST="news.example")
    b = client.get(url, HTTP_HOST="www.news.example")
    c = client.get(url, HTTP_HOST="news.example", secure=True)
    assert len(copies._copies) == 3
    assert client.get(url, HTTP_HOST="www.news.example")["Signature"] == b["Signature"]
    assert client.get(url, HTTP_HOST="news.example", secure=True)["Signature"] == c["Signature"]
    assert a["Signature"] != b["Signature"] != c["Signature"]


def test_unsafe_methods_are_refused_as_before(client, url):
    client.get(url)
    assert client.post(url).status_code in (403, 405)
    assert client.put(url).status_code in (403, 405)
    head = client.head(url)
    assert head.status_code == 200 and head.content == b""


def test_a_new_signing_key_retires_the_copies(client, url, settings):
    first = client.get(url)
    client.get(url)
    settings.SIGNING_KEY = "r" * 43
    second = client.get(url)
    assert second.content == first.content
    assert second["Signature-Input"] != first["Signature-Input"]


def test_the_table_is_bounded(client, url, settings, monkeypatch):
    monkeypatch.setattr(copies, "COPIES", 3)
    for suffix in ("", "index.json", "index.md", "index.txt", "checks.json"):
        assert client.get(url + suffix).status_code == 200
    assert len(copies._copies) == 3
    assert [key[0] for key in copies._copies] == [url + "index.md", url + "index.txt", url + "checks.json"]


def test_the_table_is_bounded_in_bytes_too(client, url, monkeypatch):
    sizes = {suffix: len(client.get(url + suffix).content) for suffix in ("", "index.json", "index.md")}
    copies.clear()
    monkeypatch.setattr(copies, "COPIES_BYTES", sizes[""] + sizes["index.json"])
    for suffix in ("", "index.json", "index.md"):
        assert client.get(url + suffix).status_code == 200
    assert sizes["index.md"] <= sizes[""]  # so the oldest copy, the page, is the one to go
    assert [key[0] for key in copies._copies] == [url + "index.json", url + "index.md"]
    assert copies._bytes == sum(len(c.body) for c in copies._copies.values()) <= copies.COPIES_BYTES
    monkeypatch.setattr(copies, "COPIES_BYTES", 10)  # a body larger than the budget is not kept
    client.get(url + "index.txt")
    assert (url + "index.txt", "testserver", False, url + "index.txt") not in copies._copies


def test_a_missing_page_keeps_no_copy(client, demo):
    assert client.get("/stories/2026-10-16/no-such-story/").status_code == 404
    assert copies._copies == {}


def test_a_copy_lives_no_longer_than_the_shared_entry(client, url, monkeypatch):
    import time

    first = client.get(url)
    client.get(url)
    later = time.monotonic() + pagecache.PAGE_TTL + 1
    monkeypatch.setattr(copies.time, "monotonic", lambda: later)
    cache.delete(f"page:story-url:{pagecache.CODE_VERSION}:html:2026-10-16:agent-training-stack")
    reads = []
    real = cache.get_many
    monkeypatch.setattr(cache, "get_many", lambda keys, *a, **k: reads.append(keys) or real(keys, *a, **k))
    again = client.get(url)
    assert reads  # the full path was taken
    assert again.content == first.content
    assert copies._copies[(url, "testserver", False, url)].made_at == later


@pytest.fixture
def chain_calls(monkeypatch):
    """How many requests reached the middleware after ``WholeCopies`` (CommonMiddleware's
    request step: the host check, the user agents, the redirects)."""
    from django.middleware.common import CommonMiddleware

    calls = []
    real = CommonMiddleware.process_request
    monkeypatch.setattr(CommonMiddleware, "process_request", lambda self, r: calls.append(r.path) or real(self, r))
    return calls


@pytest.mark.parametrize("suffix", ["", "index.json", "index.md", "index.txt", "checks.json"])
def test_a_copys_answer_is_then_given_before_the_rest_of_the_middleware_as_it_was(
    client, url, suffix, chain_calls, cache_reads, django_assert_num_queries
):
    full = client.get(url + suffix)  # the full path: its answer's headers are kept as it leaves
    assert copies._copies[(url + suffix, "testserver", False, url + suffix)].whole is not None
    calls = len(chain_calls)
    cache_reads.clear()
    with django_assert_num_queries(0):
        whole = client.get(url + suffix)
        again = client.get(url + suffix)
        head = client.head(url + suffix)
    assert len(chain_calls) == calls  # answered before the rest of the chain, from the second read on
    assert cache_reads == [[pagecache.generation_key("lists")]] * 3
    for answer in (whole, again):
        assert answer.status_code == 200 and answer.content == full.content
        # every header, in the same order; the request id is each request's own
        assert [h for h in answer.items() if h[0] != "X-Request-ID"] == [
            h for h in full.items() if h[0] != "X-Request-ID"
        ]
    assert len({full["X-Request-ID"], whole["X-Request-ID"], again["X-Request-ID"]}) == 3
    assert head.status_code == 200 and head.content == b""
    assert [h for h in head.items() if h[0] != "X-Request-ID"] == [h for h in whole.items() if h[0] != "X-Request-ID"]


def test_requests_the_rest_of_the_chain_would_treat_otherwise_take_the_whole_way(client, url, chain_calls, monkeypatch):
    from django.conf import settings as live

    first = client.get(url)
    client.get(url)
    calls = len(chain_calls)
    assert client.get(url, HTTP_HOST="elsewhere.example").status_code == 400  # the host check
    assert client.get(url + "?utm=x").status_code == 200
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    assert client.post(url).status_code in (403, 405)
    assert len(chain_calls) == calls + 4
    # Refused user agents are refused still (set as a deployment sets it: no settings signal,
    # so the copies are kept).
    monkeypatch.setattr(live, "DISALLOWED_USER_AGENTS", [__import__("re").compile("BadBot")])
    assert copies._copies[(url, "testserver", False, url)].whole is not None
    assert client.get(url, HTTP_USER_AGENT="BadBot/1.0").status_code == 403
    monkeypatch.setattr(live, "DISALLOWED_USER_AGENTS", [])
    assert client.get(url).content == first.content


def test_a_change_retires_a_copys_whole_answer_on_the_next_request(client, url, seed_doc):
    client.get(url)
    client.get(url)
    before = client.get(url)  # the whole answer
    actions.import_story(desk.validate(dict(seed_doc, headline="A headline after the whole copy")), restore=True)
    after = client.get(url)
    assert b"A headline after the whole copy" in after.content
    assert after["ETag"] != before["ETag"] and after["Content-Length"] == str(len(after.content))
    assert copies._copies[(url, "testserver", False, url)].whole is not None
    assert client.get(url).content == after.content


def test_a_copy_made_under_another_signing_key_is_not_answered_early(client, url, chain_calls, monkeypatch):
    first = client.get(url)
    client.get(url)
    assert copies._copies[(url, "testserver", False, url)].whole is not None
    calls = len(chain_calls)
    # The key in use is no longer the one the copy was signed with (a restart with a new key
    # clears every copy anyway).
    monkeypatch.setattr(copies, "keyring", lambda: type("Keyring", (), {"keyid": "another-key"})())
    again = client.get(url)
    assert len(chain_calls) == calls + 1  # the whole way
    assert again.status_code == 200 and again.content == first.content


def test_a_mount_point_is_part_of_a_copys_key(client, url):
    """The same full path split differently between the mount point (``SCRIPT_NAME``) and the
    path within the site is another request: the rest of the chain and the resolver read the
    latter."""
    client.get(url)
    client.get(url)  # a copy with its whole answer
    tail = url[len("/stories") :]
    assert client.get(tail, SCRIPT_NAME="/stories").status_code == 404  # as the full chain answers
    client.get(url, SCRIPT_NAME="/x")
    client.get(url, SCRIPT_NAME="/x")
    assert client.get("/x" + url).status_code == 404


def test_the_early_answer_looks_only_at_paths_in_the_table(client, url, monkeypatch):
    monkeypatch.setattr(copies, "COPIES", 2)
    for suffix in ("", "index.json", "index.md"):
        client.get(url + suffix)
    assert copies._paths == {key[0] for key in copies._copies} == {url + "index.json", url + "index.md"}
    monkeypatch.setattr(copies, "COPIES_BYTES", 10)  # too large to keep: the old copy goes too
    cache.set(pagecache.generation_key("lists"), "9999999999.000001", None)  # a change: the full path
    client.get(url + "index.md")
    assert copies._paths == {key[0] for key in copies._copies} == {url + "index.json"}
    copies.clear()
    assert copies._paths == frozenset()
