"""Imports go through the gate: a document marked as published is published by the
publish action (checks included, its ``published_at`` kept as the first publication); one
the checks refuse is imported as a draft and named. ``--restore`` keeps exported states."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from stories.models import AuditEntry, CheckResult, Story
from syndication.models import Partner, WebhookDelivery, WebhookEndpoint
from tests.seed import SEED_JSON, SEED_MANIFESTS

pytestmark = pytest.mark.django_db


def quiet(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def uncited(story_doc, **changes) -> dict:
    """A published story whose second section's first paragraph cites nothing."""
    doc = story_doc(**changes)
    doc["sections"][1]["paragraphs"][0]["cites"] = []
    return doc


def write_jsonl(tmp_path, docs) -> str:
    path = tmp_path / "stories.jsonl"
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
    return str(path)


def test_a_passing_published_document_is_published_by_the_publish_action(seed_doc):
    partner = Partner.objects.create(name="Wire Co", slug="wire-co", contact="ops@wire.example")
    WebhookEndpoint.objects.create(partner=partner, url="https://wire.example/hook", events=["story.published"])
    quiet("import_manifests", str(SEED_MANIFESTS))
    quiet("import_stories", str(SEED_JSON))
    story = Story.objects.get(pk="81")
    assert story.status == Story.Status.PUBLISHED
    assert story.published_at.isoformat().replace("+00:00", "Z") == seed_doc["published_at"]  # not reset to now
    assert story.revised_at is None
    assert CheckResult.objects.filter(story=story, passed=True).exists()
    assert list(AuditEntry.objects.filter(story=story).order_by("id").values_list("action", flat=True)) == [
        "import",
        "publish",
    ]
    assert WebhookDelivery.objects.filter(story_id="81", event="story.published").count() == 1


def test_a_failing_published_document_is_imported_as_a_draft_and_named(tmp_path, demo, story_doc):
    good = story_doc(id="91", slug="a-draft", published_at=None)
    bad = uncited(story_doc, id="92", slug="uncited")
    path = write_jsonl(tmp_path, [good, bad])
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError, match=r"1 story not published \(imported as drafts\): the checks failed"):
        call_command("import_stories", path, stdout=out, stderr=err)
    assert "stories: 2 created" in out.getvalue()
    assert f"{path}:2: story 92 imported as a draft, not published: the checks failed" in err.getvalue()
    assert "paragraphs_cited" in err.getvalue()
    refused = Story.objects.get(pk="92")
    assert (refused.status, refused.published_at) == (Story.Status.DRAFT, None)
    assert CheckResult.objects.filter(story=refused, passed=False).exists()
    assert not AuditEntry.objects.filter(story=refused, action="publish").exists()
    assert Story.objects.get(pk="91").status == Story.Status.DRAFT  # the other document imported


def test_a_failing_single_json_file_names_line_1(tmp_path, demo, story_doc):
    path = tmp_path / "one.json"
    path.write_text(json.dumps(uncited(story_doc, id="93", slug="uncited-one")), encoding="utf-8")
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command("import_stories", str(path), stdout=io.StringIO(), stderr=err)
    assert f"{path}:1: story 93 imported as a draft" in err.getvalue()
    assert Story.objects.get(pk="93").status == Story.Status.DRAFT


def test_restore_keeps_published_states_without_checks(tmp_path, story_doc):
    bad = uncited(story_doc, id="94", slug="restored")
    path = write_jsonl(tmp_path, [bad, story_doc(id="95", slug="draft-too", published_at=None)])
    quiet("import_stories", "--restore", path)
    story = Story.objects.get(pk="94")
    assert story.status == Story.Status.PUBLISHED
    assert story.published_at.isoformat().replace("+00:00", "Z") == bad["published_at"]
    assert not CheckResult.objects.exists()
    assert set(AuditEntry.objects.values_list("action", flat=True)) == {"restore"}
    assert Story.objects.get(pk="95").status == Story.Status.DRAFT


def test_restore_round_trip_is_byte_identical(tmp_path, demo, story_doc):
    quiet("import_stories", "--restore", write_jsonl(tmp_path, [uncited(story_doc, id="96", slug="kept")]))
    first = tmp_path / "first.jsonl"
    quiet("export_stories", "--out", str(first))
    Story.objects.all().delete()  # an empty database (the manifests stay, as import_manifests restores them)
    quiet("import_stories", "--restore", str(first))
    second = tmp_path / "second.jsonl"
    quiet("export_stories", "--out", str(second))
    assert second.read_bytes() == first.read_bytes()
    assert Story.objects.get(pk="96").status == Story.Status.PUBLISHED


def test_loaddemo_publishes_the_demo_through_the_publish_action(db):
    quiet("loaddemo")
    story = Story.objects.get(pk="81")
    assert story.status == Story.Status.PUBLISHED
    assert list(AuditEntry.objects.filter(story=story).order_by("id").values_list("action", flat=True)) == [
        "loaddemo",
        "publish",
    ]
    assert CheckResult.objects.filter(story=story, passed=True).exists()


def test_an_import_that_would_change_a_live_story_is_refused_and_writes_nothing(tmp_path, demo, story_doc):
    """Readers would see the new text at once, unchecked: a live story changes only through
    its pending changes in the desk."""
    before = (demo.version, demo.headline, demo.revisions.count())
    changed = story_doc(headline="Bananas are the leading cause of orbital decay")
    path = write_jsonl(tmp_path, [changed])
    err = io.StringIO()
    with pytest.raises(CommandError, match="1 file"):
        call_command("import_stories", path, stdout=io.StringIO(), stderr=err)
    assert "story 81 (/stories/2026-10-16/" in err.getvalue()
    assert "is published: its content changes only through pending changes" in err.getvalue()
    story = Story.objects.get(pk=demo.pk)
    assert (story.version, story.headline, story.revisions.count()) == before
    assert story.status == Story.Status.PUBLISHED


def test_importing_a_live_story_unchanged_changes_nothing(demo):
    version = demo.version
    quiet("import_stories", str(SEED_JSON))
    assert Story.objects.get(pk=demo.pk).version == version
