"""The import's checks pool under faults: rounds of a run of stories checked ahead, each ended
by a worker killed at a random moment or by the run failing at a random story.

    DEBUG=0 SECRET_KEY=x SIGNING_KEY=<32 bytes, base64url> .venv/bin/python bench/pool_faults.py kill 3500 200 2
    .venv/bin/python bench/pool_faults.py abort 40000 200 2 --no-back

Arguments: the mode (``kill``: a random worker is sent SIGKILL 0–150 ms into the round;
``abort``: the run raises at a random story, so the pool is ended with its workers busy),
the bytes of results a chunk sends (a chunk of the demo story's shape sends about 3.5 kB;
above 16 kB a result is sent in two writes), the rounds and the workers. ``--no-back``: the
importing process does not check stories from the back while it waits. Each round drives
the real ``checks.ahead.Ahead`` and ``checks.pool.QuietPool`` over 120 stories whose checks
take 0.5–3 ms each (a stand-in for the criteria, which read no database); after each round
no child process and no thread of the pool may be left. A round that takes longer than
20 s is a hang: every thread's stack is printed and the script exits with status 3.
"""

import argparse
import faulthandler
import logging
import multiprocessing
import os
import random
import signal
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "newsroom.settings")

import django  # noqa: E402

django.setup()

from stories.checks import ahead  # noqa: E402

STORIES = 120
HANG_SECONDS = 20


class Abort(Exception):
    """The run failed at a story."""


def stand_in(size: int):
    def run(reads, revision, story_id, criteria, doc=None):
        end = time.perf_counter() + random.uniform(0.0005, 0.003)
        while time.perf_counter() < end:
            pass
        return {"c": "x" * (size // ahead.CHUNK)}

    return run


def one_round(mode: str, workers: int, back: bool, pids: list[int]) -> None:
    context = multiprocessing.get_context("fork")
    ids = [f"s{i}" for i in range(STORIES)]
    revisions = {sid: {"id": sid} for sid in ids}
    digests = {sid: ahead.digest(rev) for sid, rev in revisions.items()}
    claims = context.Array("b", STORIES)
    plan = (None, dict(revisions), (), {})
    ahead._PLAN = (*plan, claims, {sid: i for i, sid in enumerate(ids)}, digests)
    pool = ahead.QuietPool(workers, initializer=ahead._worker_start, context=context)
    ahead._PLAN = None
    forked = list(pool._pool)
    pids[:] = [p.pid for p in forked]
    killer = None
    if mode == "kill":

        def kill():
            time.sleep(random.uniform(0, 0.15))
            try:
                os.kill(random.choice(forked).pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        killer = threading.Thread(target=kill)
        killer.start()
    abort_at = random.randrange(STORIES) if mode == "abort" else None
    try:
        taken = ahead.Ahead(pool, ids, plan=plan if back else None, claims=claims if back else None, digests=digests)
        for i, sid in enumerate(ids):
            if i == abort_at:
                raise Abort
            taken.take(sid, revisions[sid])
    except Abort:
        pass
    finally:
        pool.terminate()
        pool.join()
    if killer:
        killer.join()
    left = multiprocessing.active_children()
    threads = [t for t in threading.enumerate() if t is not threading.main_thread() and t.name != "watchdog"]
    assert not left and not threads, (left, threads)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["kill", "abort"])
    parser.add_argument("size", type=int, help="bytes of results a chunk sends")
    parser.add_argument("rounds", type=int)
    parser.add_argument("workers", type=int)
    parser.add_argument("--no-back", action="store_true", help="nothing checked from the back")
    args = parser.parse_args()
    ahead._run = stand_in(args.size)
    logging.disable(logging.WARNING)  # each round's "given up" warning
    pids: list[int] = []
    ended = threading.Event()
    current = [0]

    def watchdog():
        while True:
            ended.clear()
            if not ended.wait(HANG_SECONDS):
                print(f"round {current[0]} hangs; every thread's stack:", flush=True)
                faulthandler.dump_traceback(file=sys.stdout, all_threads=True)
                for pid in [*pids, *(p.pid for p in multiprocessing.active_children())]:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                os._exit(3)

    threading.Thread(target=watchdog, name="watchdog", daemon=True).start()
    started = time.monotonic()
    for n in range(args.rounds):
        current[0] = n
        one_round(args.mode, args.workers, not args.no_back, pids)
        ended.set()
    print(
        f"{args.mode}, {args.size} bytes a chunk, {args.workers} workers: "
        f"{args.rounds} rounds ended, none left anything behind ({time.monotonic() - started:.0f} s)"
    )


if __name__ == "__main__":
    main()
