"""Publishing runs the checks: a failing story is refused, every run is recorded."""

import pytest

from stories import actions, desk
from stories.actions import ChecksFailed, publish_story
from stories.models import CheckResult, Story

pytestmark = pytest.mark.django_db


def draft(story_doc, **overrides):
    doc = story_doc(
        id="1792200000000000010", slug="agent-training-draft", edition="2026-10-16T02", published_at=None, **overrides
    )
    return actions.import_story(desk.validate(doc), restore=True).story


def test_publishing_a_copy_of_a_published_story_is_refused_as_a_repeat(demo, story_doc):
    story = draft(story_doc)
    with pytest.raises(ChecksFailed) as refused:
        publish_story(story=story)
    result = refused.value.result
    assert [c["name"] for c in result.rubric["criteria"] if not c["passed"]] == ["not_a_repeat"]
    assert result.rubric["criteria"][5]["findings"][0]["story_id"] == "81"
    assert Story.objects.get(pk=story.pk).status == Story.Status.DRAFT


def test_publishing_a_story_that_passes_records_its_rubric(manifests_loaded, story_doc):
    story = draft(story_doc)
    published = publish_story(story=story)
    assert published.status == Story.Status.PUBLISHED
    result = CheckResult.objects.get(story=story)
    assert result.passed and result.version == story.version
    assert len(result.rubric["criteria"]) == 7
