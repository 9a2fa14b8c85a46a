"""The side-effecting verbs on stories. Admin, API and commands all call these.

Each action is atomic, keyword-only, checks the user's permissions (``user=None`` means
the system itself: a command or a scheduled job), writes one ``AuditEntry``, bumps the
story version, keeps a ``Revision`` and sends its signal inside the transaction (see
``stories.signals``), so that receivers (the syndication outbox) commit or roll back with it.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from stories import desk, signals
from stories.desk import VersionConflict
from stories.models import AuditEntry, Correction, Story

__all__ = [
    "ActionError",
    "ChecksFailed",
    "VersionConflict",
    "can_edit",
    "cancel_schedule",
    "publish_story",
    "record_correction",
    "save_story",
    "schedule_story",
    "unpublish_story",
]


class ActionError(Exception):
    """The action cannot be done to this story in its present state."""


class ChecksFailed(ActionError):
    def __init__(self, result):
        self.result = result
        super().__init__(f"the checks did not pass (score {result.score:.2f}); publish refused")


def _require_perm(user, perm: str) -> None:
    if user is not None and not user.has_perm(perm):
        raise PermissionDenied(f"{user} may not {perm.split('.')[-1].replace('_', ' ')}")


def can_edit(user, story: Story | None) -> bool:
    """Writers edit drafts; once a story is out (published or scheduled) only those who may
    publish may change it, since a change to a live story is an editorial decision."""
    if user is None:
        return True
    if not user.has_perm("stories.change_story"):
        return False
    if story is None or story.status == Story.Status.DRAFT:
        return True
    return user.has_perm("stories.publish_story")


def _locked(story: Story) -> Story:
    return Story.objects.select_for_update().get(pk=story.pk)


def _refuse_pending_draft(story: Story) -> None:
    if story.draft_of_id is not None:
        raise ActionError("these are pending changes of a live story: publish them with “Publish changes”")


def _bump(story: Story, action: str, user, *, reason: str = "", details: dict | None = None) -> Story:
    story.version += 1
    story.save()
    loaded = Story.objects.with_everything().get(pk=story.pk)
    desk.record_revision(loaded, user=user)
    AuditEntry.objects.create(
        story=story, action=action, user=user, version=story.version, reason=reason, details=details or {}
    )
    return loaded


def save_story(
    *, story: Story, user=None, expected_version: int | None = None, write=None, details: dict | None = None
) -> Story:
    """Save an edit of a story: bump its version, keep a revision, audit it, send
    ``story_updated``. ``write`` (no arguments) does the caller's writes (the story's
    fields, its sections, cites...) inside the same transaction, after the version check.

    ``expected_version`` is the version the editor opened; when the stored story has moved
    on since, nothing is written and ``VersionConflict`` is raised (no lost updates).
    Returns the story, loaded with ``with_everything()``, at its new version.
    """
    creating = story._state.adding
    if not can_edit(user, None if creating else Story.objects.get(pk=story.pk)):
        raise PermissionDenied(f"{user} may not edit this story")
    with transaction.atomic():
        if creating:
            story.version = 1
        else:
            current = _locked(story)
            if expected_version is not None and current.version != expected_version:
                raise VersionConflict(current, expected_version)
            story.version = current.version + 1
        if write is not None:
            write()
        else:
            story.save()
        # ``write`` may have saved only the story's parts: the bump must land regardless.
        Story.objects.filter(pk=story.pk).update(version=story.version, updated_at=timezone.now())
        loaded = Story.objects.with_everything().get(pk=story.pk)
        desk.record_revision(loaded, user=user)
        AuditEntry.objects.create(
            story=loaded,
            action="create" if creating else "edit",
            user=user,
            version=loaded.version,
            details=details or {},
        )
        signals.story_updated.send(sender=Story, story=loaded, user=user)
        return loaded


def publish_story(*, story: Story, user=None, override_reason: str = "", at=None) -> Story:
    """Run the checks and publish when they pass. An editor with ``stories.override_checks``
    may publish a failing story by giving ``override_reason`` (recorded in the audit row).

    When the checks fail (and there is no override) the rubric is still recorded, so the
    editor sees why, and ``ChecksFailed`` (carrying the ``CheckResult``) is raised.
    """
    from stories.checks import check_and_record  # the checks import the desk, not the actions

    _require_perm(user, "stories.publish_story")
    reason = (override_reason or "").strip()
    if reason:
        # Asking to override is itself the privileged act, whatever the checks say.
        _require_perm(user, "stories.override_checks")
    with transaction.atomic():
        story = _locked(story)
        _refuse_pending_draft(story)
        if story.status == Story.Status.PUBLISHED:
            raise ActionError("the story is already published")
        result = check_and_record(story)
        if result.passed or reason:
            story.status = Story.Status.PUBLISHED
            story.published_at = at or timezone.now()
            story.scheduled_for = None
            details = {"score": result.score, "passed": result.passed, "overridden": not result.passed}
            loaded = _bump(story, "publish", user, reason=reason if not result.passed else "", details=details)
            signals.story_published.send(sender=Story, story=loaded, user=user)
            return loaded
    # Outside the block: the failing CheckResult is committed before we refuse.
    raise ChecksFailed(result)


def unpublish_story(*, story: Story, user=None, reason: str = "") -> Story:
    """Take a published story down (back to draft). Its corrections stay."""
    _require_perm(user, "stories.publish_story")
    with transaction.atomic():
        story = _locked(story)
        if story.status != Story.Status.PUBLISHED:
            raise ActionError("the story is not published")
        story.status = Story.Status.DRAFT
        story.published_at = None
        loaded = _bump(story, "unpublish", user, reason=(reason or "").strip())
        signals.story_unpublished.send(sender=Story, story=loaded, user=user)
        return loaded


def schedule_story(*, story: Story, when, user=None) -> Story:
    """Publish at ``when``: ``publish_scheduled`` (a management command run by cron) does it,
    through ``publish_story``, so the checks run at publish time."""
    _require_perm(user, "stories.publish_story")
    if when is None or timezone.is_naive(when):
        raise ActionError("the scheduled time must be a timezone-aware date and time")
    if when <= timezone.now():
        raise ActionError("the scheduled time must be in the future")
    with transaction.atomic():
        story = _locked(story)
        _refuse_pending_draft(story)
        if story.status == Story.Status.PUBLISHED:
            raise ActionError("the story is already published")
        story.status = Story.Status.SCHEDULED
        story.scheduled_for = when
        loaded = _bump(story, "schedule", user, details={"scheduled_for": desk.format_time(when)})
        signals.story_updated.send(sender=Story, story=loaded, user=user)
        return loaded


def cancel_schedule(*, story: Story, user=None, reason: str = "") -> Story:
    """Back to draft from scheduled (an editor's change of mind, or checks that failed at
    the scheduled time)."""
    _require_perm(user, "stories.publish_story")
    with transaction.atomic():
        story = _locked(story)
        if story.status != Story.Status.SCHEDULED:
            raise ActionError("the story is not scheduled")
        story.status = Story.Status.DRAFT
        story.scheduled_for = None
        loaded = _bump(story, "unschedule", user, reason=(reason or "").strip())
        signals.story_updated.send(sender=Story, story=loaded, user=user)
        return loaded


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
