"""The checks of a bulk import's batch, run ahead in worker processes.

The bulk import publishes the new stories of a batch one after the other, each through the
publish action, which checks the story and records its rubric. The criteria that read
nothing but the story's revision and the batch's manifests and claims (all of them but
``not_a_repeat``, whose candidates include the stories of the batch published before it)
cost most of a story's time and depend on nothing the batch writes, so within
``checked_ahead`` they are run for the whole batch in ``IMPORT_CHECK_WORKERS`` forked
worker processes while the importing process publishes. The importing process still runs
the checks of each story through ``check_and_record``: it takes a worker's results for
those criteria only when they were computed from the same revision (compared by digest),
runs ``not_a_repeat`` and any criterion a worker could not compute itself, and records the
rubric as usual (tests/stories/test_gate_imports_ahead.py: the rubrics equal those of the
checks run in process, planted faults included).

A worker never touches the database: it reads what the batch loaded before the fork
(``checks.batch``), and a query is refused before anything is sent, leaving that story to
the importing process. Nothing runs ahead where processes cannot be forked, for a batch of
fewer than ``IMPORT_CHECK_AHEAD_MIN`` stories, or with a support judge other than the
built-in deterministic one (a judge that calls out over the network keeps its session in
one process).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import multiprocessing
from contextvars import ContextVar

from django.conf import settings
from django.db import connections

DETERMINISTIC_JUDGE = "stories.checks.meaning.judge.DeterministicJudge"
CHUNK = 4  # stories a worker takes at a time
WAIT_SECONDS = 120  # a worker that has not answered by then is given up (its stories checked here)

# What a worker inherits through the fork: (the batch's reads, story id -> revision, the
# criteria to run).
_PLAN: tuple | None = None
_AHEAD: ContextVar[Ahead | None] = ContextVar("checks_ahead", default=None)


class WorkerQuery(Exception):
    """A worker process tried to read the database."""


def digest(revision: dict) -> str:
    return hashlib.blake2b(json.dumps(revision, ensure_ascii=False).encode(), digest_size=16).hexdigest()


def _refuse(execute, sql, params, many, context):
    raise WorkerQuery("a checks worker does not read the database")


def _check(story_id: str) -> tuple[str, str | None, dict | None]:
    """In a worker: the results of the criteria ahead for ``story_id``'s revision, by name."""
    from stories import desk

    from .base import CheckContext
    from .batch import batch_reads

    try:
        reads, revisions, criteria = _PLAN
        revision = revisions[story_id]
        with contextlib.ExitStack() as stack:
            for alias in connections:
                stack.enter_context(connections[alias].execute_wrapper(_refuse))
            stack.enter_context(batch_reads(reads))
            seen = digest(revision)
            ctx = CheckContext(desk.validate(revision), exclude_story_id=story_id)
            return story_id, seen, {c.name: c.run(ctx).as_dict() for c in criteria}
    except Exception:  # a refused query or any other failure: the importing process checks it
        return story_id, None, None


def _check_many(story_ids: list[str]) -> list[tuple[str, str | None, dict | None]]:
    return [_check(story_id) for story_id in story_ids]


class Ahead:
    """The workers' results, taken in the order the stories were handed to them."""

    def __init__(self, pool, story_ids: list[str]):
        self.pool = pool
        self.waiting = set(story_ids)
        chunks = [story_ids[i : i + CHUNK] for i in range(0, len(story_ids), CHUNK)]
        self.chunks = pool.imap(_check_many, chunks)  # in order, each with a time-out
        self.ready: list = []

    def take(self, story_id: str, revision: dict) -> dict | None:
        """The results for ``story_id`` if a worker computed them from ``revision``."""
        if story_id not in self.waiting:
            return None
        while self.waiting:
            if not self.ready:
                try:
                    self.ready = list(reversed(self.chunks.next(timeout=WAIT_SECONDS)))
                except Exception:  # a worker timed out or is gone
                    self.waiting.clear()  # every story left is checked here,
                    self.pool.terminate()  # and no worker goes on with them
                    return None
            sid, seen, results = self.ready.pop()
            self.waiting.discard(sid)
            if sid == story_id:
                return results if seen is not None and seen == digest(revision) else None
        return None


def workers_for(count: int) -> int:
    if count < settings.IMPORT_CHECK_AHEAD_MIN or settings.IMPORT_CHECK_WORKERS < 1:
        return 0
    if "fork" not in multiprocessing.get_all_start_methods():
        return 0
    if getattr(settings, "CHECKS_JUDGE", DETERMINISTIC_JUDGE) != DETERMINISTIC_JUDGE:
        return 0
    return settings.IMPORT_CHECK_WORKERS


@contextlib.contextmanager
def checked_ahead(reads, revisions: list[tuple[str, dict]], criteria):
    """Within the block, ``take(story_id, revision)`` gives the workers' results of
    ``criteria`` for the stories of ``revisions`` ((story id, revision) in the order they
    will be checked), whose checks read ``reads`` (``checks.batch.BatchReads``)."""
    global _PLAN
    workers = workers_for(len(revisions))
    if not workers:
        yield None
        return
    _PLAN = (reads, dict(revisions), tuple(criteria))
    try:
        pool = multiprocessing.get_context("fork").Pool(workers)
    except OSError:  # no process could be forked (memory, process limits): check them here
        pool = None
    finally:
        _PLAN = None  # the workers have their copies; this process needs none
    if pool is None:
        yield None
        return
    token = _AHEAD.set(Ahead(pool, [sid for sid, _ in revisions]))
    try:
        yield _AHEAD.get()
    finally:
        _AHEAD.reset(token)
        pool.terminate()
        pool.join()


def take(story_id: str, revision: dict | None) -> dict | None:
    """The workers' results for the story's criteria ahead, or None (run them here)."""
    ahead = _AHEAD.get()
    if ahead is None or revision is None:
        return None
    return ahead.take(story_id, revision)
