"""The checks of an import's batch run ahead in forked worker processes (``checks.ahead``):
the rubrics equal those of the checks run in the importing process, planted faults included;
a worker's results are taken only for the revision they were computed from; a worker that
would read the database leaves its stories to the importing process."""

import io
import os
import time

import pytest
from django.db import connection

from stories.checks import ahead
from stories.checks.ahead import Ahead, digest, text_digest
from stories.checks.runner import AHEAD_CRITERIA
from stories.models import Revision, Story
from tests.stories.test_gate_imports_batch import faulty_docs, rubrics, write

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


@pytest.fixture
def taken(monkeypatch):
    """What ``Ahead.take`` handed back, story by story (None: checked in process)."""
    seen = []
    take = Ahead.take
    monkeypatch.setattr(Ahead, "take", lambda self, sid, rev: seen.append(r := take(self, sid, rev)) or r)
    return seen


@pytest.fixture
def workers(settings):
    settings.IMPORT_CHECK_WORKERS = 1
    settings.IMPORT_CHECK_AHEAD_MIN = 1
    return settings


def test_rubrics_checked_ahead_equal_those_checked_in_process(tmp_path, demo, story_doc, workers, taken):
    docs = faulty_docs(story_doc)
    ahead_rubrics = rubrics(tmp_path, docs)
    assert len(taken) == len(docs) and all(r is not None for r in taken)  # every story's criteria came ahead
    assert set(taken[0]) == {c.name for c in AHEAD_CRITERIA} and "not_a_repeat" not in taken[0]
    Story.objects.exclude(pk=demo.pk).delete()
    workers.IMPORT_CHECK_WORKERS = 0
    taken.clear()
    in_process = rubrics(tmp_path, docs)
    assert taken == []  # no workers, nothing taken
    assert ahead_rubrics == in_process
    failed = {
        pk: [c["name"] for c in r["criteria"] if not c["passed"]]
        for pk, r in ahead_rubrics.items()
        if pk != "published"
    }
    assert failed["911"] == ["claims_support"] and failed["912"] == ["paragraphs_cited"]
    assert failed["914"] == ["manifests_recent"] and failed["921"] == ["not_a_repeat"]


def test_each_revision_is_serialised_once_for_its_digest_and_its_row(
    tmp_path, demo, story_doc, workers, taken, monkeypatch
):
    """The digest that stands for a revision handed to the workers is made from the text that
    is stored: neither the workers nor the importing process serialise it again to compare
    (here doing so would fail, and the story would be checked in process)."""
    from newsroom.fields import OrderedJSONField

    made = []
    text = OrderedJSONField.text
    monkeypatch.setattr(OrderedJSONField, "text", staticmethod(lambda value: made.append(t := text(value)) or t))

    def serialised_again(revision):
        raise AssertionError("a revision serialised again to compare")

    monkeypatch.setattr(ahead, "digest", serialised_again)
    docs = faulty_docs(story_doc)
    rubrics(tmp_path, docs)
    assert len(taken) == len(docs) and all(r is not None for r in taken)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT data FROM {Revision._meta.db_table} WHERE version = 1 AND story_id != %s", [demo.pk])
        stored = sorted(text_digest(row[0]) for row in cursor.fetchall())
    assert stored == sorted(text_digest(t) for t in made) and len(made) == len(docs)


def test_each_revision_is_validated_once_for_the_workers_and_its_publish(
    tmp_path, demo, story_doc, workers, taken, monkeypatch
):
    """A revision handed to the workers is validated once, before the fork: the workers and
    the publish that records its rubric use that document (here a worker validating again
    would fail, and the story would be checked in process)."""
    from stories import desk

    importing, validated = os.getpid(), []
    validate = desk.validate

    def counted(data):
        if os.getpid() != importing:
            raise AssertionError("a worker validated a revision again")
        validated.append(data.get("id"))
        return validate(data)

    monkeypatch.setattr(desk, "validate", counted)
    docs = faulty_docs(story_doc)
    rubrics(tmp_path, docs)
    assert len(taken) == len(docs) and all(r is not None for r in taken)
    assert sorted(validated) == sorted(doc["id"] for doc in docs)  # once each


