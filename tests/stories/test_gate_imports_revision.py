"""The bulk import checks each new story from the revision it has just written (the story's
export at version 1), not from a reload of the story's graph: the rubric is the one the
graph gives, a missing revision falls back to the graph, and no other door trusts a stored
revision (the desk's publish checks the graph)."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from stories import desk
from stories.actions import ChecksFailed, publish_story
from stories.checks import check_and_record, run_checks
from stories.models import CheckResult, Revision, Story
from tests.seed import SEED_JSON, SEED_MANIFESTS

pytestmark = pytest.mark.django_db


def quiet(*args):
    call_command(*args, stdout=io.StringIO(), stderr=io.StringIO())


def uncited(doc: dict) -> dict:
    doc["sections"][1]["paragraphs"][0]["cites"] = []
    return doc


def import_refused(tmp_path, docs) -> None:
    path = tmp_path / "stories.jsonl"
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
    with pytest.raises(CommandError, match="the checks failed"):
        call_command("import_stories", str(path), stdout=io.StringIO(), stderr=io.StringIO())


def test_a_passing_story_is_checked_as_its_document_renders(seed_doc):
    quiet("import_manifests", str(SEED_MANIFESTS))
    quiet("import_stories", str(SEED_JSON))
    story = Story.objects.get(pk="81")
    assert story.status == Story.Status.PUBLISHED
    recorded = CheckResult.objects.get(story=story, version=1)
    expected = run_checks(desk.validate(desk.render_document(desk.validate(seed_doc))), exclude_story_id="81")
    assert recorded.passed and recorded.rubric == expected


def test_refused_stories_get_the_rubric_their_graph_gives(tmp_path, demo, story_doc):
    docs = [
        uncited(story_doc(id="92", slug="uncited")),
        story_doc(id="93", slug="a-repeat"),  # the demo story's text again
    ]
    docs[1]["corrections"] = [
        {"corrected_at": "2026-10-17T09:00:00Z", "kind": "correction", "text": "A figure was wrong."}
    ]
    import_refused(tmp_path, docs)
    for pk in ("92", "93"):
        story = Story.objects.get(pk=pk)
        assert (story.status, story.version) == (Story.Status.DRAFT, 1)
        recorded = CheckResult.objects.get(story=story, version=1)
        from_graph = check_and_record(story)  # the graph loaded and exported
        assert not recorded.passed
        assert recorded.rubric == from_graph.rubric and recorded.score == from_graph.score


def test_without_a_revision_of_its_version_the_graph_is_checked(tmp_path, demo, story_doc):
    import_refused(tmp_path, [uncited(story_doc(id="92", slug="uncited"))])
    story = Story.objects.get(pk="92")
    Revision.objects.filter(story=story).delete()
    result = check_and_record(story, revision_current=True)
    assert "paragraphs_cited" in [c["name"] for c in result.rubric["criteria"] if not c["passed"]]


def test_the_desks_publish_checks_the_graph_not_a_stored_revision(tmp_path, demo, story_doc, django_user_model):
    import_refused(tmp_path, [uncited(story_doc(id="92", slug="uncited"))])
    story = Story.objects.get(pk="92")
    # A revision claiming a clean story (planted): the publish action must not believe it.
    Revision.objects.filter(story=story, version=1).update(
        data=Revision.objects.filter(story_id="81").first().data | {"id": "92"}
    )
    editor = django_user_model.objects.create_superuser("ed", "ed@example.com", "pw")
    with pytest.raises(ChecksFailed):
        publish_story(story=story, user=editor)
    assert Story.objects.get(pk="92").status == Story.Status.DRAFT
