"""A writer key adds no claim to a stored manifest. A submission may create stub claims
(known by id, no text) only under the manifests it adds itself (new ones, from its own
``manifests`` list); a cite of a claim a stored manifest lacks is a 400 at the cite's path,
and nothing is written."""

import pytest

from manifests.models import Claim, Manifest
from stories.models import Story
from tests.syndication.helpers import client_for

pytestmark = pytest.mark.django_db

URL = "/api/v1/submissions/"
CITED = "1792066118701135431"  # a manifest the demo's published story cites
NEW = "1799999999999999000"


def test_a_writer_key_adds_no_claim_to_a_cited_manifest(demo, story_doc, writer_key, read_key):
    doc = story_doc(id=None, slug="other", published_at=None, corrections=[])
    doc["key_facts"][0]["cites"] = [{"manifest_id": CITED, "claim_ids": ["1999"]}]
    stories, claims = Story.objects.count(), Claim.objects.count()

    response = client_for(writer_key[1]).post(URL, doc, format="json")

    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert error["path"] == "key_facts[0].cites[0].claim_ids[0]"
    assert "claim 1999 is not in manifest" in error["message"] and CITED in error["message"]
    assert not Claim.objects.filter(id="1999").exists()
    assert (Story.objects.count(), Claim.objects.count()) == (stories, claims)
    public = client_for(read_key[1]).get(f"/api/v1/manifests/{CITED}/")
    assert public.status_code == 200 and public.json()["pending_claim_ids"] == []


def test_a_manifest_listed_again_by_the_document_gains_no_claim_either(manifests_loaded, story_doc, writer_key):
    """Listing a stored manifest in the document's ``manifests`` does not make it the document's."""
    doc = story_doc(id=None, slug="other", published_at=None, corrections=[])
    assert CITED in [m["manifest_id"] for m in doc["manifests"]]
    doc["sections"][0]["paragraphs"][0]["cites"][0]["claim_ids"].append("1999")
    response = client_for(writer_key[1]).post(URL, doc, format="json")
    assert response.status_code == 400, response.content
    assert not Claim.objects.filter(id="1999").exists()


def test_stub_claims_under_a_manifest_the_submission_adds_are_kept(manifests_loaded, story_doc, writer_key):
    doc = story_doc(id=None, slug="other", published_at=None, corrections=[])
    doc["manifests"].append({**doc["manifests"][0], "manifest_id": NEW, "title": "A new source"})
    doc["key_facts"][0]["cites"].append({"manifest_id": NEW, "claim_ids": ["1999"]})

    response = client_for(writer_key[1]).post(URL, doc, format="json")

    assert response.status_code == 201, response.content
    assert response.json()["status"] == "draft"
    assert Manifest.objects.filter(id=NEW).exists()
    stub = Claim.objects.get(id="1999")
    assert (stub.manifest_id, stub.has_text) == (NEW, False)


def test_a_cited_claim_the_manifest_has_is_accepted(manifests_loaded, story_doc, writer_key):
    doc = story_doc(id=None, slug="other", published_at=None, corrections=[])
    claims = Claim.objects.count()
    response = client_for(writer_key[1]).post(URL, doc, format="json")
    assert response.status_code == 201, response.content
    assert Claim.objects.count() == claims
