"""Time desk/1 import and export on N generated stories, and the import's peak Python memory.

    DEBUG=1 .venv/bin/python bench/import_stories.py [N ...]

Runs in a throwaway test database (SQLite in memory by default; set DATABASE_URL and
TEST_DATABASE_NAME for PostgreSQL). Each story is the demo story with its own id and slug, one
.jsonl line each. Results go into docs/benchmarks.md by hand.
"""

import io
import json
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "newsroom.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402


def small_story(demo: dict) -> dict:
    """The shape ``generate_scale_data`` makes: one section with one cited paragraph, one
    key fact; no images or corrections (about a tenth of the demo story's size)."""
    section = dict(demo["sections"][0], paragraphs=demo["sections"][0]["paragraphs"][:1])
    return dict(demo, sections=[section], key_facts=demo["key_facts"][:1], images=[], corrections=[])


def write_stories(path: Path, n: int, *, first: int = 0, shape: str = "demo") -> None:
    demo = json.loads((ROOT / "demo" / "agent-training-stack.json").read_text(encoding="utf-8"))
    if shape == "small":
        demo = small_story(demo)
    with path.open("w", encoding="utf-8") as fh:
        for i in range(first, first + n):
            doc = dict(demo, id=str(1792300000000000000 + i), slug=f"bench-{i}", related=[])
            doc["edition"] = f"2026-10-{16 + i % 10:02d}T{i % 24:02d}"
            fh.write(json.dumps(doc, ensure_ascii=False) + "\n")


def timed(label: str, n: int, fn) -> None:
    start = time.perf_counter()
    fn()
    took = time.perf_counter() - start
    print(f"  {label:<22} {took:7.2f} s  {n / took:8.1f} stories/s")


def run(n: int, workdir: Path) -> None:
    from stories.models import Story

    path = workdir / f"bench-{n}.jsonl"
    write_stories(path, n, first=Story.objects.count())
    call_command("import_manifests", str(ROOT / "demo" / "agent-training-stack.manifests.json"), stdout=io.StringIO())
    print(f"{n} stories ({path.stat().st_size / 1e6:.1f} MB) on {connection.vendor}")
    timed("import (new)", n, lambda: call_command("import_stories", str(path), stdout=io.StringIO()))
    timed("import (unchanged)", n, lambda: call_command("import_stories", str(path), stdout=io.StringIO()))
    out = workdir / "out.jsonl"
    timed("export", n, lambda: call_command("export_stories", "--out", str(out), stdout=io.StringIO()))
    assert out.read_text(encoding="utf-8").count("\n") == Story.objects.count()
    # Peak Python memory of re-importing (tracemalloc slows the run, so it is not timed):
    # the .jsonl file is read line by line, so this stays flat as the file grows.
    tracemalloc.start()
    call_command("import_stories", str(path), stdout=io.StringIO())
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"  {'import peak memory':<22} {peak / 1e6:7.1f} MB (file: {path.stat().st_size / 1e6:.1f} MB)")


def main(sizes: list[int]) -> None:
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for n in sizes:
                run(n, Path(tmp))
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [200, 1000])
