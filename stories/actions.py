"""The side-effecting verbs on stories. Admin, API and commands all call these.

Each action is atomic, keyword-only, writes one ``AuditEntry``, bumps the story version,
and sends its signal inside the transaction (see ``stories.signals``).
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from . import desk, signals
from .models import AuditEntry, Correction, Story


class ActionError(Exception):
    """The action cannot be done to this story in its present state."""


class ChecksFailed(ActionError):
    def __init__(self, result):
        self.result = result
        super().__init__(f"the checks did not pass (score {result.score:.2f}); publish refused")


def _require_perm(user, perm: str) -> None:
    if user is not None and not user.has_perm(perm):
        raise PermissionDenied(f"{user} may not {perm.split('.')[-1].replace('_', ' ')}")


def _locked(story: Story) -> Story:
    return Story.objects.select_for_update().get(pk=story.pk)


def _bump(story: Story, action: str, user, *, reason: str = "", details: dict | None = None) -> Story:
    story.version += 1
    story.save()
    loaded = Story.objects.with_everything().get(pk=story.pk)
    desk.record_revision(loaded, user=user)
    AuditEntry.objects.create(story=story, action=action, user=user, version=story.version, reason=reason, details=details or {})
    return loaded


def publish_story(*, story: Story, user=None, override_reason: str = "", at=None) -> Story:
    """Run the checks and publish when they pass. An editor with ``stories.override_checks``
    may publish a failing story by giving ``override_reason`` (recorded in the audit row)."""
    from .checks import check_and_record

    _require_perm(user, "stories.publish_story")
    with transaction.atomic():
        story = _locked(story)
        if story.status == Story.Status.PUBLISHED:
            raise ActionError("the story is already published")
        result = check_and_record(story)
        if not result.passed:
            if not override_reason.strip():
                raise ChecksFailed(result)
            _require_perm(user, "stories.override_checks")
        story.status = Story.Status.PUBLISHED
        story.published_at = at or timezone.now()
        story.scheduled_for = None
        details = {"score": result.score, "passed": result.passed}
        loaded = _bump(story, "publish", user, reason=override_reason.strip(), details=details)
        signals.story_published.send(sender=Story, story=loaded, user=user)
        return loaded


def unpublish_story(*, story: Story, user=None, reason: str = "") -> Story:
    _require_perm(user, "stories.publish_story")
    with transaction.atomic():
        story = _locked(story)
        if story.status != Story.Status.PUBLISHED:
            raise ActionError("the story is not published")
        story.status = Story.Status.DRAFT
        story.published_at = None
        loaded = _bump(story, "unpublish", user, reason=reason)
        signals.story_unpublished.send(sender=Story, story=loaded, user=user)
        return loaded


def schedule_story(*, story: Story, when, user=None) -> Story:
    """Publish at ``when``: ``publish_scheduled`` (a management command run by cron) does it,
    through ``publish_story``, so the checks run at publish time."""
    _require_perm(user, "stories.publish_story")
    if when <= timezone.now():
        raise ActionError("the scheduled time must be in the future")
    with transaction.atomic():
        story = _locked(story)
        if story.status == Story.Status.PUBLISHED:
            raise ActionError("the story is already published")
        story.status = Story.Status.SCHEDULED
        story.scheduled_for = when
        return _bump(story, "schedule", user, details={"scheduled_for": when.isoformat()})


def record_correction(*, story: Story, text: str, kind: str, user=None) -> Correction:
    """Append a correction to a published story; it can never be edited or removed."""
    _require_perm(user, "stories.add_correction")
    if kind not in Correction.Kind.values:
        raise ActionError(f"kind must be one of {', '.join(Correction.Kind.values)}, not {kind!r}")
    if not text or not text.strip():
        raise ActionError("a correction needs its text")
    with transaction.atomic():
        story = _locked(story)
        if story.status != Story.Status.PUBLISHED:
            raise ActionError("corrections are recorded on published stories; edit the draft instead")
        correction = Correction.objects.create(
            story=story, corrected_at=timezone.now(), kind=kind, text=text.strip(), created_by=user
        )
        loaded = _bump(story, "correct", user, details={"kind": kind, "correction_id": correction.pk})
        signals.story_corrected.send(sender=Story, story=loaded, user=user, correction=correction)
        return correction
