"""What signing adds to a rendering: the median microseconds of a warm signature (SHA-256 of
the body and a look-up) and of a first one (plus an Ed25519 signing and a cache write),
for bodies of the given sizes. In-process, local-memory cache.

    DEBUG=1 .venv/bin/python bench/signing_cost.py [--sizes 2000,60000,400000] [--runs 2000]
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "newsroom.settings")

import django

django.setup()

from newsroom.infra.signing import messages, response_headers  # noqa: E402


def median_us(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="2000,60000,400000")
    parser.add_argument("--runs", type=int, default=2000)
    args = parser.parse_args()
    print("body bytes | warm signature (us) | first signature (us)")
    for size in (int(s) for s in args.sizes.split(",")):
        warm_us, first_us = measure(size, args.runs)
        print(f"{size} | {warm_us:.1f} | {first_us:.1f}")
        messages._local.clear()


def measure(size: int, runs: int) -> tuple[float, float]:
    body = os.urandom(size)
    uri = f"https://news.example.com/stories/2026-10-16/s{size}/"

    def warm():
        response_headers(target_uri=uri, content_type="text/html; charset=utf-8", body=body)

    counter = iter(range(10**9))

    def first():
        # A new URL each time, not stored: each call signs.
        uncached = f"{uri}?n={next(counter)}"
        response_headers(target_uri=uncached, content_type="text/html", body=body, cacheable=False)

    warm()
    return median_us(warm, runs), median_us(first, runs)


if __name__ == "__main__":
    main()
