"""desk/1 documents into the database, through the gate.

A document's content is written as a draft (a stored story keeps its state); a document
that asks to be published (``published_at`` set) is then published by ``publish_story``,
checks included, keeping its ``published_at`` as the first publication time. When the
checks fail it stays a draft, and its ``ImportResult.refused`` holds the failing
``CheckResult``. A document not published, of a story that is, takes it down
(``unpublish_story``).

A document that would change the content of a live (published or scheduled) story is
refused, writing nothing: a live story changes only through its pending changes, which
run the checks. An unchanged document of a live story is accepted (importing the same file
twice changes nothing).

Corrections come into a stored story only from an editor (``record_correction``): a
document that would add corrections to a stored story is refused, writing nothing (a new
story's corrections, the public history of an archive migrated from another system, are
stored with its version 1, in its revision and its ``import`` audit row). Cites may add stub
claims only to the manifests the document itself adds (``desk.resolve_references``).

``restore=True`` (a backup restored) is the one exception: the document's state is kept
as exported (published stays published, with its time, and its corrections as exported),
stub claims are recreated under any manifest, no checks run, and every write is audited as
``restore``.

``import_batch(items, counts)`` imports documents (each with its line number) in file
order, with the result ``import_story`` would give importing them one by one: a *new*
story (its id, and its slug on its edition date, free in the database and not used
earlier in the batch) is written with the other new stories around it (``bulk``); any
other document goes through ``import_story``, after the new stories before it are
written; when the database refuses a run of new stories, the run is rolled back to its
savepoint and imported one story at a time, so that the error names the line it comes
from. New stories asking to be published are then published, in file order, by
``publish_written`` (each checked, its rubric recorded; their rows written together).
"""

from __future__ import annotations

import contextlib

from django.db import DataError, IntegrityError, transaction
from django.db.models import Q

from newsroom.infra.bulk import check_deferred
from stories.checks.batch import BatchReads, batch_reads
from stories.checks.runner import checks_ahead
from stories.desk import DeskError, ImportResult, resolve_batch_references, resolve_references
from stories.models import Story

from .base import ChecksFailed
from .bulk import Item, write_new
from .commit import written_in_bulk
from .rows import save_document
from .verbs import publish_story, publish_written, unpublish_story

__all__ = ["ImportResult", "Refused", "import_batch", "import_story", "save_document"]

Refused = tuple[int, ImportResult]  # (line number, the result of a document the checks refused)


def import_story(doc: dict, *, user=None, action: str = "import", restore: bool = False) -> ImportResult:
    """Upsert a validated story by id, atomically, then publish it when it asks to be (see
    the module's docstring). Creates the newsroom, beat and edition it names, and the
    manifests its cites need from its ``manifests`` list (with stub claims: by id, no text)."""
    resolve_references(doc, restore=restore)
    try:
        with transaction.atomic():
            result = save_document(doc, user=user, action="restore" if restore else action, restore=restore)
            # Read after the write, which locked the story's row and kept its state: a
            # story published meanwhile is seen as live, and the write is rolled back.
            live = None if restore or result.outcome == "unchanged" else _live_story(doc)
            pending_of = result.story.draft_of_id
            if not restore and pending_of is not None and doc["published_at"] is not None:
                raise DeskError(
                    "published_at",
                    f"story {result.story.pk} holds the pending changes of story {pending_of}: they go live "
                    "only with “Publish changes” in the desk, which runs the checks; import it without "
                    "published_at to update them; nothing was written",
                )
            if live is not None:
                # Readers would see the new text at once, unchecked: a live story changes
                # only through its pending changes in the desk (or a restore).
                raise DeskError(
                    "$",
                    f"story {live.pk} ({live.path}) is {live.status}: its content changes only through "
                    "pending changes in the desk, which run the checks (or import_stories --restore "
                    "to restore a backup); nothing was written",
                )
    except (IntegrityError, DataError) as exc:
        # Validation should catch everything first; if the database still refuses a row,
        # report it like any other bad input (the transaction has been rolled back).
        raise DeskError("$", f"the database refused this story: {exc}") from exc
    if not restore:
        _take_state(result, doc, user=user)
    return result


def _live_story(doc: dict) -> Story | None:
    """The published or scheduled story the document names (by id, else by edition date and
    slug), if any."""
    stories = Story.objects.filter(status__in=[Story.Status.PUBLISHED, Story.Status.SCHEDULED])
    if doc["id"]:
        return stories.filter(pk=doc["id"]).first()
    return stories.filter(edition_date=doc["edition"][:10], slug=doc["slug"], draft_of__isnull=True).first()


