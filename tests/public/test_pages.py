"""Home, newsroom, edition and reuse pages: published stories only, newest first."""

import json
import re
from html import unescape

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from stories.models import Story
from tests.factories import NewsroomFactory
from tests.public.helpers import import_seed_story

pytestmark = pytest.mark.django_db


@pytest.fixture
def newsroom_stories(demo, seed_doc):
    """25 more published stories in the demo newsroom (5 on the 'policy' beat) and a draft."""
    for i in range(25):
        import_seed_story(
            seed_doc,
            id=f"95{i:02d}",
            slug=f"story-{i:02d}",
            beat="policy" if i % 5 == 0 else "research",
            published_at=f"2026-10-17T{i % 24:02d}:00:00Z",
            edition=f"2026-10-17T{i % 24:02d}",
        )
    import_seed_story(seed_doc, id="9600", slug="secret-draft", published_at=None, edition="2026-10-18T09")
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


NEWSROOM = "/n/artificial-intelligence/"
CARD = re.compile(r'class="story-card">\s*<h2><a href="/stories/[0-9-]+/([a-z0-9-]+)/"')


def links(html: str) -> dict:
    """The pagination's links by rel, unescaped."""
    nav = html[html.index('<nav class="pagination"') :] if '<nav class="pagination"' in html else ""
    return {rel: unescape(href) for rel, href in re.findall(r'<a rel="(prev|next)" href="([^"]*)"', nav)}


def slugs(html: str) -> list[str]:
    return CARD.findall(html)


def test_newsroom_page_is_paginated_newest_first_without_a_total(client, newsroom_stories):
    first = client.get(NEWSROOM).content.decode()
    assert first.index("story-23/") < first.index("story-22/")
    assert len(slugs(first)) == 20
    assert "Page 1 of" not in first and " of 2" not in first
    older = links(first)
    assert set(older) == {"next"} and older["next"].startswith(NEWSROOM + "?before=")
    assert ">Older</a>" in first and ">Newer</a>" not in first
    second = client.get(older["next"]).content.decode()
    assert slugs(second) == ["story-03", "story-02", "story-01", "story-24", "story-00", "agent-training-stack"]
    assert links(second) == {"prev": NEWSROOM}  # the newer page is the first
    assert "secret-draft" not in first + second


def test_walking_older_then_newer_visits_every_story_once_in_order(client, newsroom_stories, monkeypatch):
    monkeypatch.setattr("public.views.site.PAGE_SIZE", 5)
    expected = [s.slug for s in Story.objects.published().order_by("-published_at", "-id")]
    assert len(expected) == 26
    pages, url = [], NEWSROOM
    while url:
        html = client.get(url).content.decode()
        pages.append((url, slugs(html)))
        url = links(html).get("next")
    assert [s for _, page in pages for s in page] == expected
    assert [len(page) for _, page in pages] == [5, 5, 5, 5, 5, 1]
    # back up from the last page: each "Newer" link leads to the page before it
    for (newer_url, newer_slugs), (url, _) in zip(pages[-2::-1], pages[:0:-1]):
        assert links(client.get(url).content.decode())["prev"] == newer_url
        assert slugs(client.get(newer_url).content.decode()) == newer_slugs


def test_stories_sharing_a_publication_time_are_split_across_pages_without_loss(
    client, newsroom_stories, monkeypatch, seed_doc
):
    for i in range(4):
        import_seed_story(
            seed_doc,
            id=f"97{i:02d}",
            slug=f"same-minute-{i}",
            published_at="2026-10-17T23:00:00Z",
            edition="2026-10-17T23",
        )
    monkeypatch.setattr("public.views.site.PAGE_SIZE", 2)
    seen, url = [], NEWSROOM
    while url:
        html = client.get(url).content.decode()
        seen += slugs(html)
        url = links(html).get("next")
    assert seen[:5] == ["same-minute-3", "same-minute-2", "same-minute-1", "same-minute-0", "story-23"]
    assert len(seen) == len(set(seen)) == 30


def test_old_page_numbers_still_answer(client, newsroom_stories):
    first = client.get(NEWSROOM + "?page=1")
    assert first.status_code == 301 and first["Location"] == NEWSROOM
    second = client.get(NEWSROOM + "?page=2")
    assert second.status_code == 302
    assert second["Location"] == links(client.get(NEWSROOM).content.decode())["next"]
    for gone in ("?page=3", "?page=0", "?page=x", "?page=999999999999999999999"):
        assert client.get(NEWSROOM + gone).status_code == 404, gone