def test_a_revision_that_fails_validation_before_the_fork_fails_where_it_did(
    tmp_path, demo, story_doc, workers, taken, monkeypatch
):
    """A revision the validation refuses before the workers start is checked at its publish
    as without them: the same error, at the same point, and nothing imported."""
    from django.core.management import CommandError, call_command

    from stories import desk

    validate, validated, refused = desk.validate, ahead.validated, []

    def planted(data):
        if data.get("id") == "913":
            raise desk.DeskError("$", "planted")
        return validate(data)

    def spied(revision):
        doc = validated(revision)
        if doc is None:
            refused.append(revision["id"])
        return doc

    monkeypatch.setattr(desk, "validate", planted)
    monkeypatch.setattr(ahead, "validated", spied)
    path, errors = str(write(tmp_path, faulty_docs(story_doc))), []
    for count in (1, 0):
        workers.IMPORT_CHECK_WORKERS = count
        stderr = io.StringIO()
        with pytest.raises(CommandError, match="rejected"):
            call_command("import_stories", path, stdout=io.StringIO(), stderr=stderr)
        errors.append(stderr.getvalue())
        assert not Story.objects.exclude(pk=demo.pk).exists()
    assert refused == ["913"]  # refused before the fork, with the workers
    assert errors[0] == errors[1] and "planted" in errors[0]


def test_a_worker_that_would_read_the_database_leaves_the_story_here(
    tmp_path, demo, story_doc, workers, taken, monkeypatch
):
    from stories.checks.batch import BatchReads

    docs = faulty_docs(story_doc)
    expected = rubrics(tmp_path, docs)  # ahead, as above
    Story.objects.exclude(pk=demo.pk).delete()
    taken.clear()
    # The batch no longer covers the sources: the checks' context queries them, which a
    # worker refuses before sending anything; the importing process reads them itself (and
    # here takes none of the workers' stories ahead of them).
    monkeypatch.setattr(BatchReads, "sources", lambda self, manifest_ids, claim_ids: None)
    monkeypatch.setattr(Ahead, "_check_one_here", lambda self: setattr(self, "back", 0))
    assert rubrics(tmp_path, docs) == expected
    assert len(taken) == len(docs) and all(r is None for r in taken)
    with connection.cursor() as cursor:  # the importing process's connection still answers
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


def test_while_a_worker_is_busy_the_importing_process_checks_from_the_back(
    tmp_path, demo, story_doc, workers, taken, monkeypatch
):
    importing = os.getpid()
    run = ahead._run

    def slow_in_a_worker(*args):
        if os.getpid() != importing:
            time.sleep(0.5)
        return run(*args)

    monkeypatch.setattr(ahead, "_run", slow_in_a_worker)
    here = []
    check_one_here = Ahead._check_one_here
    monkeypatch.setattr(Ahead, "_check_one_here", lambda self: here.append(self.back) or check_one_here(self))
    docs = faulty_docs(story_doc)
    shared = rubrics(tmp_path, docs)
    assert len(taken) == len(docs) and all(r is not None for r in taken)  # each computed once, somewhere
    assert here[:3] == [len(docs), len(docs) - 1, len(docs) - 2]  # from the last story back
    Story.objects.exclude(pk=demo.pk).delete()
    workers.IMPORT_CHECK_WORKERS = 0
    assert rubrics(tmp_path, docs) == shared


def test_a_worker_sets_aside_what_it_inherited_and_runs_without_the_collector(
    tmp_path, demo, story_doc, workers, monkeypatch
):
    """A worker freezes what it inherited through the fork and turns the cyclic collector
    off before it checks a story; the importing process keeps its collector and its own
    objects unfrozen."""
    import gc

    importing = os.getpid()
    run = ahead._run

    def recording(*args):
        if os.getpid() != importing:
            state = f"{gc.get_freeze_count()} {int(gc.isenabled())}"
            (tmp_path / f"worker-{os.getpid()}").write_text(state)
        return run(*args)

    monkeypatch.setattr(ahead, "_run", recording)
    monkeypatch.setattr(Ahead, "_check_one_here", lambda self: setattr(self, "back", 0))
    frozen_here, enabled_here = gc.get_freeze_count(), gc.isenabled()
    rubrics(tmp_path, faulty_docs(story_doc))
    states = [p.read_text().split() for p in tmp_path.glob("worker-*")]
    assert states and all(int(frozen) > 0 and enabled == "0" for frozen, enabled in states)
    assert gc.get_freeze_count() == frozen_here  # the importing process's own objects are not frozen
    assert gc.isenabled() == enabled_here


