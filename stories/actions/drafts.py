"""Pending changes to a live story (Wagtail's live revision vs latest revision).

A published or scheduled story is never edited in place. The first edit makes a *pending
draft*: a copy of its content in a story row of its own (``draft_of`` = the live story,
status draft), which the desk edits like any draft. Readers, partners and feeds keep the
live version (they read published stories only) until an editor publishes the changes:
the checks run on the pending draft, and only when they pass (or an editor overrides them
with a reason) does its content replace the live story's, in one transaction, with one
version bump, an audit row and the signals that purge caches and notify partners. A change
to the text of a published story may carry a public correction, recorded in the same
transaction. Discarding the changes deletes the pending draft; the live story is untouched.

Locks are always taken live story first, then its pending draft, as every other action on
the live story (unpublish, correction) locks the live story: they serialise.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from stories import desk, signals
from stories.fingerprints import refresh_fingerprint
from stories.models import AuditEntry, CheckResult, Correction, Story

from .base import ActionError, ChecksFailed, can_edit
from .base import locked as _locked
from .base import require_perm as _require_perm
from .commit import record_revision
from .rows import write_parts
from .verbs import _bump, record_correction, refuse_unreviewed

__all__ = ["discard_changes", "is_live", "pending_draft_of", "publish_changes", "start_changes", "text_changed"]

LIVE_STATUSES = (Story.Status.PUBLISHED, Story.Status.SCHEDULED)

# The live story's own fields that a pending draft's content replaces. Its identity (id,
# slug, edition, newsroom: its address) and its publication state stay the live story's.
CONTENT_FIELDS = (
    "beat",
    "audience",
    "angle",
    "headline",
    "dek",
    "trust",
    "unresolved",
    "decision_card",
    "writer_agent",
    "writer_run_id",
)

# Audit actions after which the live story's content is not what a pending draft copied.
_CONTENT_WRITES = ("edit", "import", "restore", "loaddemo", "submission", "publish_changes")


def is_live(story: Story) -> bool:
    """Published or scheduled: its content is edited through a pending draft."""
    return story.draft_of_id is None and story.status in LIVE_STATUSES


def pending_draft_of(story: Story) -> Story | None:
    return Story.objects.filter(draft_of=story).first() if story.pk else None


def _content_doc(story: Story) -> dict:
    return desk.stored_fields(Story.objects.with_everything().get(pk=story.pk))


def text_changed(old: dict, new: dict) -> bool:
    """Whether readers would read different words: headline, dek, key facts, section
    headings or paragraphs (``old``/``new``: desk/1 stored fields)."""
    from stories.history import prose_units

    return [text for _, text in prose_units(old)] != [text for _, text in prose_units(new)]


def start_changes(*, story: Story, user=None) -> Story:
    """The pending draft of the live ``story``, created (a copy of its content) when it has
    none. Whoever may edit drafts may start one; only an editor may publish it."""
    if not can_edit(user, None):
        raise PermissionDenied(f"{user} may not edit stories")
    with transaction.atomic():
        live = _locked(story)
        if live.draft_of_id is not None:
            raise ActionError("this story is itself pending changes of another story")
        if live.status not in LIVE_STATUSES:
            raise ActionError("the story is not live: edit it directly")
        existing = pending_draft_of(live)
        if existing is not None:
            return existing
        doc = _content_doc(live)
        draft = Story(
            draft_of=live,
            slug=live.slug,
            edition_id=live.edition_id,
            newsroom_id=live.newsroom_id,
            status=Story.Status.DRAFT,
            created_by=user if user is not None and user.is_authenticated else None,
            version=1,
        )
        for field in CONTENT_FIELDS:
            setattr(draft, field, getattr(live, field))
        draft.save()
        write_parts([(draft, doc)], new=True)
        refresh_fingerprint(draft, doc)
        loaded = Story.objects.with_everything().get(pk=draft.pk)
        record_revision(loaded, user=user)
        AuditEntry.objects.create(
            story=draft,
            action=AuditEntry.Action.CREATE,
            user=user,
            version=1,
            details={"pending_changes_of": live.pk, "live_version": live.version},
        )
        signals.story_updated.send(sender=Story, story=loaded, user=user)
        return loaded


def _live_and_draft(draft: Story) -> tuple[Story, Story]:
    """Lock the live story, then its pending draft (call inside a transaction)."""
    live_id = Story.objects.filter(pk=draft.pk).values_list("draft_of_id", flat=True).first()
    if live_id is None:
        raise ActionError("these are not pending changes of a live story (or they were published or discarded)")
    live = _locked(Story(pk=live_id))
    try:
        draft = _locked(draft)
    except Story.DoesNotExist:
        raise ActionError("these pending changes were published or discarded meanwhile") from None
    return live, draft


def _base_version(draft: Story) -> int | None:
    entry = AuditEntry.objects.filter(story=draft, action=AuditEntry.Action.CREATE).order_by("id").first()
    return (entry.details or {}).get("live_version") if entry else None


def _clean_correction(correction: dict | None) -> dict | None:
    if not correction:
        return None
    kind, text = correction.get("kind"), (correction.get("text") or "").strip()
    if kind not in Correction.Kind.values:
        raise ActionError(f"kind must be one of {', '.join(Correction.Kind.values)}, not {kind!r}")
    if not text:
        raise ActionError("a correction needs its text")
    return {"kind": kind, "text": text}


def publish_changes(
    *,
    draft: Story,
    user=None,
    override_reason: str = "",
    correction: dict | None = None,
    reviewed_version: int | None = None,
) -> Story:
    """Run the checks on the pending ``draft``; when they pass (or an editor with
    ``stories.override_checks`` gives ``override_reason``), its content replaces the live
    story's and the draft is deleted. ``correction`` (``{"kind", "text"}``) is recorded on
    the live story in the same transaction. Returns the live story, loaded.

    ``reviewed_version`` is the version of the draft the editor reviewed (the page carries
    it). With an override, when the draft has been saved since, nothing is written and
    ``ReviewedVersionChanged`` is raised: an override covers only the changes the editor read.

    When the checks fail without an override the rubric is kept on the draft and
    ``ChecksFailed`` is raised: nothing changes for readers.
    """
    from stories.checks import check_and_record

    _require_perm(user, "stories.publish_story")
    reason = (override_reason or "").strip()
    if reason:
        _require_perm(user, "stories.override_checks")
    correction = _clean_correction(correction)
    if correction:
        _require_perm(user, "stories.add_correction")
    with transaction.atomic():
        live, draft = _live_and_draft(draft)
        if live.status not in LIVE_STATUSES:
            raise ActionError("the story is not live any more: discard these changes and edit the story itself")
        moved = [f for f in ("slug", "edition_id", "newsroom_id") if getattr(draft, f) != getattr(live, f)]
        if moved:  # checked at the draft's address, they would go live at the story's own
            names = ", ".join(f.removesuffix("_id") for f in moved)
            raise ActionError(
                f"these changes are at another {names} than the live story's: discard them and start again"
            )
        if correction and live.status != Story.Status.PUBLISHED:
            raise ActionError("corrections are recorded on published stories; this one is only scheduled")
        base = _base_version(draft)
        if base is not None and (
            AuditEntry.objects.filter(story=live, version__gt=base, action__in=_CONTENT_WRITES).exists()
        ):
            raise ActionError(
                f"the live story's content changed since these changes were started (from version {base}): "
                "discard them and start again"
            )
        if reason:
            refuse_unreviewed(draft, reviewed_version, what="the pending changes")
        result = check_and_record(draft)
        if result.passed or reason:
            loaded = _apply(live, draft, user, result, reason=reason if not result.passed else "")
            if correction:
                record_correction(story=loaded, user=user, **correction)
                loaded = Story.objects.with_everything().get(pk=loaded.pk)
            return loaded
    raise ChecksFailed(result)


def _apply(live: Story, draft: Story, user, result: CheckResult, *, reason: str) -> Story:
    doc, before = _content_doc(draft), _content_doc(live)
    changed_text = text_changed(before, doc)
    # The sources the live story stops citing: their pages list it until now.
    uncited = sorted(set(desk.cited_manifest_ids(before)) - set(desk.cited_manifest_ids(doc)))
    editors = sorted({str(e.user) for e in AuditEntry.objects.filter(story=draft).select_related("user") if e.user_id})
    for field in CONTENT_FIELDS:
        setattr(live, field, getattr(draft, field))
    if live.status == Story.Status.PUBLISHED:
        live.revised_at = timezone.now()
    write_parts([(live, doc)])
    refresh_fingerprint(live, doc)
    details = {
        "score": result.score,
        "passed": result.passed,
        "overridden": not result.passed,
        "text_changed": changed_text,
        "pending_draft": draft.pk,
        "draft_version": draft.version,
        "edited_by": editors,
    }
    # The rubric of the published content, recorded on the live story at the version this
    # publication makes, before its audit row: the public record (``stories.publication``)
    # reads it with the row, never an earlier run on the live story's previous content.
    CheckResult.objects.create(
        story=live, version=live.version + 1, passed=result.passed, score=result.score, rubric=result.rubric
    )
    loaded = _bump(live, AuditEntry.Action.PUBLISH_CHANGES, user, reason=reason, details=details)
    draft.delete()
    if loaded.status == Story.Status.PUBLISHED:
        # Caches, the CDN and partners follow a publication: the story they serve changed.
        signals.story_published.send(sender=Story, story=loaded, user=user, changes=True, uncited=uncited)
    else:
        signals.story_updated.send(sender=Story, story=loaded, user=user)
    return loaded


def discard_changes(*, draft: Story, user=None, reason: str = "") -> Story:
    """Throw the pending changes away (an editor's call, like any decision about the live
    story). The live story is untouched; the audit row is kept on it. Returns the live story."""
    with transaction.atomic():
        live, draft = _live_and_draft(draft)
        # An editor's call whatever the live story's status now (a Writer may edit a story
        # taken down, not throw away the changes and their record).
        if user is None or not user.has_perm("stories.publish_story") or not can_edit(user, live):
            raise PermissionDenied(f"{user} may not discard the changes of a live story")
        AuditEntry.objects.create(
            story=live,
            action=AuditEntry.Action.DISCARD_CHANGES,
            user=user,
            version=live.version,
            reason=(reason or "").strip(),
            details={"pending_draft": draft.pk, "draft_version": draft.version},
        )
        draft.delete()
        return live
