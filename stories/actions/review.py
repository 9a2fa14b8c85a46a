"""The review flow: a writer submits a draft for review; an editor sends it back with a note
(or publishes it, through the checks, with ``publish_story``).

The review status is the desk's bookkeeping, not the story's content: these actions write
no revision and bump no version (an open editing page stays valid), but each writes its
audit row, and only these actions write the review fields.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from stories.models import Story

from .base import ActionError, can_edit, require_perm
from .base import locked as _locked
from .commit import audit_entry

NOTE_MAX_LENGTH = 5000
Review = Story.Review


def _set(story: Story, *, status: str, note: str, action: str, user, reason: str = "") -> Story:
    story.review_status, story.review_note, story.review_changed_at = status, note, timezone.now()
    Story.objects.filter(pk=story.pk).update(
        review_status=story.review_status, review_note=story.review_note, review_changed_at=story.review_changed_at
    )
    audit_entry(story, action, user, version=story.version, reason=reason).save()
    return story


def submit_for_review(*, story: Story, user=None) -> Story:
    """Mark a draft as ready for an editor: it enters the review queue."""
    with transaction.atomic():
        story = _locked(story)
        if not can_edit(user, story):
            raise PermissionDenied("only the desk's writers and editors may submit a draft they may edit")
        if story.status != Story.Status.DRAFT:
            raise ActionError(f"only a draft is submitted for review; this story is {story.get_status_display()}")
        if story.review_status == Review.IN_REVIEW:
            raise ActionError("this draft is already in review")
        return _set(story, status=Review.IN_REVIEW, note="", action="submit_review", user=user)


def send_back(*, story: Story, note: str, user=None) -> Story:
    """An editor returns a draft in review to its writer, saying what must change."""
    require_perm(user, "stories.publish_story")
    note = (note or "").strip()
    if not note:
        raise ActionError("say what must change: a draft is sent back with a note")
    if len(note) > NOTE_MAX_LENGTH:
        raise ActionError(f"the note is {len(note)} characters long; at most {NOTE_MAX_LENGTH}")
    if "\x00" in note:
        raise ActionError("the note contains a NUL character")
    with transaction.atomic():
        story = _locked(story)
        if story.review_status != Review.IN_REVIEW:
            raise ActionError("only a draft in review is sent back")
        return _set(story, status=Review.SENT_BACK, note=note, action="send_back", user=user, reason=note)
