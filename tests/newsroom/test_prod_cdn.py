"""The CDN purge hook POSTs the stale URLs, after the commit, and never breaks the caller."""

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from newsroom.infra import cdn


class PurgeEndpoint(BaseHTTPRequestHandler):
    received: list = []
    status = 200

    def do_POST(self):
        length = int(self.headers["Content-Length"])
        self.received.append({"headers": dict(self.headers), "body": json.loads(self.rfile.read(length))})
        self.send_response(self.status)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def endpoint(settings):
    PurgeEndpoint.received = []
    PurgeEndpoint.status = 200
    server = HTTPServer(("127.0.0.1", 0), PurgeEndpoint)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    settings.CDN_PURGE_URL = f"http://127.0.0.1:{server.server_port}/purge"
    settings.CDN_PURGE_TOKEN = ""
    settings.SITE_URL = "https://news.example"
    yield PurgeEndpoint
    server.shutdown()
    server.server_close()


def test_purge_posts_the_absolute_urls_as_json(endpoint):
    assert cdn.purge(["/n/wire/", "/s/81/", "https://other.example/x", "/s/81/"]) is True
    [call] = endpoint.received
    assert call["body"] == {
        "urls": ["https://news.example/n/wire/", "https://news.example/s/81/", "https://other.example/x"]
    }
    assert call["headers"]["Content-Type"] == "application/json"
    assert "Authorization" not in call["headers"]


def test_purge_sends_the_token_when_set(endpoint, settings):
    settings.CDN_PURGE_TOKEN = "cdn-token-1"
    cdn.purge(["/s/81/"])
    assert endpoint.received[0]["headers"]["Authorization"] == "Bearer cdn-token-1"


def test_a_refused_purge_returns_false(endpoint):
    endpoint.status = 500
    assert cdn.purge(["/s/81/"]) is False


def test_an_unreachable_cdn_returns_false_within_the_timeout(settings):
    settings.CDN_PURGE_URL = "http://127.0.0.1:1/purge"
    settings.CDN_PURGE_TIMEOUT = 1.0
    assert cdn.purge(["/s/81/"]) is False


def test_without_a_purge_url_nothing_is_sent(endpoint, settings):
    settings.CDN_PURGE_URL = ""
    assert cdn.purge(["/s/81/"]) is True
    assert endpoint.received == []


