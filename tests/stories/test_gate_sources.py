"""Sources cited by a published story are never rewritten silently: imports refuse to
change them; an editor's (or the provider's) change is audited on the citing stories,
which are re-checked and flagged on the desk."""

import copy
import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from django.urls import reverse

from manifests.formats import SourcesRefused, upsert_manifest, validate_manifest
from manifests.models import Claim, Manifest
from stories.actions.sources import published_citations
from stories.models import AuditEntry, CheckResult, Story
from tests.factories import ClaimFactory, ManifestFactory
from tests.manifests.test_admin import form_data
from tests.seed import SEED_JSON, SEED_MANIFESTS

pytestmark = pytest.mark.django_db

SEED = json.loads(SEED_MANIFESTS.read_text(encoding="utf-8"))
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


def seed_entry(manifest_id=CITED_MANIFEST) -> dict:
    return copy.deepcopy(next(m for m in SEED["manifests"] if m["manifest_id"] == manifest_id))


def write_doc(tmp_path, manifests) -> str:
    path = tmp_path / "manifests.json"
    path.write_text(json.dumps({"schema": SEED["schema"], "manifests": manifests}), encoding="utf-8")
    return str(path)


def import_file(path) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("import_manifests", path, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def source_audits(story_id="81"):
    return list(AuditEntry.objects.filter(story_id=story_id, action=AuditEntry.Action.SOURCE_CHANGED))


def test_published_citations_names_the_citing_published_stories(demo):
    uncited = ManifestFactory(id="1999000000000000009")
    assert published_citations([CITED_MANIFEST, uncited.id]) == {CITED_MANIFEST: ["81"]}
    Story.objects.filter(id="81").update(status=Story.Status.DRAFT)
    assert published_citations([CITED_MANIFEST]) == {}


# --------------------------------------------------------------------------- import_manifests


@pytest.mark.parametrize(
    "change",
    [
        lambda m: m.update(title="A quietly better title"),
        lambda m: m.update(source_url="https://attacker.example/page"),
        lambda m: m.update(source_name="someone-else"),
        lambda m: m.update(published_date="2020-01-01"),
        lambda m: m["claims"][0].update(text="The claim now says what the story needs."),
        lambda m: m["claims"][0].update(self_reported=not m["claims"][0]["self_reported"]),
    ],
    ids=["title", "source_url", "publisher", "published_date", "claim_text", "self_reported"],
)
def test_import_manifests_refuses_to_change_a_cited_source_and_writes_nothing(demo, tmp_path, change):
    entry = seed_entry()
    change(entry)
    path = write_doc(tmp_path, [NEW_MANIFEST, entry])
    before_claim = Claim.objects.get(id=CITED_CLAIM)
    before_manifest = Manifest.objects.select_related("publisher").get(id=CITED_MANIFEST)
    with pytest.raises(CommandError, match="1 file"):
        import_file(path)
    assert not Manifest.objects.filter(id=NEW_MANIFEST["manifest_id"]).exists()  # nothing from the file
    after_claim = Claim.objects.get(id=CITED_CLAIM)
    after_manifest = Manifest.objects.select_related("publisher").get(id=CITED_MANIFEST)
    assert (after_claim.text, after_claim.self_reported) == (before_claim.text, before_claim.self_reported)
    assert (after_manifest.title, after_manifest.source_url, after_manifest.publisher.name) == (
        before_manifest.title,
        before_manifest.source_url,
        before_manifest.publisher.name,
    )
    assert after_manifest.published_date == before_manifest.published_date
    assert source_audits() == []


def test_the_refusal_names_the_manifest_and_the_citing_story(demo, tmp_path):
    entry = seed_entry()
    entry["claims"][0]["text"] = "Reworded."
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command("import_manifests", write_doc(tmp_path, [entry]), stdout=io.StringIO(), stderr=err)
    message = err.getvalue()
    assert f"manifest {CITED_MANIFEST}" in message
    assert f"claim {CITED_CLAIM} text" in message
    assert "published story 81" in message
    assert "nothing imported from this file" in message


def test_the_same_file_without_the_cited_change_imports(demo, tmp_path):
    out, _ = import_file(write_doc(tmp_path, [NEW_MANIFEST, seed_entry()]))
    assert "1 created, 0 updated, 1 unchanged" in out
    assert Manifest.objects.filter(id=NEW_MANIFEST["manifest_id"]).exists()


def test_import_manifests_may_update_an_uncited_manifest(demo, tmp_path):
    import_file(write_doc(tmp_path, [NEW_MANIFEST]))
    entry = copy.deepcopy(NEW_MANIFEST)
    entry["title"] = "A new source, retitled"
    entry["claims"][0]["text"] = "Something new happened, reworded."
    out, _ = import_file(write_doc(tmp_path, [entry]))
    assert "0 created, 1 updated" in out
    assert Claim.objects.get(id="1999000000000000002").text == "Something new happened, reworded."


def test_a_claim_may_be_added_to_a_cited_manifest(demo, tmp_path):
    entry = seed_entry()
    entry["claims"].append({"claim_id": "1999000000000000077", "text": "One more claim.", "self_reported": False})
    out, _ = import_file(write_doc(tmp_path, [entry]))
    assert "1 updated" in out
    assert Claim.objects.get(id="1999000000000000077").manifest_id == CITED_MANIFEST
    assert source_audits() == []  # nothing any story cites changed


def test_filling_a_cited_stub_by_import_is_allowed_audited_and_rechecked(db):
    call_command("import_stories", "--restore", str(SEED_JSON), stdout=io.StringIO())
    assert Story.objects.get(id="81").is_published
    assert Claim.objects.get(id=CITED_CLAIM).has_text is False
    checks = CheckResult.objects.filter(story_id="81").count()
    import_file(str(SEED_MANIFESTS))
    filled = [a for a in source_audits() if a.details.get("claim_id") == CITED_CLAIM]
    assert len(filled) == 1
    changes = filled[0].details["changes"]
    assert changes["text"]["old"] == ""
    assert changes["text"]["new"].startswith("The most common failure mode")
    assert changes["has_text"] == {"old": False, "new": True}
    assert CheckResult.objects.filter(story_id="81").count() > checks


# --------------------------------------------------------------------------- other paths


def test_the_provider_fetch_may_change_a_cited_claim_and_it_is_audited(demo):
    entry = validate_manifest(seed_entry(), "reply")
    entry["claims"][0]["text"] = "The provider's corrected wording."
    with transaction.atomic():
        assert upsert_manifest(entry, with_claims=True, via="provider") == "updated"
    [audit] = source_audits()
    assert audit.details["claim_id"] == CITED_CLAIM
    assert audit.details["changes"]["text"]["new"] == "The provider's corrected wording."
    assert audit.user is None


def test_a_story_document_never_rewrites_a_stored_manifest(demo):
    # The desk store creates only the manifests the database lacks; should one appear in
    # the meantime, the write is refused rather than turned into an update.
    entry = validate_manifest(seed_entry(), "manifests[0]", claims=False)
    entry["title"] = "Rewritten by a story document"
    with pytest.raises(SourcesRefused), transaction.atomic():
        upsert_manifest(entry, with_claims=False, via="story", new_only=True)
    assert Manifest.objects.get(id=CITED_MANIFEST).title != "Rewritten by a story document"


# --------------------------------------------------------------------------- the admin


def claim_form(claim, **changes) -> dict:
    data = {
        "manifest": claim.manifest_id,
        "position": claim.position,
        "text": claim.text,
        "self_reported": {True: "true", False: "false", None: "unknown"}[claim.self_reported],
    }
    data.update(changes)
    return data


def test_an_editor_changing_a_cited_claim_leaves_an_audit_row_and_a_new_check(admin_client, admin_user, demo):
    claim = Claim.objects.get(id=CITED_CLAIM)
    old_text = claim.text
    checks = CheckResult.objects.filter(story_id="81").count()
    url = reverse("admin:manifests_claim_change", args=[CITED_CLAIM])
    response = admin_client.post(url, claim_form(claim, text="An editor's new wording."))
    assert response.status_code == 302, response.content
    [audit] = source_audits()
    assert audit.user == admin_user
    assert audit.version == Story.objects.get(id="81").version
    assert audit.details == {
        "manifest_id": CITED_MANIFEST,
        "claim_id": CITED_CLAIM,
        "changes": {"text": {"old": old_text, "new": "An editor's new wording."}},
    }
    assert CheckResult.objects.filter(story_id="81").count() == checks + 1


def test_an_editor_changing_a_cited_manifest_is_audited(admin_client, demo):
    manifest = Manifest.objects.get(id=CITED_MANIFEST)
    checks = CheckResult.objects.filter(story_id="81").count()
    url = reverse("admin:manifests_manifest_change", args=[CITED_MANIFEST])
    data = form_data(admin_client.get(url))
    # The inline claims' null booleans (form_data leaves out False): keep what is stored.
    for i, claim in enumerate(manifest.claims.all()):
        data[f"claims-{i}-self_reported"] = {True: "true", False: "false", None: "unknown"}[claim.self_reported]
    data["title"] = "A retitled source"
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.content
    audits = [a for a in source_audits() if "claim_id" not in a.details]
    assert [a.details["changes"] for a in audits] == [{"title": {"old": manifest.title, "new": "A retitled source"}}]
    assert not [a for a in source_audits() if "claim_id" in a.details]  # the claims did not change
    assert CheckResult.objects.filter(story_id="81").count() == checks + 1


def test_an_uncited_claim_changes_without_audit(admin_client, demo):
    claim = ClaimFactory(manifest=ManifestFactory(id="1999000000000000009"), text="Uncited.")
    url = reverse("admin:manifests_claim_change", args=[claim.id])
    assert admin_client.post(url, claim_form(claim, text="Uncited, reworded.")).status_code == 302
    assert not AuditEntry.objects.filter(action=AuditEntry.Action.SOURCE_CHANGED).exists()


def test_the_desk_flags_a_cited_source_changed_since_publication(admin_client, demo):
    story_url = reverse("admin:stories_story_change", args=["81"])
    assert "desk-source-changed" not in admin_client.get(story_url).content.decode()
    claim = Claim.objects.get(id=CITED_CLAIM)
    url = reverse("admin:manifests_claim_change", args=[CITED_CLAIM])
    admin_client.post(url, claim_form(claim, text="An editor's new wording."))
    page = admin_client.get(story_url).content.decode()
    assert "A cited source changed since publication" in page
    assert f"claim {CITED_CLAIM}" in page
    assert "Re-checked:" in page
