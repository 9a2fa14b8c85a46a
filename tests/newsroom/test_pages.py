"""Home, newsroom, edition and reuse pages: published stories only, newest first."""

import json

import pytest

from stories.models import Story
from tests.factories import NewsroomFactory
from tests.stories.site_helpers import fresh_cache, make_story  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def newsroom_stories(demo, seed_doc):
    """25 more published stories in the demo newsroom (5 on the 'policy' beat) and a draft."""
    for i in range(25):
        make_story(
            seed_doc, id=f"95{i:02d}", slug=f"story-{i:02d}", beat="policy" if i % 5 == 0 else "research",
            published_at=f"2026-10-17T{i % 24:02d}:00:00Z", edition=f"2026-10-17T{i % 24:02d}",
        )  # fmt: skip
    make_story(seed_doc, id="9600", slug="secret-draft", published_at=None, edition="2026-10-18T09")
    return demo


def test_home_shows_latest_edition_and_newsrooms(client, newsroom_stories):
    html = client.get("/").content.decode()
    # the latest story is story-23 (2026-10-17T23); its edition holds only it
    assert 'href="/editions/2026-10-17T23/"' in html
    assert "/stories/2026-10-17/story-23/" in html
    # earlier editions follow, newest first, up to 12
    earlier = html[html.index('id="earlier-heading"') :]
    assert earlier.index("/stories/2026-10-17/story-22/") < earlier.index("/stories/2026-10-17/story-21/")
    assert earlier.count('class="story-card"') == 12
    assert 'href="/n/artificial-intelligence/"' in html
    assert "secret-draft" not in html


def test_home_with_nothing_published(client, db):
    assert "No stories have been published yet." in client.get("/").content.decode()


def test_newsroom_page_is_paginated_newest_first(client, newsroom_stories):
    first = client.get("/n/artificial-intelligence/").content.decode()
    assert first.index("story-23/") < first.index("story-22/")
    assert first.count('class="story-card"') == 20
    assert "Page 1 of 2" in first and 'rel="next" href="?page=2"' in first
    second = client.get("/n/artificial-intelligence/?page=2").content.decode()
    assert second.count('class="story-card"') == 6  # 25 + the demo story
    assert "agent-training-stack" in second
    assert "secret-draft" not in first + second
    assert client.get("/n/artificial-intelligence/?page=3").status_code == 404
    assert client.get("/n/artificial-intelligence/?page=x").status_code == 404


def test_newsroom_page_filters_by_beat(client, newsroom_stories):
    html = client.get("/n/artificial-intelligence/?beat=policy").content.decode()
    assert html.count('class="story-card"') == 5
    assert "story-05/" in html and "story-01/" not in html
    assert 'href="?beat=policy" aria-current="page"' in html
    assert client.get("/n/artificial-intelligence/?beat=nope").status_code == 404


def test_newsroom_page_has_feed_alternates(client, newsroom_stories):
    html = client.get("/n/artificial-intelligence/").content.decode()
    assert '<link rel="alternate" type="application/atom+xml" title="Artificial Intelligence (Atom)" href="/n/artificial-intelligence/feed.atom">' in html
    assert 'type="application/rss+xml"' in html and 'href="/n/artificial-intelligence/feed.json"' in html


def test_unknown_newsroom_is_not_found(client, db):
    assert client.get("/n/nope/").status_code == 404


def test_edition_page_lists_its_published_stories(client, newsroom_stories):
    html = client.get("/editions/2026-10-16T00/").content.decode()
    assert "agent-training-stack" in html
    assert client.get("/editions/2026-10-18T09/").status_code == 404  # only a draft
    assert client.get("/editions/2030-01-01T00/").status_code == 404
    assert client.get("/editions/garbage/").status_code == 404


def test_a_story_leaving_publication_leaves_the_lists(client, newsroom_stories):
    from newsroom.pagecache import bump

    assert "story-23/" in client.get("/n/artificial-intelligence/").content.decode()
    Story.objects.filter(id="9523").update(status="draft", published_at=None)
    bump("lists")  # what stories.cache does on story_unpublished
    assert "story-23/" not in client.get("/n/artificial-intelligence/").content.decode()


def test_unpublish_signal_refreshes_list_pages(client, newsroom_stories):
    from stories.actions import unpublish_story

    assert "story-23/" in client.get("/").content.decode()
    unpublish_story(story=Story.objects.get(id="9523"))
    assert "story-23/" not in client.get("/").content.decode()


def test_reuse_json_is_the_site_terms_without_canonical_url(client, db):
    response = client.get("/.well-known/reuse.json")
    assert response["Content-Type"] == "application/json; charset=utf-8"
    data = json.loads(response.content)
    assert data["license_url"] == "https://hangingcontext.com/terms/reuse/"
    assert data["attribution"] == "Hanging Context, with provenance by Synorb"
    assert "canonical_url" not in data


def test_reuse_terms_page(client, db):
    html = client.get("/terms/reuse/").content.decode()
    assert "Free to read, quote, summarise and republish" in html
    assert 'href="/.well-known/reuse.json"' in html


def test_list_pages_answer_304_and_carry_cdn_headers(client, newsroom_stories):
    first = client.get("/n/artificial-intelligence/")
    assert "s-maxage=300" in first["Cache-Control"]
    assert client.get("/n/artificial-intelligence/", headers={"If-None-Match": first["ETag"]}).status_code == 304


@pytest.mark.parametrize(
    "url,most",
    [("/", 5), ("/n/artificial-intelligence/", 4), ("/n/artificial-intelligence/?beat=policy", 4),
     ("/editions/2026-10-16T00/", 2), ("/.well-known/reuse.json", 1), ("/terms/reuse/", 1)],
)  # fmt: skip
def test_page_query_counts(client, newsroom_stories, url, most, django_assert_max_num_queries):
    with django_assert_max_num_queries(most):
        assert client.get(url).status_code == 200


def test_newsroom_without_stories_shows_empty_page(client, db):
    NewsroomFactory(slug="quiet", title="Quiet")
    assert "No stories yet." in client.get("/n/quiet/").content.decode()