def _take_state(result: ImportResult, doc: dict, *, user) -> None:
    """Publish (or take down) the written story as its document asks, through the actions."""
    story, published = result.story, Story.Status.PUBLISHED
    if doc["published_at"] is not None and story.status != published:
        try:
            result.story = publish_story(story=story, user=user, at=doc["published_at"])
        except ChecksFailed as exc:
            result.story = Story.objects.with_everything().get(pk=story.pk)
            result.refused = exc.result
    elif doc["published_at"] is None and story.status == published:
        result.story = unpublish_story(story=story, user=user, reason="imported as not published")


def _at(line: int, exc: DeskError) -> DeskError:
    return DeskError(f"line {line}: {exc.path}", exc.message)


def import_batch(
    items: list[Item], counts: dict[str, int], *, user=None, action: str = "import", restore: bool = False
) -> list[Refused]:
    """Import ``items`` in order, adding each outcome to ``counts``; returns the documents
    the checks refused to publish (imported as drafts). Call inside
    ``transaction.atomic()``: on a DeskError (its path starts with the line) the caller
    rolls back."""
    refused: list[Refused] = []
    if not items:
        return refused
    ids = [doc["id"] for _, doc in items if doc["id"]]
    slugs = {doc["slug"] for _, doc in items}
    dates = {doc["edition"][:10] for _, doc in items}
    taken_ids, taken_keys = set(), set()
    clashing = Story.objects.filter(Q(id__in=ids) | Q(slug__in=slugs, edition_date__in=dates))
    for sid, date, slug in clashing.order_by().values_list("id", "edition_date", "slug"):
        taken_ids.add(sid)
        taken_keys.add((date.isoformat(), slug))

    run: list[Item] = []
    opts = {"user": user, "action": action, "restore": restore}
    for line, doc in items:
        key = (doc["edition"][:10], doc["slug"])
        if key not in taken_keys and (doc["id"] is None or doc["id"] not in taken_ids):
            run.append((line, doc))
        else:
            _create_new(run, counts, refused, **opts)
            run = []
            _one(line, doc, counts, refused, **opts)
        # Whatever happened to it, a later document with this id or slug is not new.
        taken_keys.add(key)
        if doc["id"]:
            taken_ids.add(doc["id"])
    _create_new(run, counts, refused, **opts)
    return refused


def _one(line: int, doc: dict, counts, refused: list[Refused], **opts) -> None:
    try:
        result = import_story(doc, **opts)
    except DeskError as exc:
        raise _at(line, exc) from None
    counts[result.outcome] += 1
    if result.refused is not None:
        refused.append((line, result))


def _create_new(run: list[Item], counts, refused: list[Refused], *, user, action: str, restore: bool) -> None:
    if not run:
        return
    known = resolve_batch_references(run, restore=restore)
    with contextlib.ExitStack() as ahead:
        reads = None

        def rendered(stories: list[Story], written: dict) -> None:
            # Their checks' reads made once for the run (``checks.batch``); the criteria that
            # need nothing the batch writes start in worker processes (``checks.ahead``) as
            # soon as the revisions are rendered, while the rows are being written.
            nonlocal reads
            publishing = [story for story, (_, doc) in zip(stories, run) if doc["published_at"] is not None]
            if restore or not publishing:
                return
            reads = BatchReads(
                [written[story.pk].doc for story in publishing],
                {story.pk for story in publishing},
                claims=known["claim_rows"],  # read before the writer, with the stubs it wrote
            )
            handed = [(story.pk, written[story.pk].revision, written[story.pk].revision_text) for story in publishing]
            ahead.enter_context(checks_ahead(reads, handed))

        try:
            with transaction.atomic():
                stories, written = write_new(
                    run, known, user=user, action="restore" if restore else action, restore=restore, rendered=rendered
                )
                check_deferred()  # a dangling row is refused here, inside the savepoint
        except (IntegrityError, DataError):
            # Rolled back to the savepoint. One by one, the refusal is reported with its line
            # (as the per-story path reports it), or, if it came from the batch as a whole,
            # the stories are imported after all.
            ahead.close()  # no worker goes on checking revisions that were not written
            for line, doc in run:
                _one(line, doc, counts, refused, user=user, action=action, restore=restore)
            return
        counts["created"] += len(run)
        if reads is None:  # restored, or a new story not asking to be published stays the draft it was written as
            return
        # Each story is still checked, its rubric recorded, and published by the publish
        # action (``publish_written``), one after the other, in file order.
        publishing = [(line, doc, story) for (line, doc), story in zip(run, stories) if doc["published_at"] is not None]
        with written_in_bulk(written), batch_reads(reads):
            outcomes = publish_written([(story, doc["published_at"]) for _, doc, story in publishing], user=user)
        check_deferred()  # the publications' rows, now rather than all at the file's commit
    for (line, _, story), outcome in zip(publishing, outcomes):
        if not isinstance(outcome, Story):  # the CheckResult that refused it: it stays as written
            refused.append((line, ImportResult(story, "created", refused=outcome)))
