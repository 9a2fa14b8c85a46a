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
written and published; when the database refuses a run of new stories, the run is rolled
back to its savepoint and imported one story at a time, so that the error names the line
it comes from. New stories asking to be published are then published, in file order, by
``publish_written`` (each checked, its rubric recorded; their rows written together).
``Importer`` does the same over the batches of a file, writing each run of new stories
while the checks of the run before it finish in worker processes, before publishing that
one.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import NamedTuple

from django.db import DataError, IntegrityError, transaction
from django.db.models import Q

from newsroom.infra import inflight
from newsroom.infra.bulk import check_deferred
from stories import search_index
from stories.checks.ahead import taking
from stories.checks.batch import BatchReads, batch_reads
from stories.checks.runner import checks_ahead
from stories.desk import DeskError, ImportResult, resolve_batch_references, resolve_references
from stories.models import Story

from .base import ChecksFailed
from .bulk import Item, write_new
from .commit import written_in_bulk
from .rows import save_document
from .verbs import publish_story, publish_written, unpublish_story

__all__ = ["ImportResult", "Importer", "Refused", "import_batch", "import_story", "save_document"]


class Refused(NamedTuple):
    """A document the checks refused to publish, imported as a draft: its line, its story's
    id and what the checks said (the score, the criteria that failed). Kept small: an import
    holds one for each refused document until its end, when they are reported, so a file of
    many refused stories must not hold their rubrics and model instances."""

    line: int
    story_id: str
    score: float
    failing: tuple[str, ...]

    @classmethod
    def of(cls, line: int, story, result) -> Refused:
        """``story``'s refusal on ``line``, from the ``CheckResult`` that refused it."""
        failing = tuple(c["name"] for c in result.rubric["criteria"] if not c["passed"])
        return cls(line, str(story.pk), result.score, failing)


# New stories written, then published, together (``Importer``): a run forks its checks'
# workers and reads its sources and candidates once, and after each fork the importing
# process pays again for the pages it touches; a run's memory is the import's peak.
RUN_SIZE = 500


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


def import_batch(
    items: list[Item], counts: dict[str, int], *, user=None, action: str = "import", restore: bool = False
) -> list[Refused]:
    """Import ``items`` in order, adding each outcome to ``counts``; returns the documents
    the checks refused to publish (imported as drafts). Call inside
    ``transaction.atomic()``: on a DeskError (its path starts with the line) the caller
    rolls back."""
    with Importer(counts, user=user, action=action, restore=restore) as importer:
        importer.add(items)
        return importer.finish()


@dataclass
class _Written:
    """A run of new stories written, its publication waiting (``Importer``): (line,
    document, story) of those asking to be published, how their revisions were written,
    their checks' reads, the workers checking them ahead (None: none run) and what stops
    those workers."""

    publishing: list[tuple[int, dict, Story]]
    written: dict
    reads: BatchReads
    ahead: object
    workers: contextlib.ExitStack


