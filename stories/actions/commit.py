"""The commit step: the one way a change to a story is made final.

Every action ends here, inside its transaction: the story's version is bumped, the story's
desk/1 document of that version is kept as a ``Revision``, one typed ``AuditEntry`` is
written, the story's fingerprint (what ``not_a_repeat`` compares) is refreshed, each
paragraph's Markdown is kept rendered as sanitised HTML (rendered once per version, never
per request: ``store_html``; the row writers fill it as they write), and the
action's signal is sent (so that receivers, the syndication outbox and the caches, commit
or roll back with it). ``commit_new`` does the same for many new stories at once (the bulk
import), building its rows with the same functions.
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from newsroom.fields import OrderedJSONField
from newsroom.infra import inflight
from newsroom.infra.bulk import bulk_insert, bulk_update_rows, send_check_deferred
from newsroom.infra.pagecache import bump
from stories import desk, search_index, signals
from stories.fingerprints import fingerprint_of
from stories.markup import to_html
from stories.models import AuditEntry, Paragraph, Revision, Story, StoryFingerprint
from stories.models.records import LIVE_ACTIONS
from stories.publication import record_of

__all__ = [
    "RowChange",
    "Written",
    "audit_entry",
    "commit",
    "commit_new",
    "commit_written",
    "record_revision",
    "store_html",
    "written_fingerprint",
    "written_in_bulk",
]


@dataclass
class Written:
    """How the bulk writer rendered a new story's revision of version 1: its stored fields
    (the document, with the story's id) and what ``desk.render`` read from the database."""

    doc: dict
    manifests: dict
    claims_self_reported: dict
    newsroom_title: str
    profile: object
    revision: dict | None = None  # the revision of version 1 as written (``desk.render``'s output)
    # that revision as stored (``OrderedJSONField.text``), until the next revision is made from it
    revision_text: str | None = None
    fingerprint: tuple | None = None  # that revision's (``fingerprint_of``), as stored with it


# Stories the bulk writer has just written in this transaction (id -> Written): their parts
# and rendered HTML are as written, so a commit that changes only the story row (publishing
# them) renders its revision from the same fields instead of loading the graph again.
_WRITTEN: ContextVar[dict[str, Written] | None] = ContextVar("written_in_bulk", default=None)


@contextlib.contextmanager
def written_in_bulk(written: dict[str, Written]):
    """Within the block, ``commit`` of a story of ``written`` with no ``write`` (only the
    story row changes) renders its revision from ``written`` (see ``Written``)."""
    token = _WRITTEN.set(written)
    try:
        yield
    finally:
        _WRITTEN.reset(token)


def written_fingerprint(story) -> tuple | None:
    """The fingerprint the bulk writer stored with ``story``'s revision of version 1 in this
    transaction, computed from the revision ``written_revision`` gives; None when it was not
    written so."""
    written = (_WRITTEN.get() or {}).get(story.pk)
    if written is None or story.version != 1:
        return None
    return written.fingerprint


def written_revision(story) -> dict | None:
    """The revision of ``story``'s version as the bulk writer wrote it in this transaction
    (equal to the stored one: plain JSON values); None when it was not written so. It is
    kept until the change of the story's row is committed (``_row_change``, which makes
    the published revision from it), then dropped, so that a batch's revisions are not all
    held to its end."""
    written = (_WRITTEN.get() or {}).get(story.pk)
    if written is None or story.version != 1:
        return None
    return written.revision


_AUDIT_ACTIONS = frozenset(AuditEntry.Action.values)  # the enum's ``values`` is a new list each time it is read


def audit_entry(story, action: str, user, *, version: int, reason: str = "", details: dict | None = None):
    """The (unsaved) audit row of an action; ``action`` must be one of ``AuditEntry.Action``."""
    if action not in _AUDIT_ACTIONS:
        raise ValueError(f"unknown audit action {action!r}: use one of {', '.join(AuditEntry.Action.values)}")
    return AuditEntry(
        story_id=story.pk, action=action, user=user, version=version, reason=reason, details=details or {}
    )


def _fingerprint(story, data: dict) -> StoryFingerprint:
    sig, claim_ids = fingerprint_of(data)
    return StoryFingerprint(story_id=story.pk, minhash=sig, claim_ids=claim_ids)


def store_html(story) -> None:
    """Render the Markdown of each of the loaded story's paragraphs that has no stored HTML
    (written since without it), once for this version: the pages read the stored HTML."""
    missing = [p for s in story.sections.all() for p in s.paragraphs.all() if not p.html and p.markdown]
    for p in missing:
        p.html = to_html(p.markdown)
    Paragraph.objects.bulk_update(missing, ["html"])


def record_revision(story, *, user=None) -> dict:
    """Keep the loaded story's desk/1 document as of its version (one revision per version).
    Returns the document."""
    data = desk.export_story(story)
    Revision.objects.update_or_create(story=story, version=story.version, defaults={"data": data, "created_by": user})
    return data


def commit(
    story: Story,
    *,
    action: str,
    user=None,
    write=None,
    reason: str = "",
    details: dict | None = None,
    signal=signals.story_updated,
    rubric: dict | None = None,
    **signal_kwargs,
) -> Story:
    """Make a change to ``story`` final; call inside the action's ``transaction.atomic()``.

    ``story`` is the story as the action changed it (a new, unsaved one gets version 1, a
    stored one its version plus one). ``write`` (no arguments) does the action's writes (the
    story's fields, its parts); without it the story itself is saved. ``signal`` (None for
    none) is sent with ``story``, ``user`` and ``signal_kwargs``. ``rubric`` is what the
    checks recorded for this action (a publish), which the revision's disclosure reads; it
    saves reading it back for a story the bulk writer wrote. Returns the story, loaded with
    ``with_everything()``, at its new version.
    """
    assert transaction.get_connection().in_atomic_block, "commit() runs inside the action's transaction"
    audit_entry(story, action, user, version=1)  # an unknown action is refused before anything is written
    story.version = 1 if story._state.adding else story.version + 1
    if write is None:
        story.save()  # the version with the rest of the row (``updated_at`` is ``auto_now``)
        now = story.updated_at
    else:
        write()
        # ``write`` may have saved only the story's parts: the bump lands regardless.
        now = timezone.now()
        Story.objects.filter(pk=story.pk).update(version=story.version, updated_at=now)
    search_index.refresh([story.pk])  # what readers search follows the story's stored text
    written = (_WRITTEN.get() or {}).get(story.pk) if write is None else None
    if written is not None:
        story.updated_at = now
        return _commit_row_change(
            story,
            written,
            action=action,
            user=user,
            reason=reason,
            details=details,
            signal=signal,
            rubric=rubric,
            **signal_kwargs,
        )
    loaded = Story.objects.with_everything().get(pk=story.pk)
    store_html(loaded)
    data = record_revision(loaded, user=user)
    audit_entry(loaded, action, user, version=loaded.version, reason=reason, details=details).save()
    fp = _fingerprint(loaded, data)
    StoryFingerprint.objects.update_or_create(story=loaded, defaults={"minhash": fp.minhash, "claim_ids": fp.claim_ids})
    if signal is not None:
        signal.send(sender=Story, story=loaded, user=user, **signal_kwargs)
    return loaded


def _commit_row_change(
    story, written: Written, *, action, user, reason, details, signal, rubric, **signal_kwargs
) -> Story:
    """``commit``'s steps for a story the bulk writer wrote in this transaction, of which
    only the row changed (``_row_change``)."""
    revision, audit = _row_change(
        story, written, action=action, user=user, reason=reason, details=details, rubric=rubric
    )
    revision.save()
    audit.save()
    if signal is not None:
        signal.send(sender=Story, story=story, user=user, **signal_kwargs)
    return story


def _row_change(story, written: Written, *, action, user, reason, details, rubric) -> tuple[Revision, AuditEntry]:
    """The (unsaved) revision and audit row of a change to the row of a story the bulk writer
    wrote in this transaction: the revision is rendered as ``export_story`` renders the
    stored story (the stored fields of the parts are the written document's; the row's
    fields and how the story was published are the story's), without loading its graph
    (tests/stories/test_gate_imports_batch.py: equal to the export). The story's fingerprint
    is refreshed here when its wording changed."""
    audit = audit_entry(story, action, user, version=story.version, reason=reason, details=details)
    if rubric is not None and action in LIVE_ACTIONS:
        # This action makes the live version: its record is the audit row written with it,
        # with the rubric just recorded (what ``publication_of`` reads back); a story the
        # bulk writer wrote in this transaction has no edit by a person.
        responsibility = desk.responsibility_from(story, record_of(audit, rubric=rubric, edited_by_people=False))
    else:
        responsibility = desk.responsibility_of(story)
    fields = desk.story_fields(story)
    stored = None  # the new revision's text, when made from the text of the one it replaces
    revision, written.revision = written.revision, None  # this change's revision replaces it
    text, written.revision_text = written.revision_text, None
    if revision is not None and all(
        value == written.doc[key] for key, value in fields.items() if key != "published_at"
    ):
        # Only its publication changed (the publish of a story just written): the revision
        # as written, with its publication time and disclosure; stored as the text of the
        # revision as written with those two values replaced (the rest is not serialised
        # again), when that text is known.
        data = desk.with_publication(
            revision,
            published_at=fields["published_at"],
            profile=written.profile,
            responsibility=responsibility,
        )
        if text is not None:
            changed = {key: value for key, value in data.items() if value is not revision[key]}
            stored = OrderedJSONField.text_with(text, revision, changed)
    else:
        data = desk.render(
            {**written.doc, **fields},
            manifests=written.manifests,
            claims_self_reported=written.claims_self_reported,
            newsroom_title=written.newsroom_title,
            profile=written.profile,
            responsibility=responsibility,
        )
    if (story.headline, story.dek) != (written.doc["headline"], written.doc["dek"]):
        # The parts are as written, so only the row's wording can change the fingerprint
        # the bulk writer stored (``fingerprints.story_text``).
        fp = _fingerprint(story, data)
        StoryFingerprint.objects.filter(story_id=story.pk).update(minhash=fp.minhash, claim_ids=fp.claim_ids)
    return Revision(story=story, version=story.version, data=stored or data, created_by=user), audit


@dataclass
class RowChange:
    """One story's part of ``commit_written``: what its audit row and revision record."""

    story: Story
    reason: str = ""
    details: dict | None = None
    rubric: dict | None = None


def commit_written(changes: list[RowChange], *, action: str, fields: list[str], user=None, signal=None) -> None:
    """``commit`` of many stories the bulk writer wrote in this transaction
    (``written_in_bulk``), of which only the row's ``fields`` changed: each story gets its
    next version, and its revision and audit row (``_row_change``), with one UPDATE of the
    rows and one INSERT of the revisions and one of the audit rows for all of them; then
    ``signal`` (None for none) is sent for each story, in order. The ``lists`` generation is
    bumped once (``Story``'s ``post_save``, which a bulk UPDATE does not send, bumps it for
    a story saved one at a time). Call inside the action's ``transaction.atomic()``."""
    assert transaction.get_connection().in_atomic_block, "commit_written() runs inside the action's transaction"
    if not changes:
        return
    audit_entry(changes[0].story, action, user, version=1)  # an unknown action is refused before anything is written
    bulk = _WRITTEN.get() or {}
    now = timezone.now()
    revisions, audits = [], []
    for change in changes:
        story = change.story
        if story.pk not in bulk or story._state.adding:
            raise ValueError(f"story {story.pk} was not written by the bulk writer in this transaction")
        story.version += 1
        story.updated_at = now
        revision, audit = _row_change(
            story,
            bulk[story.pk],
            action=action,
            user=user,
            reason=change.reason,
            details=change.details,
            rubric=change.rubric,
        )
        revisions.append(revision)
        audits.append(audit)
    bulk_update_rows(Story, [c.story for c in changes], [*fields, "version", "updated_at"])
    search_index.refresh([c.story.pk for c in changes])
    bulk_insert(Revision, revisions, ids=False)
    bulk_insert(AuditEntry, audits, ids=False)
    bump("lists")
    if signal is not None:
        with signals.sent_together():
            for change in changes:
                signal.send(sender=Story, story=change.story, user=user)


def commit_new(
    pairs: list[tuple[Story, dict]], *, action: str, user=None, texts: list | None = None
) -> list[StoryFingerprint]:
    """The commit step of many new stories, written (at version 1) in bulk: their revisions
    (``data``, each story's desk/1 document as ``export_story`` renders it), audit entries and
    fingerprints, one INSERT per table. No story signal: a new story is in no cache and in
    no partner's feed; the ``lists`` generation is bumped once (``Story`` ``post_save``,
    which bulk writes do not send, bumps it for a story saved one at a time). ``texts``
    (by pair, None where not given): the revisions already serialised as stored
    (``OrderedJSONField.text``), stored as they are. Returns the fingerprint rows written,
    by pair. On PostgreSQL the foreign-key checks of the rows written so far in the
    transaction run (``check_deferred``) while the fingerprints are computed."""
    if not pairs:
        return []
    texts = texts or [None] * len(pairs)
    audits = [audit_entry(story, action, user, version=1) for story, _ in pairs]
    bulk_insert(
        Revision,
        [
            Revision(story_id=story.pk, version=1, created_by=user, data=data if text is None else text)
            for (story, data), text in zip(pairs, texts, strict=True)
        ],
        ids=False,
    )
    bulk_insert(AuditEntry, audits, ids=False)
    # The foreign-key checks of every row written so far run in PostgreSQL while the
    # fingerprints are computed here; a missing row is refused when they are received,
    # before the next statement, in the caller's savepoint.
    send_check_deferred()
    with inflight.receiving():
        rows = [_fingerprint(story, data) for story, data in pairs]
    fingerprints = bulk_insert(StoryFingerprint, rows)
    search_index.refresh([story.pk for story, _ in pairs if story.status == Story.Status.PUBLISHED])
    bump("lists")
    return fingerprints
