"""POST /api/v1/manifests/: writer keys add new manifests only; a stored manifest (cited by a
published story or not) is a 409 naming it and the citing stories, and nothing is written."""

import copy
import io

import pytest
from django.core.management import call_command

from manifests.models import Claim, Manifest
from stories.models import AuditEntry
from tests.seed import SEED_JSON

pytestmark = pytest.mark.django_db

URL = "/api/v1/manifests/"
CITED_MANIFEST = "1792067182956183080"
CITED_CLAIM = "1792067413462310158"
NEW_MANIFEST = {
    "manifest_id": "1999000000000000001",
    "title": "A new source",
    "source_name": "new-wire",
    "source_url": "https://example.org/new",
    "published_date": "2026-10-15",
    "claims": [{"claim_id": "1999000000000000002", "text": "Something new happened.", "self_reported": False}],
}


def document(*manifests) -> dict:
    return {"schema": "hangingcontext.manifests/1", "manifests": [copy.deepcopy(m) for m in manifests]}


def entry_of(seed_manifests_doc, manifest_id=CITED_MANIFEST) -> dict:
    return copy.deepcopy(next(m for m in seed_manifests_doc["manifests"] if m["manifest_id"] == manifest_id))


def test_a_writer_key_adds_a_new_manifest(writer_api):
    response = writer_api.post(URL, document(NEW_MANIFEST), format="json")
    assert response.status_code == 201, response.content
    assert response.json() == {"created": 1, "updated": 0, "unchanged": 0}
    assert Claim.objects.get(id="1999000000000000002").text == "Something new happened."


def test_a_writer_key_may_not_update_an_uncited_manifest(writer_api):
    assert writer_api.post(URL, document(NEW_MANIFEST), format="json").status_code == 201
    changed = copy.deepcopy(NEW_MANIFEST)
    changed["title"] = "Retitled"
    changed["claims"][0]["text"] = "Something else happened."
    response = writer_api.post(URL, document(changed), format="json")
    assert response.status_code == 409, response.content
    error = response.json()["error"]
    assert error["code"] == "conflict"
    assert error["manifest_ids"] == [NEW_MANIFEST["manifest_id"]]
    assert "already exist" in error["message"]
    assert error["cited_by"] == {}
    assert Manifest.objects.get(id=NEW_MANIFEST["manifest_id"]).title == "A new source"
    assert Claim.objects.get(id="1999000000000000002").text == "Something new happened."


def test_resending_an_existing_manifest_unchanged_is_also_refused(writer_api):
    writer_api.post(URL, document(NEW_MANIFEST), format="json")
    assert writer_api.post(URL, document(NEW_MANIFEST), format="json").status_code == 409


def test_a_writer_key_may_not_rewrite_a_cited_manifest(writer_api, demo, seed_manifests_doc):
    entry = entry_of(seed_manifests_doc)
    entry["title"] = "A title that suits the story better"
    entry["source_url"] = "https://attacker.example/source"
    entry["claims"][0]["text"] = "Whatever the story needs the source to say."
    before = Claim.objects.get(id=CITED_CLAIM).text
    response = writer_api.post(URL, document(NEW_MANIFEST, entry), format="json")
    assert response.status_code == 409, response.content
    error = response.json()["error"]
    assert error["cited_by"] == {CITED_MANIFEST: ["81"]}
    assert CITED_MANIFEST in error["message"] and "81" in error["message"]
    manifest = Manifest.objects.get(id=CITED_MANIFEST)
    assert manifest.title != entry["title"] and manifest.source_url != entry["source_url"]
    assert Claim.objects.get(id=CITED_CLAIM).text == before
    assert not Manifest.objects.filter(id=NEW_MANIFEST["manifest_id"]).exists()  # nothing from the request
    assert not AuditEntry.objects.filter(action=AuditEntry.Action.SOURCE_CHANGED).exists()


def test_a_writer_key_may_not_fill_a_cited_stub(writer_api, seed_manifests_doc):
    call_command("import_stories", "--restore", str(SEED_JSON), stdout=io.StringIO())
    assert Claim.objects.get(id=CITED_CLAIM).has_text is False
    entry = entry_of(seed_manifests_doc)
    entry["claims"] = [{"claim_id": CITED_CLAIM, "text": "Exactly what paragraph one says.", "self_reported": False}]
    response = writer_api.post(URL, document(entry), format="json")
    assert response.status_code == 409
    assert response.json()["error"]["cited_by"] == {CITED_MANIFEST: ["81"]}
    assert Claim.objects.get(id=CITED_CLAIM).has_text is False


def test_a_read_key_may_not_post_manifests(api):
    response = api.post(URL, document(NEW_MANIFEST), format="json")
    assert response.status_code == 403
    assert not Manifest.objects.exists()


def test_a_submission_never_rewrites_a_stored_manifest(writer_api, demo, story_doc):
    # A story document's manifests list only creates the manifests the database lacks.
    doc = story_doc(id=None, slug="another-take")
    listed = next(m for m in doc["manifests"] if m["manifest_id"] == CITED_MANIFEST)
    listed["title"] = "Rewritten through a submission"
    before = Manifest.objects.get(id=CITED_MANIFEST).title
    response = writer_api.post("/api/v1/submissions/", doc, format="json")
    assert response.status_code == 201, response.content
    assert Manifest.objects.get(id=CITED_MANIFEST).title == before


def test_a_manifest_stored_meanwhile_by_another_request_is_a_409(writer_api, monkeypatch):
    """Two requests adding the same new id at once: both look it up before either writes.
    The second to write is a 409 (not a server error), and nothing of it is written."""
    from manifests import formats

    assert writer_api.post(URL, document(NEW_MANIFEST), format="json").status_code == 201
    monkeypatch.setattr(formats, "_plan", lambda entry, **kwargs: (None, []))  # the look-up saw none
    other = {**copy.deepcopy(NEW_MANIFEST), "title": "Raced"}
    other["claims"] = [{"claim_id": "1999000000000000003", "text": "A second claim.", "self_reported": False}]
    response = writer_api.post(URL, document(other), format="json")
    assert response.status_code == 409, response.content
    assert response.json()["error"]["code"] == "conflict"
    assert Manifest.objects.get(id=NEW_MANIFEST["manifest_id"]).title == "A new source"
    assert not Claim.objects.filter(id="1999000000000000003").exists()
