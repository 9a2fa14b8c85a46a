"""CPU of ``not_a_repeat``'s candidate look-up in a bulk import, per story, by window size.

    DEBUG=1 .venv/bin/python bench/repeat_candidates.py [--sizes 1000,10000,50000] [--stories 200]

For each size, a batch's reads (``checks.batch.BatchReads``) are given that many published
candidates in one newsroom, spread over a 72-hour window, each with a random signature and
a claim of its own (no database: the candidates are added as the import adds them), and
``repeat_candidates`` is asked for the rows that can repeat each of ``--stories`` new
stories with random signatures. Prints the CPU time (``time.process_time``) of adding the
candidates (what a batch pays once a run, indexing them included) and of the look-up a
story, and how many rows came back. A random signature agrees with another in half a bin
on average, as unrelated stories do, so no row comes back: what is measured is finding
that out.
"""

import argparse
import datetime as dt
import json
import os
import random
import sys
import time
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "newsroom.settings")

import django

django.setup()

from stories.checks.batch import BatchReads  # noqa: E402

FIRST = dt.datetime(2026, 10, 1, tzinfo=dt.UTC)
WINDOW_HOURS = 72


def random_signature(rng: random.Random) -> str:
    return rng.randbytes(128).hex()


def reads_with(size: int, rng: random.Random) -> BatchReads:
    reads = BatchReads([], set(), claims={})
    reads.by_hour = {}  # loaded: the candidates are added below, as the import adds them
    reads.newsrooms, reads.new_ids, reads.low, reads.high = {"desk"}, set(), "2026-01-01T00", "2026-12-31T23"
    for i in range(size):
        edition = (FIRST + dt.timedelta(hours=(i * WINDOW_HOURS) // size)).strftime("%Y-%m-%dT%H")
        reads._add(f"s-{i}", "desk", edition, random_signature(rng), json.dumps([f"c-{i}"]))
    return reads


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--stories", type=int, default=200)
    args = parser.parse_args()
    rng = random.Random(5)
    end = (FIRST + dt.timedelta(hours=WINDOW_HOURS)).strftime("%Y-%m-%dT%H")
    ctx = types.SimpleNamespace(doc={"newsroom": "desk", "edition": end}, excluded_ids=set())
    print("candidates in the window | adding them (ms) | look-up a story (us) | rows that can repeat it")
    for size in (int(s) for s in args.sizes.split(",")):
        start = time.process_time()
        reads = reads_with(size, rng)
        adding = (time.process_time() - start) * 1e3
        stories = [random_signature(rng) for _ in range(args.stories)]
        start, rows = time.process_time(), 0
        for signature in stories:
            rows += len(reads.repeat_candidates(ctx, ["new-claim"], signature))
        per_story = (time.process_time() - start) / len(stories) * 1e6
        print(f"{size} | {adding:.0f} | {per_story:.1f} | {rows / len(stories):.2f}")


if __name__ == "__main__":
    main()
