"""The checks of a bulk import's batch, run ahead in worker processes.

The bulk import publishes the new stories of a batch one after the other, each through the
publish action, which checks the story and records its rubric. The criteria that read
nothing but the story's revision and the batch's manifests and claims (all of them but
``not_a_repeat``, whose candidates include the stories of the batch published before it)
cost most of a story's time and depend on nothing the batch writes, so within
``checked_ahead`` they are run for the whole batch in ``IMPORT_CHECK_WORKERS`` forked
worker processes, started as soon as the batch's revisions are rendered, while the
importing process writes the batch's rows, then the next batch's (``actions.Importer``),
and then publishes it (``take`` answers for the batch being published: ``taking``); while
the workers' next result is not ready, the importing process runs them itself for the batch's last stories that no
worker has begun (each story is taken by one side only, through flags in shared memory).
The importing process still assembles and records each story's rubric in its publish: it
takes the results for those criteria only when they were computed from the same revision
(compared by digest: of the revision as stored, serialised once before the fork for both
the digest and the stored revision; a revision other than the one handed over is serialised
again to compare), runs ``not_a_repeat`` and any criterion a worker could not compute,
and records the rubric as usual (tests/stories/test_gate_imports_ahead.py: the rubrics
equal those of the checks run in process, planted faults included).

A worker never touches the database: it reads what the batch loaded before the fork
(``checks.batch``), and a query is refused before anything is sent, leaving that story to
the importing process. Nothing runs ahead where processes cannot be forked, for a batch of
fewer than ``IMPORT_CHECK_AHEAD_MIN`` stories, or with a support judge other than the
built-in deterministic one (a judge that calls out over the network keeps its session in
one process).
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import logging
import multiprocessing
import time
from contextvars import ContextVar

from django.conf import settings
from django.db import connections

from newsroom.fields import OrderedJSONField

from .pool import LOOK_SECONDS, QuietPool

DETERMINISTIC_JUDGE = "stories.checks.meaning.judge.DeterministicJudge"
CHUNK = 4  # stories a worker takes at a time
FREE, A_WORKERS, HERE = 0, 1, 2  # who took a story (``Ahead``'s claims)
WAIT_SECONDS = 120  # a worker that has not answered by then is given up (its stories checked here)

# What a worker inherits through the fork: (the batch's reads, story id -> revision, the
# criteria to run, story id -> the revision validated or None, who took each story, story
# id -> its place in the batch, story id -> the digest of its revision).
_PLAN: tuple | None = None
_AHEAD: ContextVar[Ahead | None] = ContextVar("checks_ahead", default=None)
log = logging.getLogger(__name__)


class WorkerQuery(Exception):
    """A worker process tried to read the database."""


def digest(revision: dict) -> str:
    """The digest of a revision as stored (``OrderedJSONField``)."""
    return text_digest(OrderedJSONField.text(revision))


def text_digest(text: str) -> str:
    """The digest of a revision's stored text."""
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def _refuse(execute, sql, params, many, context):
    raise WorkerQuery("a checks worker does not read the database")


def validated(revision: dict) -> dict | None:
    """The revision validated (``desk.validate``), or None when it is not valid: its error is
    then raised where the story is checked, as it would be without the workers."""
    from stories import desk

    try:
        return desk.validate(revision)
    except Exception:
        return None


def _run(reads, revision: dict, story_id: str, criteria, doc: dict | None = None) -> dict:
    """The results of ``criteria`` for a story's revision, by name, read from the batch;
    ``doc``, when given, is that revision validated."""
    from stories import desk

    from .base import CheckContext
    from .batch import batch_reads

    with batch_reads(reads):
        ctx = CheckContext(doc if doc is not None else desk.validate(revision), exclude_story_id=story_id)
        return {c.name: c.run(ctx).as_dict() for c in criteria}


def _worker_start() -> None:
    """A worker's first step: what it inherited from the importing process (the batch's
    reads and revisions, the loaded code) is set aside from the cyclic garbage collector,
    and the collector is turned off. A worker lives for one run of at most a few hundred
    stories: what it allocates is freed by reference counts as each story is checked, and
    whatever a reference cycle holds is freed when the worker exits at the run's end, so
    the collector's passes over the run's objects (a few tens of milliseconds each) found
    nothing to free. Its memory stays bounded by the run."""
    gc.freeze()
    gc.disable()