@pytest.mark.django_db
def test_purge_on_commit_waits_for_the_commit(endpoint, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        cdn.purge_on_commit(["/s/81/"])
        assert endpoint.received == []  # nothing before the commit
    assert len(callbacks) == 1
    assert endpoint.received[0]["body"] == {"urls": ["https://news.example/s/81/"]}


def story_pages(story) -> set[str]:
    base = f"https://news.example{story.path}"
    return {base, base + "index.json", base + "index.md", base + "index.txt"}


@pytest.mark.django_db
def test_correcting_unpublishing_and_publishing_a_story_purge_its_pages_after_the_commit(
    endpoint, demo, django_capture_on_commit_callbacks
):
    from stories import actions

    lists = {
        "https://news.example/",
        "https://news.example/corrections/",
        "https://news.example/feed.atom",
        "https://news.example/sitemap-news.xml",
        f"https://news.example/n/{demo.newsroom.slug}/",
        f"https://news.example/n/{demo.newsroom.slug}/feed.json",
        f"https://news.example/editions/{demo.edition_id}/",
    }
    # each cited source's page lists the story: an unpublished story must leave them too
    sources = {
        f"https://news.example/manifests/{manifest_id}/"
        for manifest_id in ("1792043738156041460", "1792066118701135431", "1792067182956183080", "1792095901600389209")
    }
    for event in (
        lambda: actions.record_correction(story=demo, text="The date was wrong.", kind="correction"),
        lambda: actions.unpublish_story(story=demo, reason="legal"),
        lambda: actions.publish_story(story=demo, override_reason="republished after review"),
    ):
        endpoint.received = []
        with django_capture_on_commit_callbacks(execute=True):
            event()
            assert endpoint.received == []  # nothing before the commit
        [call] = endpoint.received
        assert story_pages(demo) | lists | sources <= set(call["body"]["urls"])


@pytest.mark.django_db
def test_story_events_purge_nothing_without_a_purge_url(endpoint, settings, demo, django_capture_on_commit_callbacks):
    from stories import actions

    settings.CDN_PURGE_URL = ""
    with django_capture_on_commit_callbacks(execute=True):
        actions.record_correction(story=demo, text="The date was wrong.", kind="correction")
    assert endpoint.received == []


@pytest.mark.django_db
def test_published_changes_that_drop_a_source_purge_its_page_too(
    endpoint, demo, editor, django_capture_on_commit_callbacks
):
    from django.db.models import Q

    from stories import actions
    from stories.actions import drafts
    from stories.models import Cite, Story

    dropped, kept = "1792043738156041460", "1792066118701135431"
    draft = drafts.start_changes(story=demo, user=editor)
    Cite.objects.filter(Q(paragraph__section__story=draft) | Q(key_fact__story=draft), manifest_id=dropped).delete()
    draft = actions.save_story(story=draft, user=editor, write=lambda: None)
    endpoint.received = []
    with django_capture_on_commit_callbacks(execute=True):
        live = drafts.publish_changes(
            draft=Story.objects.get(pk=draft.pk),
            user=editor,
            override_reason="The source was withdrawn.",
            reviewed_version=draft.version,
        )
        assert endpoint.received == []
    assert not Cite.objects.citing(manifest=dropped).filter(story_id=live.pk).exists()
    [call] = endpoint.received
    urls = set(call["body"]["urls"])
    # the page of the source no longer cited listed the story until now; the one still cited lists it still
    assert {f"https://news.example/manifests/{dropped}/", f"https://news.example/manifests/{kept}/"} <= urls
    assert story_pages(live) <= urls


def without_source(doc: dict, manifest_id: str) -> dict:
    """``doc`` with every cite of ``manifest_id`` left out (a unit left with none keeps no cite)."""
    import copy

    doc = copy.deepcopy(doc)
    units = [*doc["key_facts"], *(p for section in doc["sections"] for p in section["paragraphs"])]
    for unit in units:
        unit["cites"] = [c for c in unit["cites"] if c["manifest_id"] != manifest_id]
    return doc


@pytest.mark.django_db
@pytest.mark.parametrize("published", [True, False], ids=["changed", "taken-down"])
def test_a_restore_over_a_published_story_purges_its_pages_and_the_sources_it_drops(
    endpoint, demo, seed_doc, published, django_capture_on_commit_callbacks
):
    from stories import actions, desk

    dropped, kept = "1792043738156041460", "1792066118701135431"
    doc = without_source(seed_doc, dropped)
    doc["headline"] = "A headline restored from the backup"
    if not published:
        doc["published_at"] = None
    endpoint.received = []
    with django_capture_on_commit_callbacks(execute=True):
        result = actions.import_story(desk.validate(doc), restore=True)
        assert endpoint.received == []  # nothing before the commit
    assert result.outcome == "updated"
    assert result.story.is_published is published
    [call] = endpoint.received
    urls = set(call["body"]["urls"])
    assert story_pages(result.story) <= urls
    assert "https://news.example/" in urls  # the lists that showed it
    assert {f"https://news.example/manifests/{dropped}/", f"https://news.example/manifests/{kept}/"} <= urls


@pytest.mark.django_db
def test_a_restore_of_a_draft_purges_nothing(endpoint, demo, seed_doc, django_capture_on_commit_callbacks):
    from stories import actions, desk

    with django_capture_on_commit_callbacks(execute=True):
        actions.unpublish_story(story=demo, reason="legal")
    endpoint.received = []
    doc = dict(seed_doc, headline="A draft's headline restored", published_at=None)
    with django_capture_on_commit_callbacks(execute=True):
        result = actions.import_story(desk.validate(doc), restore=True)
    assert result.outcome == "updated" and not result.story.is_published
    assert endpoint.received == []
