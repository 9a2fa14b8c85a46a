"""The public record of published changes: checks.json and the story page give the rubric
of the very content the changes made live (the pending draft's, as checked when they were
published), with the criteria that failed when an editor overrode them, never a run of the
checks on the live story's previous content."""

import json
from html import unescape

import pytest
from django.core.cache import cache

from stories import actions
from stories.actions import drafts
from stories.models import CheckResult, Story
from tests.stories.helpers import client_for

pytestmark = pytest.mark.django_db

PAGE = "/stories/2026-10-16/agent-training-stack/"
REASON = "Confirmed."
FAILED = ["paragraphs_cited"]  # the first paragraph has no cite


def uncite_first_paragraph(story, user):
    story.sections.order_by("position")[0].paragraphs.order_by("position")[0].cites.all().delete()
    return actions.save_story(story=story, user=user, write=lambda: None)


def failed(rubric: dict) -> list[str]:
    return [c["name"] for c in rubric["criteria"] if not c["passed"]]


def checks_json(client) -> dict:
    cache.clear()
    response = client.get(PAGE + "checks.json")
    assert response.status_code == 200
    return json.loads(response.content)


@pytest.mark.parametrize("writer_ran_checks", [False, True])
def test_the_record_of_overridden_changes_names_what_failed(demo, editor, writer, client, writer_ran_checks):
    draft = drafts.start_changes(story=demo, user=editor)
    draft = uncite_first_paragraph(draft, editor)
    if writer_ran_checks:
        # "Run checks" on the live story: its previous content passes.
        client_for(writer).post(f"/admin/stories/story/{demo.pk}/run-checks/")
        assert CheckResult.objects.filter(story=demo, version=demo.version).latest().passed

    live = drafts.publish_changes(draft=draft, user=editor, override_reason=REASON)

    record = checks_json(client)
    publication = record["publication"]
    assert publication["action"] == "publish_changes" and publication["version"] == live.version
    assert publication["overridden"] is True and publication["checks_passed"] is False
    assert publication["reason"] == REASON
    assert publication["failed_criteria"] == FAILED
    # The rubric shown is the one of the published version: the pending draft's, as checked.
    published = CheckResult.objects.get(story=live, version=live.version)
    assert record["rubric"] == published.rubric
    assert record["rubric"]["passed"] is False and failed(record["rubric"]) == FAILED
    # The story page says so too.
    page = unescape(client.get(PAGE).content.decode())
    assert REASON in page


@pytest.mark.parametrize("writer_ran_checks", [False, True])
def test_the_record_of_changes_that_passed_is_their_own_rubric(demo, editor, writer, client, writer_ran_checks):
    draft = drafts.start_changes(story=demo, user=editor)
    para = draft.sections.order_by("position")[0].paragraphs.order_by("position")[0]
    para.markdown += " (Reworded.)"
    draft = actions.save_story(story=draft, user=editor, write=para.save)
    if writer_ran_checks:
        client_for(writer).post(f"/admin/stories/story/{demo.pk}/run-checks/")

    live = drafts.publish_changes(draft=draft, user=editor, correction=None)

    record = checks_json(client)
    assert record["publication"]["overridden"] is False and record["publication"]["failed_criteria"] == []
    assert record["rubric"] == CheckResult.objects.get(story=live, version=live.version).rubric


def test_a_run_of_the_checks_after_the_changes_does_not_replace_their_record(demo, editor, client):
    draft = uncite_first_paragraph(drafts.start_changes(story=demo, user=editor), editor)
    live = drafts.publish_changes(draft=draft, user=editor, override_reason=REASON)
    published = CheckResult.objects.get(story=live, version=live.version).rubric
    client_for(editor).post(f"/admin/stories/story/{live.pk}/run-checks/")  # the same content, checked again
    assert CheckResult.objects.filter(story=live, version=live.version).count() == 2
    record = checks_json(client)
    assert record["rubric"] == published and record["publication"]["failed_criteria"] == FAILED
    assert Story.objects.get(pk=live.pk).version == live.version