def _check(story_id: str) -> tuple[str, str | None, dict | None]:
    """In a worker: the results of the criteria ahead for ``story_id``'s revision, by name
    (None when the importing process took the story first)."""
    try:
        reads, revisions, criteria, docs, claims, positions, digests = _PLAN
        with claims.get_lock():
            if claims[positions[story_id]] != FREE:
                return story_id, None, None
            claims[positions[story_id]] = A_WORKERS
        revision = revisions[story_id]  # the fork's copy of the revision the digest was made from
        with contextlib.ExitStack() as stack:
            for alias in connections:
                stack.enter_context(connections[alias].execute_wrapper(_refuse))
            return story_id, digests[story_id], _run(reads, revision, story_id, criteria, docs.get(story_id))
    except Exception:  # a refused query or any other failure: the importing process checks it
        return story_id, None, None


def _check_many(story_ids: list[str]) -> list[tuple[str, str | None, dict | None]]:
    return [_check(story_id) for story_id in story_ids]


class Ahead:
    """The workers' results, taken in the order the stories were handed to them.

    While the next result is not ready, the importing process checks the batch's stories
    itself, from the last one back (``plan``: the batch's reads, story id -> revision, the
    criteria, story id -> the revision validated or None; ``claims``: who took each story,
    shared with the workers), until it meets the stories the workers have begun."""

    def __init__(
        self, pool, story_ids: list[str], *, plan: tuple | None = None, claims=None, digests: dict | None = None
    ):
        self.pool = pool
        self.workers = list(getattr(pool, "_pool", ()))  # the processes forked for the batch
        self.digests = digests or {}  # story id -> the digest of the revision handed over
        self.order = list(story_ids)
        self.waiting = set(story_ids)
        chunks = [story_ids[i : i + CHUNK] for i in range(0, len(story_ids), CHUNK)]
        self.chunks = pool.imap(_check_many, chunks)  # in order, each with a time-out
        self.ready: list = []
        self.plan, self.claims = plan, claims
        self.back = len(story_ids) if plan is not None and claims is not None else 0
        self.here: dict[str, tuple[dict, dict | None]] = {}  # checked here: id -> (revision, results)
        self.documents: dict[str, dict] = {}  # taken: id -> the revision handed over, validated

    def take(self, story_id: str, revision: dict) -> dict | None:
        """The results for ``story_id`` if they were computed from ``revision``. When
        ``revision`` is the very one handed over, its validated document is kept for
        ``document``."""
        handed = self.plan[1].get(story_id) if self.plan is not None else None
        try:
            return self._results(story_id, revision, handed)
        finally:
            # Kept no longer; dropped only now: while its chunk is awaited, the story may be
            # the last one no worker has begun, and be checked here from its revision.
            if self.plan is not None:
                self.plan[1].pop(story_id, None)
                doc = self.plan[3].pop(story_id, None)
                if doc is not None and handed is revision:
                    self.documents[story_id] = doc

    def _results(self, story_id: str, revision: dict, handed: dict | None) -> dict | None:
        planned = self.digests.pop(story_id, None)
        if story_id in self.here:
            return self._checked_here(story_id, revision)
        if story_id not in self.waiting:
            return None
        while self.waiting:
            if not self.ready:
                chunk = self._next_chunk()
                if chunk is None:
                    return self._checked_here(story_id, revision)
                self.ready = list(reversed(chunk))
            sid, seen, results = self.ready.pop()
            self.waiting.discard(sid)
            if sid == story_id:
                if seen is None:  # checked here while its chunk was awaited, or not at all
                    return self._checked_here(story_id, revision)
                # The revision handed over (whose digest was made as it was stored), or one
                # serialised again to compare.
                return results if seen == (planned if revision is handed else digest(revision)) else None
        return None

    def _checked_here(self, story_id: str, revision: dict) -> dict | None:
        """The results of ``_check_one_here`` for the story, if it was checked here from
        ``revision`` (or an equal one)."""
        if story_id not in self.here:
            return None
        checked, results = self.here.pop(story_id)
        return results if checked is revision or digest(checked) == digest(revision) else None

    def document(self, story_id: str) -> dict | None:
        """The validated document of the revision taken for ``story_id``, once."""
        return self.documents.pop(story_id, None)

    def _next_chunk(self) -> list | None:
        """The workers' next chunk of results, checking stories here while it is not ready;
        None when the workers are given up (every story left is checked here): when one of
        them exited (killed, or out of memory: the chunk it held never comes), or when none
        answered within ``WAIT_SECONDS`` of the last story here being taken."""
        deadline = None
        while True:
            stealing = self.back > 0
            if not stealing and deadline is None:
                deadline = time.monotonic() + WAIT_SECONDS
            try:
                return self.chunks.next(timeout=0 if stealing else LOOK_SECONDS)
            except Exception as error:  # not ready yet, past the last chunk, or a chunk that failed
                if stealing:
                    self._check_one_here()
                    continue
                if isinstance(error, (multiprocessing.TimeoutError, TimeoutError)):
                    exited = self._exited()
                    if not exited and time.monotonic() < deadline:
                        continue
                    why = f"worker {exited[0]} exited" if exited else f"no answer in {WAIT_SECONDS} s"
                else:
                    why = f"{type(error).__name__}: {error}"
            log.warning("the checks' workers are given up (%s): the batch's stories left are checked here", why)
            self.waiting.clear()  # every story left is checked here,
            self.pool.terminate()  # and no worker goes on with them
            return None

    def _exited(self) -> list[int]:
        """The process ids of the batch's workers that exited."""
        return [p.pid for p in self.workers if p.exitcode is not None]

    def _check_one_here(self) -> None:
        """Check here the last story of the batch that no worker has begun, if any."""
        reads, revisions, criteria, docs = self.plan
        lock = self.claims.get_lock()
        while self.back > 0:
            # A worker killed while it held the flags' lock never frees it: once one has
            # exited, nothing more is taken here, and ``_next_chunk`` gives the workers up.
            while not lock.acquire(timeout=LOOK_SECONDS):
                if self._exited():
                    self.back = 0
                    return
            try:
                self.back -= 1
                if self.claims[self.back] != FREE:
                    self.back = 0  # the workers go in order: they have begun every story before it
                    return
                self.claims[self.back] = HERE
            finally:
                lock.release()
            sid = self.order[self.back]
            if sid in self.waiting:
                revision = revisions[sid]
                try:
                    results = _run(reads, revision, sid, criteria, docs.get(sid))
                except Exception:  # checked again, in full, when its turn comes
                    results = None
                self.here[sid] = (revision, results)
                return


