"""A draft published while an edit, a restore of a version or an import of it is on its
way: whether the story is live is decided on its locked row, so the change goes to its
pending changes (or is refused), and readers never get text the checks did not pass."""

import copy

import pytest
from django.core.exceptions import PermissionDenied

from stories import actions, desk
from stories.actions import imports, screen
from stories.actions.drafts import pending_draft_of
from stories.desk.working import editable, stored_document
from stories.models import AuditEntry, Story

pytestmark = pytest.mark.django_db

UNCHECKED = "A headline no check has read"


def fields_of(story: Story) -> dict:
    return editable(stored_document(Story.objects.with_everything().get(pk=story.pk)))


def test_a_screen_save_of_a_draft_published_meanwhile_goes_to_its_pending_changes(draft, editor):
    opened = Story.objects.get(pk=draft.pk)  # the editing screen read it as a draft
    fields = fields_of(opened)
    live = actions.publish_story(story=draft, user=editor)  # another editor's publish commits
    fields["headline"] = UNCHECKED
    saved = screen.save_working(story=opened, payload={"story": fields}, base_version=opened.version, user=editor)
    live = Story.objects.get(pk=live.pk)
    assert live.status == Story.Status.PUBLISHED
    assert live.headline == draft.headline  # readers still get the checked text
    pending = pending_draft_of(live)
    assert pending is not None and saved.story.pk == pending.pk
    assert pending.headline == UNCHECKED  # the editor's change waits for the checks
    assert not AuditEntry.objects.filter(story=live, action="edit").exists()


def test_a_screen_restore_of_a_version_of_a_draft_published_meanwhile_goes_to_its_pending_changes(draft, editor):
    opened = Story.objects.get(pk=draft.pk)
    fields = fields_of(opened)
    fields["headline"] = UNCHECKED
    edited = screen.save_working(story=opened, payload={"story": fields}, base_version=opened.version, user=editor)
    first_version = opened.version
    stale = Story.objects.get(pk=draft.pk)  # the restore page read it as a draft
    actions.publish_story(story=edited.story, user=editor, override_reason="Read by the desk")
    live_headline = Story.objects.get(pk=draft.pk).headline
    saved = screen.restore(story=stale, version=first_version, user=editor)
    live = Story.objects.get(pk=draft.pk)
    assert live.status == Story.Status.PUBLISHED and live.headline == live_headline
    assert saved.story.pk == pending_draft_of(live).pk


def test_an_import_of_a_draft_published_meanwhile_is_refused_and_writes_nothing(draft, editor, seed_doc, monkeypatch):
    raw = copy.deepcopy(seed_doc)
    raw["headline"] = UNCHECKED
    doc = desk.validate(raw)
    write = imports.save_document

    def published_meanwhile(*args, **kwargs):  # an editor's publish commits just before the write
        actions.publish_story(story=Story.objects.get(pk=draft.pk), user=editor)
        return write(*args, **kwargs)

    monkeypatch.setattr(imports, "save_document", published_meanwhile)
    with pytest.raises(desk.DeskError, match="is published: its content changes only through pending changes"):
        imports.import_story(doc)
    story = Story.objects.get(pk=draft.pk)
    assert story.headline == draft.headline  # the import's text reached nobody
    assert not AuditEntry.objects.filter(story=story, action="import").exists()


def test_saving_a_story_read_before_it_went_live_is_refused(draft, editor):
    stale = Story.objects.get(pk=draft.pk)
    actions.publish_story(story=draft, user=editor)
    stale.headline = UNCHECKED
    with pytest.raises(PermissionDenied, match="is published: edit its pending changes"):
        actions.save_story(story=stale, user=editor, write=stale.save)
    assert Story.objects.get(pk=draft.pk).headline == draft.headline
