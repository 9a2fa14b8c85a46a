"""Corrections come into a stored story only from an editor (``record_correction``, audited
as ``correct``). An import that would add corrections to a stored story is refused, naming
the story and ``corrections``, and nothing from its file is written (the other files of
the command still import). A new story's corrections (the public history of an archive
migrated from another system) are stored with its version 1, in its revision and its
``import`` audit row. ``--restore`` brings a backup's corrections back as exported."""

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from stories.models import AuditEntry, Correction, Revision, Story
from tests.stories.documents import CORRECTIONS, db_state, variant, write_json, write_jsonl

pytestmark = pytest.mark.django_db

FORGED = [{"corrected_at": "2026-10-17T09:00:00Z", "kind": "correction", "text": "Forged."}]


def import_stories(*paths, restore: bool = False) -> tuple[str, str]:
    """Run import_stories (through the gate unless ``restore``); (stdout, stderr). A
    rejected file raises CommandError, carrying the outputs."""
    out, err = io.StringIO(), io.StringIO()
    args = ["--restore", *paths] if restore else list(paths)
    try:
        call_command("import_stories", *map(str, args), stdout=out, stderr=err)
    except CommandError as exc:
        exc.stdout, exc.stderr = out.getvalue(), err.getvalue()
        raise
    return out.getvalue(), err.getvalue()


def refused(path: str, story_id: str, *, before: dict) -> str:
    with pytest.raises(CommandError) as info:
        import_stories(path)
    stderr = info.value.stderr
    assert f"{path}: " in stderr and "corrections: " in stderr and f"story {story_id} " in stderr, stderr
    assert "nothing imported from this file" in stderr
    assert db_state() == before
    return stderr


# --------------------------------------------------------------------------- a stored story


def test_a_taken_down_story_gains_no_correction_from_a_json_file(draft, seed_doc, tmp_path):
    seed_doc["corrections"] = FORGED
    before = db_state()
    stderr = refused(write_json(tmp_path, seed_doc), draft.pk, before=before)
    assert "recorded by an editor" in stderr
    draft.refresh_from_db()
    assert draft.status == Story.Status.DRAFT  # the file did not republish it either
    assert not Correction.objects.filter(story=draft).exists()


def test_the_reproduction_no_longer_writes_an_unaudited_public_correction(draft, seed_doc, tmp_path):
    seed_doc["corrections"] = FORGED
    (tmp_path / "s.json").write_text(json.dumps(seed_doc))
    with pytest.raises(CommandError):
        call_command("import_stories", str(tmp_path / "s.json"), stdout=io.StringIO(), stderr=io.StringIO())
    assert not Correction.objects.filter(story=draft).exists()
    assert not AuditEntry.objects.filter(story=draft, action="correct").exists()


def test_an_id_less_document_of_a_stored_story_is_refused_too(draft, seed_doc, tmp_path):
    seed_doc["id"] = None  # the story is found by its edition date and slug
    seed_doc["corrections"] = FORGED
    refused(write_json(tmp_path, seed_doc), draft.pk, before=db_state())


def test_a_jsonl_line_adding_corrections_is_refused_with_its_line(draft, seed_doc, story_doc, tmp_path):
    seed_doc["corrections"] = FORGED
    path = write_jsonl(tmp_path, [variant(story_doc, 1, corrections=[]), seed_doc])
    stderr = refused(path, draft.pk, before=db_state())
    assert "line 2: corrections: " in stderr
    assert not Story.objects.filter(pk=variant(story_doc, 1)["id"]).exists()  # the whole file is refused


def test_a_later_line_may_not_add_corrections_to_a_story_an_earlier_line_created(db, story_doc, tmp_path):
    first = variant(story_doc, 1, corrections=[], published_at=None)
    again = dict(first, corrections=FORGED)
    path = write_jsonl(tmp_path, [first, again])
    stderr = refused(path, first["id"], before=db_state())
    assert "line 2: corrections: " in stderr


def test_the_other_files_of_the_command_still_import(draft, seed_doc, story_doc, tmp_path):
    seed_doc["corrections"] = FORGED
    bad = write_json(tmp_path, seed_doc, "bad.json")
    good = write_json(tmp_path, variant(story_doc, 1, corrections=[], published_at=None), "good.json")
    with pytest.raises(CommandError, match=r"1 file\(s\) rejected: .*bad\.json") as info:
        import_stories(bad, good)
    assert "stories: 1 created" in info.value.stdout
    assert Story.objects.filter(pk=variant(story_doc, 1)["id"]).exists()
    assert not Correction.objects.exists()


def test_a_stored_storys_recorded_corrections_may_be_repeated_unchanged(draft, seed_doc, editor, tmp_path):
    """Re-importing a story's export, its corrections included, adds nothing and is no error."""
    from stories import actions, desk

    story = actions.publish_story(story=draft, user=editor)
    actions.record_correction(story=story, user=editor, kind="correction", text="A figure was wrong.")
    story = actions.unpublish_story(story=Story.objects.get(pk=story.pk), user=editor, reason="back to the desk")
    doc = desk.export_story(Story.objects.with_everything().get(pk=story.pk))
    doc["headline"] = "A new headline"
    import_stories(write_json(tmp_path, doc))
    assert [c.text for c in Correction.objects.filter(story=story)] == ["A figure was wrong."]
    assert Story.objects.get(pk=story.pk).headline == "A new headline"


# --------------------------------------------------------------------------- a new story; a restore


def test_a_new_storys_corrections_are_stored_with_its_version_1(db, story_doc, tmp_path):
    doc = variant(story_doc, 1, corrections=CORRECTIONS, published_at=None)
    out, _ = import_stories(write_json(tmp_path, doc))
    assert "1 created" in out
    story = Story.objects.get(pk=doc["id"])
    assert [c.text for c in story.corrections.all()] == [c["text"] for c in CORRECTIONS]
    assert [(e.action, e.version) for e in story.audit_entries.all()] == [("import", 1)]
    revision = Revision.objects.get(story=story, version=1)
    assert [c["text"] for c in revision.data["corrections"]] == [c["text"] for c in CORRECTIONS]


def test_restore_still_brings_back_a_backups_corrections(draft, seed_doc, tmp_path):
    seed_doc["corrections"] = FORGED
    import_stories(write_json(tmp_path, seed_doc), restore=True)
    assert [c.text for c in Correction.objects.filter(story=draft)] == ["Forged."]
    assert AuditEntry.objects.filter(story=draft, action="restore").exists()
