"""import_stories adds no claim to a stored manifest: a stub claim (known by id, no text) is
created only under a manifest the document itself adds (new, from its own ``manifests``
list). A cite of a claim a stored manifest lacks refuses the file at the cite's path (with
its line in a .jsonl file), writing nothing; one document and a batch of new ones answer
alike. ``--restore`` recreates the stubs a backup's manifests file left out."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from manifests.models import Claim
from stories.models import Story
from tests.stories.documents import db_state, variant, write_json, write_jsonl

pytestmark = pytest.mark.django_db

CITED = "1792066118701135431"  # one of the seed's manifests
NEW = "1799999999999999000"
UNKNOWN = "1799999999999999999"


def import_stories(*args) -> str:
    err = io.StringIO()
    try:
        call_command("import_stories", *map(str, args), stdout=io.StringIO(), stderr=err)
    except CommandError:
        return err.getvalue()
    return ""


def citing_unknown(story_doc, n: int, manifest: str = CITED) -> dict:
    doc = variant(story_doc, n, published_at=None, corrections=[])
    doc["key_facts"][0]["cites"] = [{"manifest_id": manifest, "claim_ids": [UNKNOWN]}]
    return doc


def with_new_manifest(doc: dict) -> dict:
    doc["manifests"].append({**doc["manifests"][0], "manifest_id": NEW, "title": "A new source"})
    return doc


def test_a_json_file_adds_no_claim_to_a_stored_manifest(manifests_loaded, story_doc, tmp_path):
    before = db_state()
    stderr = import_stories(write_json(tmp_path, citing_unknown(story_doc, 1)))
    assert "key_facts[0].cites[0].claim_ids[0]: " in stderr and f"claim {UNKNOWN} is not in manifest {CITED}" in stderr
    assert "nothing imported from this file" in stderr
    assert db_state() == before
    assert not Claim.objects.filter(id=UNKNOWN).exists()


def test_a_stored_story_gains_no_stub_under_a_stored_manifest_either(draft, story_doc, tmp_path):
    doc = story_doc(published_at=None)
    doc["key_facts"][0]["cites"][0]["claim_ids"].append(UNKNOWN)
    stderr = import_stories(write_json(tmp_path, doc))
    assert "key_facts[0].cites[0].claim_ids[" in stderr
    assert not Claim.objects.filter(id=UNKNOWN).exists()


def test_a_batch_of_new_stories_answers_as_one_by_one(manifests_loaded, story_doc, tmp_path):
    docs = [variant(story_doc, 1, published_at=None, corrections=[]), citing_unknown(story_doc, 2)]
    before = db_state()
    stderr = import_stories(write_jsonl(tmp_path, docs))
    assert "line 2: key_facts[0].cites[0].claim_ids[0]: " in stderr
    assert db_state() == before
    assert not Story.objects.exists() and not Claim.objects.filter(id=UNKNOWN).exists()


def test_a_manifest_an_earlier_line_added_is_stored_for_the_later_lines(db, story_doc, tmp_path):
    """As one by one: the second document finds the first one's new manifest stored."""
    first = with_new_manifest(citing_unknown(story_doc, 1, manifest=NEW))
    second = with_new_manifest(variant(story_doc, 2, published_at=None, corrections=[]))
    second["key_facts"][0]["cites"] = [{"manifest_id": NEW, "claim_ids": ["1799999999999999998"]}]
    stderr = import_stories(write_jsonl(tmp_path, [first, second]))
    assert "line 2: key_facts[0].cites[0].claim_ids[0]: " in stderr
    assert not Claim.objects.exists()


@pytest.mark.parametrize("suffix", ["json", "jsonl"])
def test_stubs_under_a_manifest_the_document_adds(manifests_loaded, story_doc, tmp_path, suffix):
    doc = with_new_manifest(citing_unknown(story_doc, 1, manifest=NEW))
    path = write_json(tmp_path, doc) if suffix == "json" else write_jsonl(tmp_path, [doc])
    assert import_stories(path) == ""
    stub = Claim.objects.get(id=UNKNOWN)
    assert (stub.manifest_id, stub.has_text) == (NEW, False)


@pytest.mark.parametrize("suffix", ["json", "jsonl"])
def test_restore_recreates_stubs_under_a_stored_manifest(manifests_loaded, story_doc, tmp_path, suffix):
    doc = citing_unknown(story_doc, 1)
    path = write_json(tmp_path, doc) if suffix == "json" else write_jsonl(tmp_path, [doc])
    assert import_stories("--restore", path) == ""
    assert Claim.objects.get(id=UNKNOWN).manifest_id == CITED
