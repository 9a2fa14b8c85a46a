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
from .commit import RowChange, commit, commit_written, written_fingerprint, written_revision


class ReviewedVersionChanged(ActionError):
    """An override names the version the editor reviewed, and the story (or the pending
    draft) has been saved since: the reason covers text the editor has not read."""

    def __init__(self, story: Story, reviewed_version: int, *, what: str = "the story"):
        self.story = story
        self.reviewed_version = reviewed_version
        super().__init__(
            f"{what} {'were' if what.endswith('s') else 'was'} saved since you reviewed "
            f"{'them' if what.endswith('s') else 'it'} (you reviewed version {reviewed_version}; now at version "
            f"{story.version}), and an override covers only the text you reviewed"
        )


def refuse_unreviewed(story: Story, reviewed_version: int | None, *, what: str = "the story") -> None:
    """Refuse an override of the checks on ``story`` (locked) when it is no longer at
    ``reviewed_version``, the version the editor read (None: the caller vouches for it)."""
    if reviewed_version is not None and story.version != reviewed_version:
        raise ReviewedVersionChanged(story, reviewed_version, what=what)


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
            if current.draft_of_id is None and current.status in (Story.Status.PUBLISHED, Story.Status.SCHEDULED):
                # Decided on the locked row: a story that went live since the caller read it
                # is not written over, unchecked (its content changes through pending changes).
                raise PermissionDenied(f"story {current.pk} is {current.status}: edit its pending changes")
            if expected_version is not None and current.version != expected_version:
                raise VersionConflict(current, expected_version)
            story.version = current.version
        return commit(story, action="create" if creating else "edit", user=user, write=write, details=details)


def publish_story(
    *,
    story: Story,
    user=None,
    override_reason: str = "",
    at=None,
    reviewed_version: int | None = None,
    scheduled_by=None,
) -> Story:
    """Run the checks and publish when they pass. An editor with ``stories.override_checks``
    may publish a failing story by giving ``override_reason`` (recorded in the audit row).

    ``reviewed_version`` is the version the editor reviewed (the publish page carries it).
    With an override, when the story has been saved since, nothing is written (not even the
    rubric) and ``ReviewedVersionChanged`` is raised: an override covers only the text the
    editor read. Without an override the checks decide, on the version stored now.

    When the checks fail (and there is no override) the rubric is still recorded, so the
    editor sees why, and ``ChecksFailed`` (carrying the ``CheckResult``) is raised.

    ``scheduled_by`` (a time: the scheduler's run) publishes the story only if, under its
    lock, it is still scheduled for that time or earlier: an editor who cancelled or moved
    the schedule after the scheduler listed the story is not overruled (``ActionError``).
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
        if scheduled_by is not None and (
            story.status != Story.Status.SCHEDULED or story.scheduled_for is None or story.scheduled_for > scheduled_by
        ):
            raise ActionError("the story is no longer scheduled for now: its schedule was cancelled or moved")
        if reason:
            refuse_unreviewed(story, reviewed_version)
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


def publish_written(stories: list[tuple[Story, object]], *, user=None) -> list[Story | object]:
    """Publish, in order, new stories the bulk writer has just written in this transaction
    (``commit.written_in_bulk``), each as ``publish_story`` would with ``at`` (its first
    publication time; None for now): checked (from the revision as written:
    ``checks.rubric_of``), its rubric recorded, published when the checks pass. No override:
    a story the checks refuse stays the draft it was written as. Returns, for each story,
    the published story or the ``CheckResult`` that refused it.

    The rows are read with one lock. Their writes (rubrics, rows, revisions, audit rows:
    ``commit.commit_written``) wait, to be made together, while the checks' reads of the
    next story come from the batch (``checks.batch``, which is told of each story as it is
    published); before checks that would query, what waits is written, so that they see
    every story published before."""
    from newsroom.infra.bulk import bulk_insert
    from stories.checks import batch, rubric_of  # the checks import the desk, not the actions
    from stories.models import CheckResult

    _require_perm(user, "stories.publish_story")
    out, results, changes = [], [], []

    def write() -> None:
        bulk_insert(CheckResult, results)
        fields = ["status", "published_at", "scheduled_for"]
        commit_written(changes, action="publish", fields=fields, user=user, signal=signals.story_published)
        results.clear()
        changes.clear()

    with transaction.atomic():
        rows = Story.objects.select_for_update().in_bulk([story.pk for story, _ in stories])
        for written, at in stories:
            story = rows[written.pk]
            if (story.status, story.version, story.draft_of_id) != (Story.Status.DRAFT, 1, None):
                raise ActionError(f"story {story.pk} is not a draft the bulk writer has just written")
            _keep_related(story, written)
            reads = batch.current()
            if reads is None or not reads.covers(story.pk):
                write()
            rubric = rubric_of(
                story, revision_current=True, revision=written_revision(story), fingerprint=written_fingerprint(story)
            )
            result = CheckResult(
                story=story, version=story.version, passed=rubric["passed"], score=rubric["score"], rubric=rubric
            )
            results.append(result)
            if not result.passed:
                out.append(result)
                continue
            story.published_at = at or timezone.now()
            story.status = Story.Status.PUBLISHED
            story.scheduled_for = None
            details = {"score": result.score, "passed": True, "overridden": False}
            changes.append(RowChange(story, details=details, rubric=rubric))
            out.append(story)
            if reads is not None:
                reads.published(story)
        write()
    return out


def _keep_related(story: Story, written: Story) -> None:
    """The newsroom and beat the bulk writer gave the story (read in this transaction), on the
    row read again with the lock, so that rendering it reads neither again."""
    for name in ("newsroom", "beat"):
        field = Story._meta.get_field(name)
        if field.is_cached(written) and getattr(written, field.attname) == getattr(story, field.attname):
            field.set_cached_value(story, field.get_cached_value(written))


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