def test_old_page_numbers_keep_the_beat(client, newsroom_stories, monkeypatch):
    monkeypatch.setattr("public.views.site.PAGE_SIZE", 2)
    assert client.get(NEWSROOM + "?beat=policy&page=1")["Location"] == NEWSROOM + "?beat=policy"
    location = client.get(NEWSROOM + "?beat=policy&page=2")["Location"]
    assert location.startswith(NEWSROOM + "?beat=policy&before=")
    assert slugs(client.get(location).content.decode()) == ["story-10", "story-05"]


@pytest.mark.parametrize(
    "cursor",
    [
        "x",
        "20261017T000000Z",
        "20261317T000000Z_9500",
        "20261017T000000Z_95/00",
        "2026-10-17T00:00:00Z_9500",
        "20261017T000000.5Z_1",
    ],
)
def test_a_cursor_the_site_did_not_give_out_is_not_found(client, newsroom_stories, cursor):
    assert client.get(NEWSROOM, {"before": cursor}).status_code == 404


def test_a_cursor_older_than_every_story_is_not_found(client, newsroom_stories):
    assert client.get(NEWSROOM + "?before=20000101T000000Z_1").status_code == 404


def test_a_cursor_with_microseconds_round_trips(client, newsroom_stories, monkeypatch):
    Story.objects.filter(id="9523").update(published_at="2026-10-17T23:00:00.250000Z")
    monkeypatch.setattr("public.views.site.PAGE_SIZE", 1)
    older = links(client.get(NEWSROOM).content.decode())["next"]
    assert older == NEWSROOM + "?before=20261017T230000.250000Z_9523"
    assert slugs(client.get(older).content.decode()) == ["story-22"]


def test_newsroom_page_filters_by_beat(client, newsroom_stories):
    html = client.get(NEWSROOM + "?beat=policy").content.decode()
    assert html.count('class="story-card"') == 5
    assert "story-05/" in html and "story-01/" not in html
    assert 'href="?beat=policy" aria-current="page"' in html
    assert client.get(NEWSROOM + "?beat=nope").status_code == 404


def test_a_beat_s_pages_keep_the_beat(client, newsroom_stories, monkeypatch):
    monkeypatch.setattr("public.views.site.PAGE_SIZE", 2)
    first = client.get(NEWSROOM + "?beat=policy").content.decode()
    assert slugs(first) == ["story-20", "story-15"]
    older = links(first)["next"]
    assert older == NEWSROOM + "?beat=policy&before=20261017T150000Z_9515"
    assert 'href="/n/artificial-intelligence/?beat=policy&amp;before=20261017T150000Z_9515"' in first  # escaped in HTML
    second = client.get(older).content.decode()
    assert slugs(second) == ["story-10", "story-05"]
    assert links(second)["prev"] == NEWSROOM + "?beat=policy"


def test_newsroom_page_has_feed_alternates(client, newsroom_stories):
    html = client.get("/n/artificial-intelligence/").content.decode()
    assert (
        '<link rel="alternate" type="application/atom+xml" title="Artificial Intelligence (Atom)" href="/n/artificial-intelligence/feed.atom">'
        in html
    )
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
    from newsroom.infra.pagecache import bump

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
    [
        ("/", 6),  # with the site profile, for the NewsMediaOrganization JSON-LD
        (NEWSROOM, 3),
        (NEWSROOM + "?beat=policy", 3),
        ("/editions/2026-10-16T00/", 2),
        ("/.well-known/reuse.json", 1),
        ("/terms/reuse/", 1),
    ],
)
def test_page_query_counts(client, newsroom_stories, url, most, django_assert_max_num_queries):
    with django_assert_max_num_queries(most):
        assert client.get(url).status_code == 200


@pytest.mark.parametrize("beat", ["", "policy"])
def test_an_older_newsroom_page_costs_one_query_more_and_never_counts(client, newsroom_stories, monkeypatch, beat):
    monkeypatch.setattr("public.views.site.PAGE_SIZE", 2)
    url = NEWSROOM + (f"?beat={beat}" if beat else "")
    for _ in range(2):
        url = links(client.get(url).content.decode())["next"]
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    # the newsroom, its beats, the page's rows and the newer page's cursor
    assert len(ctx.captured_queries) == 4
    sql = " ".join(q["sql"].upper() for q in ctx.captured_queries)
    assert "COUNT(" not in sql
    assert all(int(n) <= 2 for n in re.findall(r"OFFSET (\d+)", sql))  # never deeper than a page


def test_newsroom_without_published_stories_is_not_found(client, db):
    """A newsroom is public once a published story uses it; before that its page would
    only tell readers what the desk is preparing."""
    NewsroomFactory(slug="quiet", title="Quiet")
    assert client.get("/n/quiet/").status_code == 404
