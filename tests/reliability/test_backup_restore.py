"""Backup and restore (docs/deploy.md): ``export_manifests`` + ``export_stories`` of the
whole database, an empty database, ``import_manifests`` then ``import_stories``, and a
second export is byte-identical to the first."""

import copy
import io
import json

import pytest
from django.core.management import call_command

from manifests import formats
from manifests.models import Claim, Manifest
from stories import actions, desk
from stories.actions import record_correction
from stories.models import Correction, Story
from tests.seed import SEED_JSON

SEED = json.loads(SEED_JSON.read_text(encoding="utf-8"))
STUB_ONLY = "9000000000000000001"


def quiet(*args, **kwargs):
    call_command(*args, stdout=io.StringIO(), stderr=io.StringIO(), **kwargs)


def story(**changes) -> dict:
    doc = copy.deepcopy(SEED)
    doc.update(changes)
    return doc


def build_newsroom():
    """The demo, plus: a published story with corrections, a draft, a story citing a manifest
    known only from its own ``manifests`` list (a stub-only manifest) and a stub claim of a
    full manifest, and a manifest no story cites."""
    quiet("loaddemo")
    corrected = actions.import_story(
        desk.validate(story(id="82", slug="corrected", headline="Corrected — “quotes” 👩🏽‍🚀")), restore=True
    ).story
    record_correction(story=corrected, text="A figure was wrong.", kind="correction")
    record_correction(story=Story.objects.get(pk="82"), text="Added context.", kind="clarification")
    actions.import_story(desk.validate(story(id="83", slug="a-draft", published_at=None, corrections=[])), restore=True)
    stub_doc = story(
        id="84", slug="stubs", edition="2026-10-17T09", published_at="2026-10-17T09:15:00Z", corrections=[]
    )
    stub_doc["key_facts"][0]["cites"] = [
        {"manifest_id": STUB_ONLY, "claim_ids": ["9000000000000000002", "9000000000000000003"]}
    ]
    stub_doc["sections"][0]["paragraphs"][0]["cites"].append(
        {"manifest_id": "1792067182956183080", "claim_ids": ["9000000000000000004"]}
    )
    stub_doc["manifests"] = stub_doc["manifests"] + [
        {
            "manifest_id": STUB_ONLY,
            "title": "Known by its story only",
            "source_name": "elsewhere",
            "source_url": "https://example.org/only",
            "published_date": "2026-10-10",
        },
    ]
    actions.import_story(desk.validate(stub_doc), restore=True)
    formats.import_manifests_document(
        {
            "schema": formats.SCHEMA,
            "manifests": [
                {
                    "manifest_id": "123",
                    "title": "Uncited",
                    "source_name": "lonely",
                    "source_url": "https://example.org/u",
                    "published_date": "2026-09-01",
                    "claims": [
                        {"claim_id": "b", "text": "second", "self_reported": True},
                        {"claim_id": "a", "text": "first", "self_reported": False},
                    ],
                },
            ],
        }
    )


def snapshot() -> dict:
    return {
        "stories": sorted(Story.objects.values_list("id", "status")),
        "corrections": Correction.objects.count(),
        "manifests": Manifest.objects.count(),
        "claims": Claim.objects.count(),
        "stubs": sorted(Claim.objects.stubs().values_list("id", "manifest_id")),
    }


def backup(tmp_path, name) -> tuple[bytes, bytes]:
    stories, manifests = tmp_path / f"{name}.stories.jsonl", tmp_path / f"{name}.manifests.json"
    quiet("export_stories", "--out", str(stories))
    quiet("export_manifests", "--out", str(manifests))
    return stories.read_bytes(), manifests.read_bytes()


@pytest.mark.slow
def test_backup_restore_backup_is_byte_identical(transactional_db, tmp_path):
    build_newsroom()
    before = snapshot()
    assert before["stubs"] and ("9000000000000000004", "1792067182956183080") in before["stubs"]
    stories_1, manifests_1 = backup(tmp_path, "first")

    quiet("flush", interactive=False)
    assert Story.objects.count() == Manifest.objects.count() == Claim.objects.count() == 0

    quiet("import_manifests", str(tmp_path / "first.manifests.json"))
    quiet("import_stories", "--restore", str(tmp_path / "first.stories.jsonl"))
    assert snapshot() == before  # every story, correction, manifest, claim and stub is back
    stories_2, manifests_2 = backup(tmp_path, "second")
    assert stories_2 == stories_1
    assert manifests_2 == manifests_1


def test_export_manifests_lists_stub_only_manifests_without_their_stubs(db):
    build_newsroom()
    out = io.StringIO()
    call_command("export_manifests", stdout=out)
    document = json.loads(out.getvalue())
    assert formats.validate_manifests_document(document)  # a valid manifests/1 document
    by_id = {m["manifest_id"]: m for m in document["manifests"]}
    assert list(by_id) == sorted(by_id)
    assert by_id[STUB_ONLY]["claims"] == []
    assert by_id[STUB_ONLY]["title"] == "Known by its story only"
    assert [c["claim_id"] for c in by_id["123"]["claims"]] == ["b", "a"]  # the manifest's order, not ids'
    assert "9000000000000000004" not in {c["claim_id"] for c in by_id["1792067182956183080"]["claims"]}


def test_export_manifests_to_an_unwritable_place_is_a_clear_error(db, tmp_path):
    from django.core.management import CommandError

    with pytest.raises(CommandError, match="cannot write"):
        quiet("export_manifests", "--out", str(tmp_path / "no-such-dir" / "m.json"))
    assert not list(tmp_path.iterdir())
