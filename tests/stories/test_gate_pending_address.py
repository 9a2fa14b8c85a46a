"""Pending changes go live at the live story's address (its slug, edition and newsroom), so
they are checked there: a document that would move a pending draft elsewhere, where the
checks read another edition's sources and another newsroom's stories, is refused naming the
field, writing nothing; and changes found at another address are never published."""

import pytest

from stories import actions, desk
from stories.actions import ActionError, drafts
from stories.models import Story

pytestmark = pytest.mark.django_db


def pending_doc(draft: Story, **changes) -> dict:
    doc = desk.export_story(Story.objects.with_everything().get(pk=draft.pk))
    doc = {k: v for k, v in doc.items() if k not in desk.DERIVED_KEYS}
    doc["sections"][0]["paragraphs"][0]["markdown"] += " Reworded."
    return desk.validate({**doc, "published_at": None, **changes})


@pytest.mark.parametrize(
    ("field", "value"),
    [("edition", "2026-10-19T00"), ("newsroom", "elsewhere"), ("slug", "another-address")],
)
def test_an_import_cannot_move_pending_changes(demo, editor, field, value):
    draft = drafts.start_changes(story=demo, user=editor)
    before = (draft.version, draft.slug, draft.edition_id, draft.newsroom_id)
    with pytest.raises(desk.DeskError) as refused:
        actions.import_story(pending_doc(draft, **{field: value}))
    assert refused.value.path == field
    assert (
        f"pending changes of story {demo.pk}" in refused.value.message
        and "nothing was written" in refused.value.message
    )
    draft.refresh_from_db()
    assert (draft.version, draft.slug, draft.edition_id, draft.newsroom_id) == before


def test_pending_changes_at_their_own_address_still_import(demo, editor):
    draft = drafts.start_changes(story=demo, user=editor)
    assert actions.import_story(pending_doc(draft)).outcome == "updated"


def test_changes_at_another_address_are_not_published(demo, editor):
    draft = drafts.start_changes(story=demo, user=editor)
    Story.objects.filter(pk=draft.pk).update(edition_id="2026-10-16T00", slug="moved-elsewhere")
    live_version = Story.objects.get(pk=demo.pk).version
    with pytest.raises(ActionError, match="another slug than the live story's"):
        drafts.publish_changes(draft=Story.objects.get(pk=draft.pk), user=editor)
    assert Story.objects.get(pk=demo.pk).version == live_version
    assert Story.objects.filter(pk=draft.pk).exists()


def test_an_id_less_document_at_the_address_means_the_live_story(demo, editor):
    """Never its pending changes, which share the address: unchanged is unchanged, and a
    change is refused as one to the live story."""
    drafts.start_changes(story=demo, user=editor)
    doc = desk.export_story(Story.objects.with_everything().get(pk=demo.pk))
    doc = {k: v for k, v in doc.items() if k not in desk.DERIVED_KEYS}
    same = desk.validate({**doc, "id": None})
    result = actions.import_story(same)
    assert (result.outcome, result.story.pk) == ("unchanged", demo.pk)
    changed = desk.validate({**doc, "id": None, "headline": "A new headline"})
    with pytest.raises(desk.DeskError):
        actions.import_story(changed)
    assert Story.objects.get(pk=demo.pk).headline == doc["headline"]