def test_the_workers_start_before_the_rows_are_written(tmp_path, demo, story_doc, workers, taken, monkeypatch):
    """The revisions of version 1 are rendered before the batch's rows are written, and the
    workers check them while the rows are written; the rubrics are those checked in process."""
    from stories.actions import imports

    docs = faulty_docs(story_doc)
    ids = [d["id"] for d in docs]
    stored_at_start, real = [], imports.checks_ahead

    def starting(reads, revisions):
        stored_at_start.append(Story.objects.filter(id__in=ids).count())
        return real(reads, revisions)

    monkeypatch.setattr(imports, "checks_ahead", starting)
    ahead_rubrics = rubrics(tmp_path, docs)
    assert stored_at_start == [0]  # not one of the batch's rows was written yet
    assert len(taken) == len(docs) and all(r is not None for r in taken)
    Story.objects.exclude(pk=demo.pk).delete()
    workers.IMPORT_CHECK_WORKERS = 0
    assert rubrics(tmp_path, docs) == ahead_rubrics


def test_a_batch_the_database_refuses_stops_its_workers(tmp_path, demo, story_doc, workers, taken, monkeypatch):
    """The workers began on revisions that were rolled back: they are stopped, and the
    stories, imported one by one, are checked in process, with the same rubrics."""
    from django.db import IntegrityError

    from stories.actions import rows

    docs = faulty_docs(story_doc)
    expected = rubrics(tmp_path, docs)
    Story.objects.exclude(pk=demo.pk).delete()
    taken.clear()
    real, terminated = rows.write_parts, []

    def refuse_the_batch(pairs, **kwargs):
        if len(pairs) > 1:
            raise IntegrityError("refused")
        return real(pairs, **kwargs)

    monkeypatch.setattr(rows, "write_parts", refuse_the_batch)
    terminate = ahead.multiprocessing.pool.Pool.terminate
    monkeypatch.setattr(ahead.multiprocessing.pool.Pool, "terminate", lambda p: terminated.append(p) or terminate(p))
    assert rubrics(tmp_path, docs) == expected
    assert terminated  # the batch's workers were stopped
    assert taken == []  # nothing checked ahead was used: each story was checked on its own


class Chunks:
    """A pool's ordered results, as ``Pool.imap`` gives them (``next`` with a time-out)."""

    def __init__(self, chunks, fail_after=None):
        self.chunks, self.fail_after = list(chunks), fail_after

    def next(self, timeout=None):
        if self.fail_after is not None and not self.fail_after:
            raise TimeoutError("the worker did not answer")
        if self.fail_after:
            self.fail_after -= 1
        return self.chunks.pop(0)


class Pool:
    def __init__(self, chunks):
        self.chunks, self.terminated = chunks, False

    def imap(self, fn, chunks):
        return self.chunks

    def terminate(self):
        self.terminated = True


def test_results_are_taken_only_for_the_revision_they_were_computed_from():
    revisions = {sid: {"id": sid, "headline": f"Story {sid}"} for sid in "abc"}
    results = [
        (sid, digest(rev), {"claims_support": {"name": "claims_support", "sid": sid}}) for sid, rev in revisions.items()
    ]
    got = Ahead(Pool(Chunks([results[:2], results[2:]])), list("abc"))
    assert got.take("a", revisions["a"]) == results[0][2]
    assert got.take("b", {**revisions["b"], "headline": "Changed since"}) is None  # another revision
    assert got.take("z", revisions["a"]) is None  # not a story of the batch
    assert got.take("c", revisions["c"]) == results[2][2]
    assert got.take("c", revisions["c"]) is None  # taken once


