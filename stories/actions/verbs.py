"""The verbs on a story: save, publish, unpublish, schedule, cancel a schedule, correct.
Each ends in the commit step (``stories.actions.commit``)."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from stories import desk, signals
from stories.desk import VersionConflict
from stories.models import Correction, Story

from .base import ActionError, ChecksFailed, can_edit, refuse_pending_draft
from .base import locked as _locked
from .base import require_perm as _require_perm
from .commit import commit, take_written_revision


def _bump(story: Story, action: str, user, *, reason: str = "", details: dict | None = None) -> Story:
    """The commit step without a signal (the caller sends its own)."""
    return commit(story, action=action, user=user, reason=reason, details=details, signal=None)


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
        if not creating:
            current = _locked(story)
            if expected_version is not None and current.version != expected_version:
                raise VersionConflict(current, expected_version)
            story.version = current.version
        return commit(story, action="create" if creating else "edit", user=user, write=write, details=details)


def publish_story(
    *, story: Story, user=None, override_reason: str = "", at=None, revision_current: bool = False
) -> Story:
    """Run the checks and publish when they pass. An editor with ``stories.override_checks``
    may publish a failing story by giving ``override_reason`` (recorded in the audit row).

    When the checks fail (and there is no override) the rubric is still recorded, so the
    editor sees why, and ``ChecksFailed`` (carrying the ``CheckResult``) is raised.
    ``revision_current`` is ``check_and_record``'s (the bulk import's new stories).
    """
    from stories.checks import check_and_record  # the checks import the desk, not the actions

    _require_perm(user, "stories.publish_story")
    reason = (override_reason or "").strip()
    if reason:
        # Asking to override is itself the privileged act, whatever the checks say.
        _require_perm(user, "stories.override_checks")
    with transaction.atomic():
        story = _locked(story)
        refuse_pending_draft(story)
        if story.status == Story.Status.PUBLISHED:
            raise ActionError("the story is already published")
        # Only the bulk import says its revision is current; every other caller checks the rows.
        if revision_current:
            result = check_and_record(story, revision_current=True, revision=take_written_revision(story))
        else:
            result = check_and_record(story)
        if result.passed or reason:
            if story.published_at is None:
                story.published_at = at or timezone.now()  # the first publication
            else:
                story.revised_at = timezone.now()  # published before: its first publication stands
            story.status = Story.Status.PUBLISHED
            story.scheduled_for = None
            details = {"score": result.score, "passed": result.passed, "overridden": not result.passed}
            return commit(
                story,
                action="publish",
                user=user,
                reason=reason if not result.passed else "",
                details=details,
                signal=signals.story_published,
                rubric=result.rubric,
            )
    # Outside the block: the failing CheckResult is committed before we refuse.
    raise ChecksFailed(result)


def unpublish_story(*, story: Story, user=None, reason: str = "") -> Story:
    """Take a published story down (back to draft). Its corrections stay."""
    _require_perm(user, "stories.publish_story")
    with transaction.atomic():
        story = _locked(story)
        if story.status != Story.Status.PUBLISHED:
            raise ActionError("the story is not published")
        story.status = Story.Status.DRAFT  # published_at (the first publication) stays on record
        return commit(
            story, action="unpublish", user=user, reason=(reason or "").strip(), signal=signals.story_unpublished
        )


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
        refuse_pending_draft(story)
        if story.status == Story.Status.PUBLISHED:
            raise ActionError("the story is already published")
        story.status = Story.Status.SCHEDULED
        story.scheduled_for = when
        return commit(story, action="schedule", user=user, details={"scheduled_for": desk.format_time(when)})


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
        return commit(story, action="unschedule", user=user, reason=(reason or "").strip())


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
        commit(
            story,
            action="correct",
            user=user,
            details={"kind": kind, "correction_id": correction.pk},
            signal=signals.story_corrected,
            correction=correction,
        )
        return correction
