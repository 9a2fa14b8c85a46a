"""Fixtures of the stories' tests: the demo story back on the desk."""

import pytest

from stories import actions


@pytest.fixture
def draft(demo):
    """The seed story, taken down to a draft (it passes every check)."""
    return actions.unpublish_story(story=demo, reason="back to the desk for the tests")


@pytest.fixture
def uncited_draft(draft):
    """The draft with its second section's first paragraph stripped of its cites."""
    paragraph = draft.sections.all()[1].paragraphs.all()[0]
    paragraph.cites.all().delete()
    return draft
