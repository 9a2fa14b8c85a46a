"""CPU of ``claims_support`` alone per story, on stories stored by ``bench/import_rate.py``.

    DEBUG=0 SECRET_KEY=... SIGNING_KEY=... DATABASE_URL=postgres://postgres@127.0.0.1:5432/<db> \\
        .venv/bin/python bench/claims_support_cpu.py /tmp/imp-1000.jsonl 300
    ... bench/claims_support_cpu.py demo/agent-training-stack.json 200

Reads the first N stories of the file (default 300; their manifests and claims must be in
the database, as ``import_rate.py --write`` leaves them), builds their check contexts, then
runs ``claims_support`` on all of them five times (or as many as a third argument says), each
time with every text cache of the checks emptied first (each text read as a real import first
meets it), and prints the best CPU time (``time.process_time``) per story. With 0 passes it
only loads them and empties the caches: under ``valgrind --tool=callgrind``, the instructions
of a run of one pass less those of a run of none are the check's own.

Given one story's document instead (a ``.json`` file: the demo story, whose manifests
``import_manifests demo/agent-training-stack.manifests.json`` stores), it runs the check on
that story N times, the caches emptied before each, and prints the best. The generated
stories use their claims' sentences word for word; the demo story's sentences paraphrase
its claims, as real stories do.
"""

import functools
import gc
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "newsroom.settings")

import django  # noqa: E402

django.setup()

from stories import desk  # noqa: E402
from stories.checks.base import CheckContext  # noqa: E402
from stories.checks.claims_support import ClaimsSupport  # noqa: E402

KEPT = {"lexicon", "_judge_class", "_special", "_md"}  # loaded data, not readings of texts


def clear_text_caches() -> None:
    for obj in gc.get_objects():
        if (
            isinstance(obj, functools._lru_cache_wrapper)
            and getattr(obj, "__module__", "").startswith("stories")
            and obj.__name__ not in KEPT
        ):
            obj.cache_clear()


def one_story(path: Path, n: int) -> None:
    ctx, criterion, best = CheckContext(desk.parse(path.read_bytes())), ClaimsSupport(), float("inf")
    ctx.units, ctx.manifests, ctx.claims  # noqa: B018 (read the units and sources before timing)
    for _ in range(n):
        clear_text_caches()
        start = time.process_time()
        criterion.run(ctx)
        best = min(best, time.process_time() - start)
    print(f"claims_support: {best * 1000:.2f} ms of CPU on {path.name} (best of {n})")


def main(path: Path, n: int, passes: int = 5) -> None:
    if path.suffix == ".json":
        return one_story(path, n)
    with path.open("rb") as fh:
        docs = [desk.parse(line) for _, line in zip(range(n), fh)]
    contexts = [CheckContext(doc) for doc in docs]
    for ctx in contexts:
        ctx.units, ctx.manifests, ctx.claims  # noqa: B018 (read the units and sources before timing)
    criterion, best = ClaimsSupport(), float("inf")
    if not passes:  # as a pass does, but for the check
        clear_text_caches()
        print(f"{len(contexts)} stories loaded, not checked")
        return
    for _ in range(passes):
        clear_text_caches()
        start = time.process_time()
        for ctx in contexts:
            criterion.run(ctx)
        best = min(best, time.process_time() - start)
    print(
        f"claims_support: {best / len(contexts) * 1000:.2f} ms of CPU a story ({len(contexts)} stories, best of {passes})"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]), *(int(arg) for arg in sys.argv[2:4]))
