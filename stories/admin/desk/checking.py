"""The checks of a saved story, in words, for the publish pages."""

from __future__ import annotations

from stories.checks import run_checks
from stories.desk import export_story, validate
from stories.desk.findings import rubric_in_words
from stories.models import CheckResult, Story


def checks_in_words(story: Story) -> dict:
    """The rubric of the stored story, in words: the one recorded for its version, else the
    checks run now (nothing recorded: publishing records them)."""
    result = CheckResult.objects.filter(story=story, version=story.version).order_by("-created_at", "-id").first()
    if result is not None:
        rubric = result.rubric
    else:
        loaded = Story.objects.loaded(story.pk)
        rubric = run_checks(validate(export_story(loaded)), exclude_story_id=loaded.pk)
    return {**rubric_in_words(rubric), "recorded": result is not None}
