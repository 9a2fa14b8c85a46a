"""Attacks on the readers' site that need no login: cache flooding with unknown query
parameters, duplicate story URLs, and metadata that only a draft uses."""

import pytest
from django.core.cache import cache

from manifests.models import Manifest
from stories.models import Story
from syndication.models import ApiKey, Partner

pytestmark = pytest.mark.django_db


def page_entries() -> int:
    """How many rendered list pages the cache holds (local memory in tests)."""
    return sum(1 for key in cache._cache if ":page:" in key)


@pytest.mark.parametrize("path", ["/", "/sitemap.xml", "/feed.atom", "/corrections/", "/n/artificial-intelligence/"])
def test_unknown_query_parameters_make_no_new_cache_entries(client, demo, path):
    assert client.get(path).status_code == 200
    before = page_entries()
    for n in range(20):
        response = client.get(f"{path}?cachebust={n}&x={n}")
        assert response.status_code == 200
    assert page_entries() == before


def test_unknown_query_parameters_share_the_canonical_etag(client, demo):
    plain = client.get("/")
    busted = client.get("/?cachebust=1")
    assert plain["ETag"] == busted["ETag"]
    assert client.get("/?utm_source=x", HTTP_IF_NONE_MATCH=plain["ETag"]).status_code == 304


def test_the_parameters_a_page_reads_still_count(client, demo):
    """``?beat=`` picks a beat's stories: a different page, a different entry."""
    assert client.get("/n/artificial-intelligence/?beat=research").status_code == 200
    assert client.get("/n/artificial-intelligence/?beat=nope").status_code == 404


@pytest.mark.parametrize("date", ["20261016", "2026-W42-5", "2026-289", "2026-10-16T00", "2026-10-16 "])
def test_non_canonical_story_dates_are_not_found(client, demo, date):
    story_path = demo.path
    assert client.get(story_path).status_code == 200
    slug = demo.slug
    for suffix in ("", "index.json", "index.md", "index.txt"):
        assert client.get(f"/stories/{date}/{slug}/{suffix}").status_code == 404


@pytest.fixture
def draft_only_metadata(demo):
    """A draft in a newsroom and beat nothing published uses, citing a manifest known only
    from that draft."""
    from newsroom.models import Beat, Newsroom
    from tests.factories import ClaimFactory, ManifestFactory

    newsroom = Newsroom.objects.create(slug="secret-desk", title="Secret desk")
    beat = Beat.objects.create(newsroom=newsroom, slug="embargoed", title="Embargoed")
    manifest = ManifestFactory(id="999000111", title="Unannounced merger filing")
    ClaimFactory(manifest=manifest, id="c1")
    story = Story.objects.create(
        slug="draft", edition=demo.edition, newsroom=newsroom, beat=beat, headline="Not yet", status="draft"
    )
    return newsroom, beat, manifest, story


def test_a_newsroom_only_a_draft_uses_is_not_public(client, draft_only_metadata):
    newsroom, _, _, _ = draft_only_metadata
    for path in (f"/n/{newsroom.slug}/", f"/n/{newsroom.slug}/feed.atom", f"/n/{newsroom.slug}/feed.json"):
        assert client.get(path).status_code == 404, path
    assert b"Secret desk" not in client.get("/").content
    assert b"secret-desk" not in client.get("/sitemap.xml").content


def test_a_manifest_no_published_story_cites_is_not_public(client, draft_only_metadata):
    _, _, manifest, _ = draft_only_metadata
    assert client.get(f"/manifests/{manifest.id}/").status_code == 404
    cited = Manifest.objects.filter(cites__isnull=False).first()
    assert client.get(f"/manifests/{cited.id}/").status_code == 200


def test_the_api_hides_draft_only_newsrooms_beats_and_manifests(draft_only_metadata):
    from rest_framework.test import APIClient

    _, _, manifest, _ = draft_only_metadata
    partner = Partner.objects.create(name="Wire", slug="wire")
    _, plaintext = ApiKey.issue(partner=partner, scope="read")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    rooms = {n["slug"]: n for n in api.get("/api/v1/newsrooms/").json()}
    assert "secret-desk" not in rooms
    assert all(b["slug"] != "embargoed" for n in rooms.values() for b in n["beats"])
    assert api.get(f"/api/v1/manifests/{manifest.id}/").status_code == 404
