"""What a writer key adds that no reader sees yet (a new source and its publisher, a draft,
a newsroom or beat of its own) keeps every cached page and stored API answer: a key
writing at its full rate cannot keep the site and the API on the cold path. What readers
do see still moves them."""

import pytest
from django.core.cache import cache

from manifests.models import Claim
from newsroom.infra.pagecache import generation_key

from .conftest import client_for

pytestmark = pytest.mark.django_db

CITED_MANIFEST = "1792043738156041460"  # cited by the published demo story


def generations() -> dict:
    return {name: cache.get(generation_key(name)) for name in ("sources", "lists")}


def manifests_doc(manifest_id: str, claims=()) -> dict:
    return {
        "schema": "hangingcontext.manifests/1",
        "manifests": [
            {
                "manifest_id": manifest_id,
                "title": "A new study",
                "source_name": f"A publisher not stored yet {manifest_id}",
                "source_url": "https://example.org/study",
                "published_date": "2026-10-01",
                "claims": list(claims),
            }
        ],
    }


def test_a_new_source_with_a_new_publisher_keeps_every_cache(demo, writer_key):
    writer = client_for(writer_key[1])
    before = generations()
    claims = [{"claim_id": "c1", "text": "The study covered 40 schools."}]
    response = writer.post("/api/v1/manifests/", manifests_doc("m-new-1", claims), format="json")
    assert response.status_code == 201, response.content
    assert generations() == before


def test_a_submitted_draft_in_a_new_newsroom_and_beat_keeps_every_cache(demo, writer_key, story_doc):
    writer = client_for(writer_key[1])
    before = generations()
    doc = story_doc(id=None, slug="a-new-submission", newsroom="a-new-desk", beat="a-new-beat", published_at=None)
    response = writer.post("/api/v1/submissions/", doc, format="json")
    assert response.status_code in (200, 201), response.content
    assert generations() == before


def test_a_new_claim_of_a_source_readers_see_moves_the_lists(demo):
    before = generations()
    Claim.objects.create(id="c-new", manifest_id=CITED_MANIFEST, text="A claim added later.", position=99)
    after = generations()
    assert after["lists"] != before["lists"]  # the source's public page lists its claims


def test_renaming_a_newsroom_readers_see_moves_every_cache(demo):
    before = generations()
    demo.newsroom.title = "A renamed newsroom"
    demo.newsroom.save()
    after = generations()
    assert after["sources"] != before["sources"] and after["lists"] != before["lists"]