def test_the_revision_handed_over_is_known_by_its_digest_and_another_is_serialised_to_compare():
    revisions = {sid: {"id": sid, "headline": f"Story {sid}"} for sid in "abc"}
    digests = {sid: digest(rev) for sid, rev in revisions.items()}
    results = [(sid, digests[sid], {"x": sid}) for sid in revisions]
    plan = (None, dict(revisions), (), {})
    got = Ahead(Pool(Chunks([results])), list("abc"), plan=plan, digests=dict(digests))
    got.back = 0  # nothing checked here
    assert got.take("a", revisions["a"]) == {"x": "a"}  # the very revision handed over
    assert got.take("b", dict(revisions["b"])) == {"x": "b"}  # an equal copy, compared by its digest
    assert got.take("c", {**revisions["c"], "headline": "Changed since"}) is None


def test_a_worker_that_does_not_answer_leaves_the_rest_here(monkeypatch, caplog):
    monkeypatch.setattr(ahead, "WAIT_SECONDS", 0)
    revisions = {sid: {"id": sid} for sid in "abcdef"}
    results = [(sid, digest(rev), {"x": sid}) for sid, rev in revisions.items()]
    pool = Pool(Chunks([results[:4], results[4:]], fail_after=1))
    got = Ahead(pool, list("abcdef"))
    assert got.take("b", revisions["b"]) == {"x": "b"}  # a's result is passed over: a was not checked
    assert not pool.terminated
    assert got.take("e", revisions["e"]) is None  # the second chunk never came
    assert pool.terminated  # the workers stop: nobody will read what they compute
    assert got.take("f", revisions["f"]) is None
    assert "given up (no answer in 0 s)" in caplog.text


def test_a_worker_that_dies_is_given_up_at_once_and_its_stories_checked_here(
    tmp_path, demo, story_doc, workers, taken, monkeypatch, caplog
):
    """A worker killed mid-batch (the kernel's out-of-memory killer, an operator) never
    answers for the chunk it held: the importing process notices the exit instead of waiting
    out ``WAIT_SECONDS``, and checks the batch's stories left itself, with the same rubrics."""
    import multiprocessing

    docs = faulty_docs(story_doc)
    expected = rubrics(tmp_path, docs)
    Story.objects.exclude(pk=demo.pk).delete()
    taken.clear()
    parent, run, victim = os.getpid(), ahead._run, docs[ahead.CHUNK + 1]["id"]  # in the second chunk

    def dying(reads, revision, sid, criteria, doc=None):
        if os.getpid() != parent and sid == victim:
            os._exit(9)  # the worker is gone, the chunk it held with it
        return run(reads, revision, sid, criteria, doc)

    monkeypatch.setattr(ahead, "_run", dying)
    monkeypatch.setattr(Ahead, "_check_one_here", lambda self: setattr(self, "back", 0))  # every story ahead
    monkeypatch.setattr(ahead, "WAIT_SECONDS", 60)  # longer than the test takes: not what gave the worker up
    assert rubrics(tmp_path, docs) == expected
    assert "exited): the batch's stories left are checked here" in caplog.text
    first = ahead.CHUNK  # the first chunk came; from the victim's chunk on, every story was checked here
    assert len(taken) == len(docs) > first + 1
    assert all(r is not None for r in taken[:first]) and taken[first:] == [None] * (len(docs) - first)
    assert multiprocessing.active_children() == []


_QUEUES = {}  # the results' queue of the pool below, for its workers to find


class ResultsQueueShown(ahead.QuietPool):
    def _setup_queues(self):
        super()._setup_queues()
        _QUEUES["results"] = self._outqueue  # before the workers are forked: they inherit it


def _die_sending(_):
    """In a worker: die halfway through sending a result (holding the results' write lock)."""
    _QUEUES["results"]._wlock.acquire()
    os._exit(9)


def _die_halfway_sent(_):
    """In a worker: die with a result half sent (its length and part of it in the pipe), as a
    worker killed in a write the full pipe held up, or between a large result's two writes."""
    import struct

    _QUEUES["results"]._wlock.acquire()
    os.write(_QUEUES["results"]._writer.fileno(), struct.pack("!i", 40000) + b"\x80" * 1000)
    os._exit(9)


def _killed_waiting(pool):
    """A worker killed while it waits for a task (holding the tasks' read lock)."""
    import signal

    assert pool.map(abs, [-1, -2]) == [1, 2]
    deadline = time.monotonic() + 10
    while pool._inqueue._rlock.acquire(block=False):  # until the worker waits for its next task
        pool._inqueue._rlock.release()
        assert time.monotonic() < deadline
        time.sleep(0.01)
    (worker,) = pool._pool
    os.kill(worker.pid, signal.SIGKILL)
    return worker