class Importer:
    """``import_batch`` over a file's batches: ``add`` each batch in file order, then
    ``finish``; use it as a context manager, which publishes a run left waiting when the
    block ends normally, and stops its checks' workers when an error ends the import (the
    caller rolls the transaction back).

    The result is ``import_story``'s one by one, and the publications are made in file
    order; only the writing is done ahead. A run of new stories (at most ``RUN_SIZE`` of
    them; a longer one is cut) is written, and its checks start in worker processes
    (``checks.ahead``); it is published once the next run is written, or before any other
    document is imported, or at ``finish``. So the workers check one run while the
    importing process writes the next and publishes the one before, and no core waits at
    the end of a run for the next to be read and rendered. A run written ahead is made of
    drafts, which no check of the run before reads (``not_a_repeat`` compares published
    stories, read when the run's first story is checked: ``checks.batch``)."""

    def __init__(self, counts: dict[str, int], *, user=None, action: str = "import", restore: bool = False):
        self.counts, self.user, self.action, self.restore = counts, user, action, restore
        self.refused: list[Refused] = []
        self.waiting: _Written | None = None

    def __enter__(self) -> Importer:
        # A run's search documents are sent without waiting (``_publish_waiting``): every
        # statement of the import receives them first.
        self._receiving = inflight.receiving()
        self._receiving.__enter__()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None:
                self._publish_waiting()  # ``finish`` not called: the run waiting is published all the same
            else:
                waiting, self.waiting = self.waiting, None
                if waiting is not None:
                    waiting.workers.close()
        except BaseException as error:
            self._receiving.__exit__(type(error), error, error.__traceback__)
            raise
        self._receiving.__exit__(exc_type, exc, tb)

    def add(self, items: list[Item]) -> None:
        """Import ``items`` in order (see ``import_batch``)."""
        if not items:
            return
        ids = [doc["id"] for _, doc in items if doc["id"]]
        slugs = {doc["slug"] for _, doc in items}
        dates = {doc["edition"][:10] for _, doc in items}
        taken_ids, taken_keys = set(), set()
        clashing = Story.objects.filter(Q(id__in=ids) | Q(slug__in=slugs, edition_date__in=dates))
        for sid, date, slug in clashing.order_by().values_list("id", "edition_date", "slug"):
            taken_ids.add(sid)
            taken_keys.add((date.isoformat(), slug))

        run: list[Item] = []
        for line, doc in items:
            key = (doc["edition"][:10], doc["slug"])
            if key not in taken_keys and (doc["id"] is None or doc["id"] not in taken_ids):
                run.append((line, doc))
                if len(run) == RUN_SIZE:
                    self._create_new(run)
                    run = []
            else:
                self._create_new(run)
                run = []
                self._one(line, doc)
            # Whatever happened to it, a later document with this id or slug is not new.
            taken_keys.add(key)
            if doc["id"]:
                taken_ids.add(doc["id"])
        self._create_new(run)

    def finish(self) -> list[Refused]:
        """Publish the run still waiting; returns the documents the checks refused to
        publish, in file order."""
        self._publish_waiting()
        return self.refused

    def _one(self, line: int, doc: dict) -> None:
        self._publish_waiting()  # the documents before it first, in file order
        try:
            result = import_story(doc, user=self.user, action=self.action, restore=self.restore)
        except DeskError as exc:
            raise _at(line, exc) from None
        self.counts[result.outcome] += 1
        if result.refused is not None:
            self.refused.append(Refused.of(line, result.story, result.refused))

    def _create_new(self, run: list[Item]) -> None:
        if not run:
            return
        restore = self.restore
        known = resolve_batch_references(run, restore=restore)
        workers = contextlib.ExitStack()
        reads = ahead = None

        def rendered(stories: list[Story], written: dict) -> None:
            # Their checks' reads made once for the run (``checks.batch``); the criteria that
            # need nothing the run writes start in worker processes (``checks.ahead``) as
            # soon as the revisions are rendered, while the rows are being written.
            nonlocal reads, ahead
            publishing = [story for story, (_, doc) in zip(stories, run) if doc["published_at"] is not None]
            if restore or not publishing:
                return
            reads = BatchReads(
                [written[story.pk].doc for story in publishing],
                {story.pk for story in publishing},
                claims=known["claim_rows"],  # read before the writer, with the stubs it wrote
            )
            handed = [(story.pk, written[story.pk].revision, written[story.pk].revision_text) for story in publishing]
            ahead = workers.enter_context(checks_ahead(reads, handed))

        action = "restore" if restore else self.action
        inflight.receive()  # the last run's search documents (if not yet), before this run's savepoint
        try:
            with transaction.atomic():
                stories, written = write_new(
                    run, known, user=self.user, action=action, restore=restore, rendered=rendered
                )
                check_deferred()  # a dangling row is refused here, inside the savepoint
        except (IntegrityError, DataError):
            # Rolled back to the savepoint. One by one, the refusal is reported with its line
            # (as the per-story path reports it), or, if it came from the batch as a whole,
            # the stories are imported after all.
            workers.close()  # no worker goes on checking revisions that were not written
            for line, doc in run:
                self._one(line, doc)
            return
        except BaseException:
            workers.close()
            raise
        self.counts["created"] += len(run)
        if reads is None:  # restored, or a new story not asking to be published stays the draft it was written as
            workers.close()
            self._publish_waiting()  # the run before: nothing of this one is checked
            return
        publishing = [(line, doc, story) for (line, doc), story in zip(run, stories) if doc["published_at"] is not None]
        try:
            self._publish_waiting()  # the run before, while the workers check this one
        except BaseException:
            workers.close()
            raise
        self.waiting = _Written(publishing, written, reads, ahead, workers)

    def _publish_waiting(self) -> None:
        """Publish the run written and waiting, if any: each story still checked, its rubric
        recorded, and published by the publish action (``publish_written``), one after the
        other, in file order."""
        waiting, self.waiting = self.waiting, None
        if waiting is None:
            return
        with waiting.workers:  # then no worker of the run is left
            stories = [(story, doc["published_at"]) for _, doc, story in waiting.publishing]
            with (
                written_in_bulk(waiting.written),
                batch_reads(waiting.reads),
                taking(waiting.ahead),
                search_index.held() as searched,
            ):
                outcomes = publish_written(stories, user=self.user)
            check_deferred()  # the publications' rows, now rather than all at the file's commit
            # Their search documents, computed by PostgreSQL while this process reads and
            # renders what comes next; received before the next statement.
            search_index.send_refresh(searched)
        for (line, _, story), outcome in zip(waiting.publishing, outcomes):
            if not isinstance(outcome, Story):  # the CheckResult that refused it: it stays as written
                self.refused.append(Refused.of(line, story, outcome))


def _at(line: int, exc: DeskError) -> DeskError:
    return DeskError(f"line {line}: {exc.path}", exc.message)