def workers_for(count: int) -> int:
    if count < settings.IMPORT_CHECK_AHEAD_MIN or settings.IMPORT_CHECK_WORKERS < 1:
        return 0
    if "fork" not in multiprocessing.get_all_start_methods():
        return 0
    if getattr(settings, "CHECKS_JUDGE", DETERMINISTIC_JUDGE) != DETERMINISTIC_JUDGE:
        return 0
    return settings.IMPORT_CHECK_WORKERS


@contextlib.contextmanager
def checked_ahead(reads, revisions: list[tuple[str, dict, str | None]], criteria):
    """The block is given the workers' ``Ahead`` (None when nothing runs ahead): within
    ``taking`` it, ``take(story_id, revision)`` gives their results of
    ``criteria`` for the stories of ``revisions`` ((story id, revision, the revision as
    stored or None) in the order they will be checked), whose checks read ``reads``
    (``checks.batch.BatchReads``). A stored text given must be the revision's
    (``OrderedJSONField.text``), and the revision must not change afterwards: its digest,
    made from the text, stands for it."""
    global _PLAN
    workers = workers_for(len(revisions))
    if not workers:
        yield None
        return
    context = multiprocessing.get_context("fork")
    # Each revision validated once, here, for the workers and for the publish that records
    # its rubric (``taken_document``).
    docs = {sid: validated(revision) for sid, revision, _ in revisions}
    plan = (reads, {sid: revision for sid, revision, _ in revisions}, tuple(criteria), docs)
    digests = {sid: text_digest(text) if text is not None else digest(revision) for sid, revision, text in revisions}
    try:
        claims = context.Array("b", len(revisions))  # shared memory, zeroed: every story free
        _PLAN = (*plan, claims, {sid: i for i, (sid, _, _) in enumerate(revisions)}, digests)
        pool = QuietPool(workers, initializer=_worker_start, context=context)
    except (OSError, RuntimeError):
        # No process could be forked (memory, process limits), no thread of the pool started,
        # or no semaphore could be made for the shared flags (no room, or no /dev/shm, where
        # they live): every story is checked here.
        pool = None
    finally:
        _PLAN = None  # the workers have their copies
    if pool is None:
        yield None
        return
    ids = [sid for sid, _, _ in revisions]
    del revisions  # their stored texts are not kept here
    try:
        yield Ahead(pool, ids, plan=plan, claims=claims, digests=digests)
    finally:
        pool.terminate()
        pool.join()


@contextlib.contextmanager
def taking(ahead: Ahead | None):
    """Within the block, ``take`` answers from ``ahead`` (``checked_ahead``'s): the batch
    being published, while the workers of the next may already be checking it."""
    token = _AHEAD.set(ahead)
    try:
        yield ahead
    finally:
        _AHEAD.reset(token)


def take(story_id: str, revision: dict | None) -> dict | None:
    """The workers' results for the story's criteria ahead, or None (run them here)."""
    ahead = _AHEAD.get()
    if ahead is None or revision is None:
        return None
    return ahead.take(story_id, revision)


def taken_document(story_id: str) -> dict | None:
    """The validated document of the revision just taken for ``story_id`` (``take``), when it
    was the revision handed over and valid; None otherwise (validate it here)."""
    ahead = _AHEAD.get()
    return ahead.document(story_id) if ahead is not None else None
