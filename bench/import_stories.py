"""Time desk/1 import and export on N generated stories, and the import's peak Python memory.

    DEBUG=1 .venv/bin/python bench/import_stories.py [N ...]

Runs in a throwaway test database (SQLite in memory by default; set DATABASE_URL and
TEST_DATABASE_NAME for PostgreSQL). Each story is the demo story with its own id and slug, one
.jsonl line each. Results go into docs/benchmarks.md by hand.
"""

import datetime as dt
import io
import json
import os
import random
import re
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


def write_stories(path: Path, n: int, *, first: int = 0, shape: str = "demo", per_day: int = 100):
    """Write ``n`` stories to ``path``, one line each. ``demo``: copies of the demo story
    (identical text: all but the first of a repeat window fail ``not_a_repeat``); ``small``:
    ``small_story``'s shape; ``varied``: ``varied_stories``, which pass the checks once
    ``insert_sources`` has stored the manifests and claims it returns."""
    if shape == "varied":
        return varied_stories(path, n, first=first, per_day=per_day)
    demo = json.loads((ROOT / "demo" / "agent-training-stack.json").read_text(encoding="utf-8"))
    if shape == "small":
        demo = small_story(demo)
    with path.open("w", encoding="utf-8") as fh:
        for i in range(first, first + n):
            doc = dict(demo, id=str(1792300000000000000 + i), slug=f"bench-{i}", related=[])
            doc["edition"] = f"2026-10-{16 + i % 10:02d}T{i % 24:02d}"
            fh.write(json.dumps(doc, ensure_ascii=False) + "\n")


VOCABULARY = sorted(
    {
        w
        for w in re.findall(r"[a-z]{4,}", (ROOT / "demo" / "agent-training-stack.json").read_text(encoding="utf-8"))
        if w not in {"http", "https", "true", "false", "null"}
    }
)
BASE_ID = 1793000000000000000  # ids of the generated manifests and claims (the demo's start 1792...)


def _sentence(rng: random.Random, length: int) -> str:
    words = rng.choices(VOCABULARY, k=length)
    figure = f"{rng.randint(2, 97)}.{rng.randint(1, 9)}%"
    words.insert(rng.randint(1, length - 1), figure)
    return " ".join(words).capitalize() + "."


def varied_stories(path: Path, n: int, *, first: int = 0, per_day: int = 100) -> dict:
    """The demo story's shape (its sections, 8 paragraphs, 5 key facts, every cite with as
    many claims), each story with its own text and its own claims: every paragraph and key
    fact is made of sentences of words drawn from the demo's vocabulary, one with a figure,
    and each cited claim states one of its sentences, so every figure is supported and no
    two stories are near-duplicates (text or cited claims). ``per_day`` stories share an
    edition day, one to four an edition hour, and cite the day's four manifests, dated the
    day before (within ``manifests_recent``'s window). Returns the manifests and claims to
    store first (``insert_sources``)."""
    demo = json.loads((ROOT / "demo" / "agent-training-stack.json").read_text(encoding="utf-8"))
    order = {m["manifest_id"]: k for k, m in enumerate(demo["manifests"])}
    manifests, claims = {}, []
    start = dt.date(2026, 1, 1)
    with path.open("w", encoding="utf-8") as fh:
        for i in range(first, first + n):
            rng = random.Random(i)
            day = start + dt.timedelta(days=i // per_day)
            hour = (i % per_day) * 24 // per_day
            ids = {}
            for mid, k in order.items():
                new = str(BASE_ID + (i // per_day) * 4 + k)
                ids[mid] = new
                if new not in manifests:
                    src = demo["manifests"][k]
                    manifests[new] = dict(src, manifest_id=new, published_date=(day - dt.timedelta(days=1)).isoformat())
            serial = [0]

            def unit(owner: dict, ids=ids, rng=rng, i=i, serial=serial) -> str:
                texts = []
                for cite in owner["cites"]:
                    cite["manifest_id"] = ids[cite["manifest_id"]]
                    new_ids = []
                    for _ in cite["claim_ids"]:
                        text = _sentence(rng, rng.randint(9, 16))
                        cid = str(BASE_ID + 10**17 + i * 1000 + serial[0])
                        serial[0] += 1
                        claims.append((cid, cite["manifest_id"], text))
                        new_ids.append(cid)
                        texts.append(text)
                    cite["claim_ids"] = new_ids
                return " ".join(texts)

            doc = json.loads(json.dumps(demo))
            for fact in doc["key_facts"]:
                fact["text"] = unit(fact)
                fact.pop("self_reported", None)  # derived from the claims
            for section in doc["sections"]:
                for para in section["paragraphs"]:
                    para["markdown"] = unit(para)
            doc.update(
                id=str(1792300000000000000 + i),
                slug=f"bench-{i}",
                related=[],
                edition=f"{day.isoformat()}T{hour:02d}",
                headline=_sentence(rng, 8)[:-1],
                dek=_sentence(rng, 14),
                published_at=f"{day.isoformat()}T{hour:02d}:30:00Z",
            )
            doc["manifests"] = [manifests[ids[m["manifest_id"]]] for m in demo["manifests"]]
            doc["cited_manifest_ids"] = [ids[m] for m in demo["cited_manifest_ids"]]
            fh.write(json.dumps(doc, ensure_ascii=False) + "\n")
    return {"manifests": list(manifests.values()), "claims": claims}


def insert_sources(sources: dict) -> None:
    """Store ``varied_stories``' manifests (with their publishers) and claims."""
    from manifests.models import Claim, Manifest, Publisher

    publishers = {}
    for m in sources["manifests"]:
        if m["source_name"] not in publishers:
            publishers[m["source_name"]] = Publisher.objects.get_or_create(name=m["source_name"])[0]
    Manifest.objects.bulk_create(
        [
            Manifest(
                id=m["manifest_id"],
                title=m["title"],
                publisher=publishers[m["source_name"]],
                source_url=m["source_url"],
                published_date=m["published_date"],
            )
            for m in sources["manifests"]
        ],
        ignore_conflicts=True,
        batch_size=2000,
    )
    Claim.objects.bulk_create(
        [
            Claim(id=cid, manifest_id=mid, text=text, position=k, self_reported=False)
            for k, (cid, mid, text) in enumerate(sources["claims"])
        ],
        ignore_conflicts=True,
        batch_size=5000,
    )


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