def _killed_sending(pool):
    (worker,) = pool._pool
    pool.map_async(_die_sending, [1])
    return worker


def _killed_halfway_sent(pool):
    (worker,) = pool._pool
    pool.map_async(_die_halfway_sent, [1])
    return worker


@pytest.mark.parametrize(
    "killed", [_killed_waiting, _killed_sending, _killed_halfway_sent], ids=["waiting", "sending", "half-sent"]
)
def test_a_worker_killed_holding_a_queues_lock_does_not_hang_the_pools_end(killed):
    """A worker killed while it holds one of the queues' locks never frees it; the pool's end
    (as an import gives its workers up, or ends a run) frees it instead of waiting for it."""
    import multiprocessing
    import threading

    pool = ResultsQueueShown(1, context=multiprocessing.get_context("fork"))
    worker = killed(pool)
    deadline = time.monotonic() + 10
    while worker.exitcode is None:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    ending = threading.Thread(target=pool.terminate, daemon=True)
    ending.start()
    ending.join(10)  # a bound on a hang, not a timing: it ends in a fraction of a second
    assert not ending.is_alive(), "the pool's end waits for a lock the dead worker held"
    pool.join()
    assert multiprocessing.active_children() == []


_FLAGS = {}  # the claims' flags of the run below, for its workers to find


def _die_holding_the_flags(_):
    """In a worker: die holding the lock of the flags that say who took each story."""
    _FLAGS["claims"].get_lock().acquire()
    os._exit(9)


def test_a_worker_killed_holding_the_flags_lock_is_given_up(monkeypatch):
    """The importing process, checking stories from the back while it waits, does not wait
    forever for the lock of the flags a killed worker held: the workers are given up."""
    import multiprocessing
    import threading

    context = multiprocessing.get_context("fork")
    revisions = {sid: {"id": sid} for sid in "abcdefgh"}
    claims = _FLAGS["claims"] = context.Array("b", len(revisions))
    monkeypatch.setattr(ahead, "_check_many", _die_holding_the_flags)
    monkeypatch.setattr(ahead, "_run", lambda *args: {"x": 1})
    pool = ahead.QuietPool(1, context=context)
    (worker,) = pool._pool
    got = Ahead(pool, list(revisions), plan=(None, dict(revisions), (), {}), claims=claims)
    worker.join(10)
    assert worker.exitcode is not None
    taking = threading.Thread(target=got.take, args=("a", revisions["a"]), daemon=True)
    taking.start()
    taking.join(10)  # a bound on a hang
    assert not taking.is_alive(), "the importing process waits for the flags' lock the dead worker held"
    pool.terminate()
    pool.join()
    assert multiprocessing.active_children() == []


class LateChunks(Chunks):
    """Results not ready for the first ``misses`` looks."""

    def __init__(self, chunks, misses):
        super().__init__(chunks)
        self.misses = misses

    def next(self, timeout=None):
        if self.misses:
            self.misses -= 1
            raise TimeoutError("not ready yet")
        return super().next(timeout)


def test_the_story_being_taken_may_be_checked_here_while_its_chunk_is_awaited(monkeypatch):
    """With the workers' first chunk late, the importing process checks the batch from the
    back, down to the story it is taking: that one is checked from its revision too, and its
    results are the ones taken (the worker, finding it taken, returns none for it)."""
    import multiprocessing

    revisions = {sid: {"id": sid} for sid in "ab"}
    monkeypatch.setattr(ahead, "_run", lambda reads, revision, sid, criteria, doc=None: {"x": revision["id"]})
    claims = multiprocessing.get_context("fork").Array("b", 2)
    plan = (None, dict(revisions), (), {sid: {"validated": sid} for sid in revisions})
    chunks = LateChunks([[("a", None, None), ("b", None, None)]], misses=2)
    got = Ahead(
        Pool(chunks), list("ab"), plan=plan, claims=claims, digests={s: digest(r) for s, r in revisions.items()}
    )
    assert got.take("a", revisions["a"]) == {"x": "a"}  # b, then a itself, checked here
    assert list(claims) == [ahead.HERE, ahead.HERE]
    assert got.document("a") == {"validated": "a"}
    assert got.take("b", revisions["b"]) == {"x": "b"}
    assert got.take("b", revisions["b"]) is None  # taken once
    assert plan[1] == {} and plan[3] == {}  # nothing kept once taken


