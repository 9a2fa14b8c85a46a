"""The story page's fast path (public.views.story): a warm request in any worker is answered
from the URL's shared cache entry without a query, and every change to the story shows on the next request."""

from urllib.parse import urlsplit

import pytest

from newsroom.infra import pagecache
from public.views import copies
from stories import actions, desk

pytestmark = pytest.mark.django_db


@pytest.fixture
def url(demo):
    return urlsplit(demo.url).path


@pytest.fixture
def local_entries():
    """Start and end with no generations read by this process (PAGE_LOCAL_TTL tests keep them)."""
    pagecache._recent.clear()
    yield
    pagecache._recent.clear()


def test_a_warm_story_page_costs_no_query_and_is_the_same_page(client, url, django_assert_num_queries):
    first = client.get(url)
    assert first.status_code == 200
    copies.clear()  # another worker: the shared entry, not this worker's copy
    with django_assert_num_queries(0):
        second = client.get(url)
    assert second.status_code == 200
    assert second.content == first.content
    for header in ("ETag", "Last-Modified", "Link", "Cache-Control", "Content-Type"):
        assert second[header] == first[header], header


def test_a_warm_conditional_request_is_answered_304_without_a_query(client, url, django_assert_num_queries):
    etag = client.get(url)["ETag"]
    with django_assert_num_queries(0):
        response = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304
    assert response["ETag"] == etag
    assert response["Link"].endswith('rel="canonical"')


def test_an_import_that_changes_the_story_shows_on_the_next_request(client, url, seed_doc):
    old = client.get(url)
    assert b"A headline nobody has seen" not in old.content
    actions.import_story(desk.validate(dict(seed_doc, headline="A headline nobody has seen")), restore=True)
    new = client.get(url)
    assert b"A headline nobody has seen" in new.content
    assert new["ETag"] != old["ETag"]


def test_an_unpublished_story_is_not_served_from_its_entry(client, url, demo):
    from stories.actions import unpublish_story

    assert client.get(url).status_code == 200
    unpublish_story(story=demo, reason="withdrawn")
    assert client.get(url).status_code == 404


def test_with_page_local_ttl_a_worker_reads_no_cache_and_a_change_here_still_shows(
    client, url, seed_doc, settings, local_entries, django_assert_num_queries, monkeypatch
):
    from django.core.cache import cache

    settings.PAGE_LOCAL_TTL = 60
    first = client.get(url)
    client.get(url)  # kept by this worker, with the generation it read
    reads = []
    monkeypatch.setattr(cache, "get", lambda *args, **kwargs: reads.append(args))
    monkeypatch.setattr(cache, "get_many", lambda *args, **kwargs: reads.append(args))
    with django_assert_num_queries(0):
        assert client.get(url).content == first.content
    assert reads == []
    monkeypatch.undo()
    actions.import_story(desk.validate(dict(seed_doc, headline="Changed while kept locally")), restore=True)
    assert b"Changed while kept locally" in client.get(url).content


def test_a_date_that_is_not_one_is_not_found_before_any_cache_look_up(client, demo, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert client.get("/stories/2026-13-45/agent-training-stack/").status_code == 404


@pytest.mark.parametrize("fmt", ["", "index.json"])
def test_renaming_the_newsroom_or_a_publisher_shows_on_the_next_request(client, url, demo, fmt):
    """Labels a story shows but does not own (newsroom title, beat, publisher names) move the
    shared generations, so story pages, lists and the API all follow (stories.cache)."""
    from manifests.models import Publisher

    page = url + fmt
    assert client.get(page).status_code == 200
    newsroom = demo.newsroom
    newsroom.title = "A newsroom renamed"
    newsroom.save()
    assert b"A newsroom renamed" in client.get(page).content
    publisher = Publisher.objects.filter(manifests__cites__paragraph__section__story=demo).distinct().first()
    publisher.name = "A publisher renamed"
    publisher.save()
    assert b"A publisher renamed" in client.get(page).content
