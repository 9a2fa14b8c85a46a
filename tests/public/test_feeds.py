"""Atom, RSS and JSON feeds, site-wide and per newsroom: parsed, published stories only,
corrections reflected in ``updated``."""

import json
import xml.etree.ElementTree as ET

import pytest

from stories.actions import record_correction
from stories.models import Story
from tests.factories import NewsroomFactory
from tests.public.helpers import import_seed_story

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"
STORY_URL = "https://hangingcontext.com/stories/2026-10-16/agent-training-stack/"


@pytest.fixture
def stories(demo, seed_doc):
    """The demo story, a newer one in another newsroom, and a draft."""
    other = import_seed_story(
        seed_doc,
        id="901",
        slug="policy-story",
        newsroom="policy",
        newsroom_title="Policy",
        published_at="2026-10-17T03:00:00Z",
        edition="2026-10-17T03",
    )
    draft = import_seed_story(seed_doc, id="902", slug="draft-story", published_at=None, edition="2026-10-17T04")
    assert draft.status == "draft"
    return demo, other, draft


def atom_entries(client, url):
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    root = ET.fromstring(response.content)
    return root, root.findall(f"{ATOM}entry")


def test_site_atom_feed_lists_published_stories_newest_first(client, stories):
    root, entries = atom_entries(client, "/feed.atom")
    assert root.find(f"{ATOM}title").text == "Hanging Context"
    links = [e.find(f"{ATOM}link").get("href") for e in entries]
    assert links == ["https://hangingcontext.com/stories/2026-10-17/policy-story/", STORY_URL]
    first = entries[1]
    assert first.find(f"{ATOM}title").text.startswith("Agent training gets practical")
    assert first.find(f"{ATOM}published").text.startswith("2026-10-16T00:39:10")
    assert first.find(f"{ATOM}updated").text.startswith("2026-10-16T00:39:10")


def test_correction_moves_atom_updated(client, stories):
    demo = stories[0]
    client.get("/feed.atom")  # cached now
    correction = record_correction(story=demo, text="Fixed a number.", kind="correction")
    _, entries = atom_entries(client, "/feed.atom")
    [entry] = [e for e in entries if e.find(f"{ATOM}link").get("href") == STORY_URL]
    stamp = correction.corrected_at.strftime("%Y-%m-%dT%H:%M:%S")
    assert entry.find(f"{ATOM}updated").text.startswith(stamp)
    assert entry.find(f"{ATOM}published").text.startswith("2026-10-16T00:39:10")


def test_rss_feed_parses(client, stories):
    response = client.get("/feed.rss")
    assert response["Content-Type"].startswith("application/rss+xml")
    channel = ET.fromstring(response.content).find("channel")
    items = channel.findall("item")
    assert [i.find("link").text for i in items][-1] == STORY_URL
    assert items[-1].find("description").text.startswith("Four results point the same way")
    assert items[-1].find("pubDate").text == "Fri, 16 Oct 2026 00:39:10 +0000"


def test_json_feed_is_json_feed_1_1(client, stories):
    demo = stories[0]
    record_correction(story=demo, text="Fixed a number.", kind="update")
    response = client.get("/feed.json")
    assert response["Content-Type"] == "application/feed+json; charset=utf-8"
    feed = json.loads(response.content)
    assert feed["version"] == "https://jsonfeed.org/version/1.1"
    assert feed["feed_url"] == "https://hangingcontext.com/feed.json"
    [item] = [i for i in feed["items"] if i["url"] == STORY_URL]
    assert item["id"] == STORY_URL and item["title"].startswith("Agent training")
    assert item["date_published"] == "2026-10-16T00:39:10Z"
    assert item["date_modified"] > item["date_published"]
    assert len(feed["items"]) == 2


def test_newsroom_feeds_hold_only_that_newsroom(client, stories):
    _, entries = atom_entries(client, "/n/policy/feed.atom")
    assert [e.find(f"{ATOM}link").get("href") for e in entries] == [
        "https://hangingcontext.com/stories/2026-10-17/policy-story/"
    ]
    channel = ET.fromstring(client.get("/n/artificial-intelligence/feed.rss").content).find("channel")
    assert [i.find("link").text for i in channel.findall("item")] == [STORY_URL]
    feed = json.loads(client.get("/n/artificial-intelligence/feed.json").content)
    assert [i["url"] for i in feed["items"]] == [STORY_URL]
    assert feed["title"] == "Hanging Context: Artificial Intelligence"


def test_unknown_newsroom_feed_is_not_found(client, stories):
    for kind in ("atom", "rss", "json"):
        assert client.get(f"/n/nope/feed.{kind}").status_code == 404


def test_drafts_and_scheduled_never_appear(client, stories):
    Story.objects.filter(id="901").update(status="scheduled", published_at=None, scheduled_for="2030-01-01T00:00:00Z")
    for url in ("/feed.atom", "/feed.rss", "/feed.json", "/n/artificial-intelligence/feed.json"):
        body = client.get(url).content.decode()
        assert "draft-story" not in body and "policy-story" not in body
        assert "agent-training-stack" in body


def test_feeds_answer_conditional_requests_and_cdn_headers(client, stories):
    first = client.get("/feed.atom")
    assert "s-maxage" in first["Cache-Control"] and "stale-while-revalidate" in first["Cache-Control"]
    assert client.get("/feed.atom", headers={"If-None-Match": first["ETag"]}).status_code == 304
    record_correction(story=stories[0], text="Fixed.", kind="correction")
    assert client.get("/feed.atom", headers={"If-None-Match": first["ETag"]}).status_code == 200


@pytest.mark.parametrize("url", ["/feed.atom", "/feed.rss", "/feed.json", "/n/artificial-intelligence/feed.atom"])
def test_feed_query_count(client, stories, url, django_assert_max_num_queries):
    with django_assert_max_num_queries(3):
        assert client.get(url).status_code == 200


def test_feeds_with_no_stories(client, db):
    assert json.loads(client.get("/feed.json").content)["items"] == []
    assert ET.fromstring(client.get("/feed.atom").content).findall(f"{ATOM}entry") == []


def test_a_newsroom_without_a_published_story_has_no_feeds(client, db):
    """A newsroom only a draft uses (or none yet) is not public: its feeds are not found."""
    NewsroomFactory(slug="empty")
    for path in ("/n/empty/feed.json", "/n/empty/feed.atom", "/n/empty/feed.rss"):
        assert client.get(path).status_code == 404, path