def test_the_pools_worker_handler_waits_while_results_come(tmp_path, demo, story_doc, workers, taken, monkeypatch):
    """The thread that keeps a pool's workers goes round its loop when a worker exits or the
    pool's state changes, not for every result the workers send: a handful of times a run,
    however many chunks of results come back."""
    import multiprocessing.pool

    rounds = []
    maintain = multiprocessing.pool.Pool._maintain_pool

    def counted(*args):
        rounds.append(1)
        return maintain(*args)

    monkeypatch.setattr(multiprocessing.pool.Pool, "_maintain_pool", staticmethod(counted))
    monkeypatch.setattr(Ahead, "_check_one_here", lambda self: setattr(self, "back", 0))  # every story ahead
    docs = [d for _ in range(4) for d in faulty_docs(story_doc)]
    for i, doc in enumerate(docs):
        doc.update(id=str(700 + i), slug=f"{doc['slug']}-{i}")
    rubrics(tmp_path, docs)
    assert len(taken) == len(docs) and all(r is not None for r in taken)
    chunks = -(-len(docs) // ahead.CHUNK)
    assert chunks >= 8 and len(rounds) <= 3


def _no_fork(monkeypatch):
    def no_fork(pool):  # where the pool forks its workers
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(ahead.QuietPool, "_repopulate_pool", no_fork)


def _no_semaphore(monkeypatch):  # /dev/shm full or missing: the shared flags' lock
    import errno
    import multiprocessing.synchronize

    def no_room(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(multiprocessing.synchronize.SemLock, "__init__", no_room)


def _no_thread(handler: str):
    """The pool's ``handler`` thread cannot start (the process limit counts threads): its
    workers are forked, and so, for the later handlers, is the worker handler's thread."""

    def failing(monkeypatch):
        import multiprocessing.pool
        import threading

        target = getattr(multiprocessing.pool.Pool, handler)
        target = getattr(target, "__func__", target)
        start = threading.Thread.start

        def limited(thread):
            found = getattr(thread, "_target", None)
            if getattr(found, "__func__", found) is target:
                raise RuntimeError("can't start new thread")
            return start(thread)

        monkeypatch.setattr(threading.Thread, "start", limited)

    return failing


@pytest.mark.parametrize(
    "failing",
    [_no_fork, _no_semaphore, _no_thread("_handle_workers"), _no_thread("_handle_tasks")],
    ids=["fork", "semaphore", "thread", "second-thread"],
)
def test_when_no_worker_can_be_started_the_stories_are_checked_here(
    tmp_path, demo, story_doc, workers, taken, monkeypatch, failing
):
    """No process forked, no semaphore for the shared flags, or no thread for the pool: the
    import goes on with every story checked here, the rubrics those of the checks run in
    process, and no worker of a pool that never ran is left behind."""
    import multiprocessing

    failing(monkeypatch)
    docs = faulty_docs(story_doc)
    not_ahead = rubrics(tmp_path, docs)
    assert taken == []  # nothing ahead
    assert multiprocessing.active_children() == []
    monkeypatch.undo()
    Story.objects.exclude(pk=demo.pk).delete()
    workers.IMPORT_CHECK_WORKERS = 0
    assert rubrics(tmp_path, docs) == not_ahead


def test_no_workers_for_a_small_batch_or_another_judge(settings):
    settings.IMPORT_CHECK_WORKERS, settings.IMPORT_CHECK_AHEAD_MIN = 2, 10
    assert ahead.workers_for(10) == 2
    assert ahead.workers_for(9) == 0
    settings.CHECKS_JUDGE = "stories.checks.meaning.chat.ChatJudge"
    assert ahead.workers_for(10) == 0
    settings.CHECKS_JUDGE = ahead.DETERMINISTIC_JUDGE
    settings.IMPORT_CHECK_WORKERS = 0
    assert ahead.workers_for(10) == 0
