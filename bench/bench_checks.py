"""Benchmark the publish checks at scale (PostgreSQL).

Builds 100,000 manifests with 1,000,000 claims and 10,000 published stories (with their
fingerprints) inside the demo story's repeat window, all in the demo story's newsroom (the worst
case: every one is a candidate), then checks the demo story 50 times and reports the median
and 95th percentile.

    psql -h 127.0.0.1 -U postgres -c 'create database bench_checks'
    DEBUG=1 DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_checks .venv/bin/python bench/bench_checks.py

The data is built once (COPY); later runs reuse it (``--rebuild`` starts again).
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "newsroom.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, reset_queries  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from manifests.models import Claim, Manifest, Publisher  # noqa: E402
from newsroom.models import Edition, Newsroom  # noqa: E402
from stories import desk, minhash  # noqa: E402
from stories.checks import check_and_record, run_checks  # noqa: E402
from stories.models import CheckResult, Story, StoryFingerprint  # noqa: E402
from stories.text import words  # noqa: E402

MANIFESTS, CLAIMS_PER_MANIFEST, STORIES, CLAIMS_PER_STORY = 100_000, 10, 10_000, 30
RUNS = 50
DEMO_EDITION = dt.datetime(2026, 10, 16, 0, tzinfo=dt.UTC)
MANIFEST_BASE, CLAIM_BASE, STORY_BASE = 1_700_000_000_000_000_000, 1_600_000_000_000_000_000, 1_500_000_000_000_000_000
ROW_BASE = 10_000_000  # explicit ids for the stories' sections, paragraphs and cites
DEMO_MANIFESTS = ["1792067182956183080", "1792043738156041460", "1792066118701135431", "1792095901600389209"]


def vocabulary(rng: random.Random, n: int = 6000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choice(letters) for _ in range(rng.randint(3, 10))) for _ in range(n)]


def sentence(rng, vocab, n) -> str:
    return " ".join(rng.choice(vocab) for _ in range(n)).capitalize() + "."


def build(rng: random.Random) -> None:
    call_command("loaddemo", stdout=io.StringIO())
    vocab = vocabulary(rng)
    now = dt.datetime.now(dt.UTC)
    publishers = [Publisher.objects.get_or_create(name=f"bench-publisher-{i}")[0].pk for i in range(50)]
    raw = connection.connection  # psycopg 3: COPY is the fast path for millions of rows
    t0 = time.perf_counter()
    with raw.cursor() as cur:
        with cur.copy(
            "COPY manifests_manifest (id, title, source_url, published_date, updated_at, publisher_id) FROM STDIN"
        ) as copy:
            for i in range(MANIFESTS):
                published = dt.date(2026, 10, 16) - dt.timedelta(days=rng.randint(0, 30))
                copy.write_row(
                    (
                        str(MANIFEST_BASE + i),
                        sentence(rng, vocab, 8),
                        f"https://example.org/m/{i}",
                        published,
                        now,
                        rng.choice(publishers),
                    )
                )
        print(f"  manifests: {time.perf_counter() - t0:.1f}s", flush=True)
        with cur.copy(
            "COPY manifests_claim (id, position, text, has_text, self_reported, manifest_id) FROM STDIN"
        ) as copy:
            for i in range(MANIFESTS * CLAIMS_PER_MANIFEST):
                copy.write_row(
                    (
                        str(CLAIM_BASE + i),
                        i % CLAIMS_PER_MANIFEST,
                        sentence(rng, vocab, 18),
                        True,
                        bool(i % 2),
                        str(MANIFEST_BASE + i // CLAIMS_PER_MANIFEST),
                    )
                )
        print(f"  claims: {time.perf_counter() - t0:.1f}s", flush=True)

        newsroom = Newsroom.objects.get(slug="artificial-intelligence")
        hours = settings.CHECKS_REPEAT_WINDOW_HOURS
        editions = [
            Edition.objects.get_or_create_for((DEMO_EDITION - dt.timedelta(hours=h)).strftime("%Y-%m-%dT%H"))[0]
            for h in range(hours + 1)
        ]
        demo_claims = list(Claim.objects.filter(manifest_id__in=DEMO_MANIFESTS).values_list("id", flat=True))
        rows, prints, sections, paragraphs, cites, cite_claims = [], [], [], [], [], []
        for i in range(STORIES):
            edition = editions[i % len(editions)]
            sid = str(STORY_BASE + i)
            text = " ".join(sentence(rng, vocab, rng.randint(12, 30)) for _ in range(30))
            cited = []  # three cites of ten claims of three manifests; every 100th story shares the demo story's claims
            for k in range(CLAIMS_PER_STORY // 10):
                m = rng.randrange(MANIFESTS)
                ids = [str(CLAIM_BASE + m * CLAIMS_PER_MANIFEST + j) for j in range(10)]
                if i % 100 == 0 and k == 0:
                    ids[:3] = rng.sample(demo_claims, 3)
                cite_id = ROW_BASE + i * 3 + k
                cites.append((cite_id, k, str(MANIFEST_BASE + m), ROW_BASE + i))
                cite_claims += [(cite_id * 10 + j, j, cite_id, cid) for j, cid in enumerate(ids)]
                cited += ids
            sections.append((ROW_BASE + i, 0, "Section", sid))
            paragraphs.append((ROW_BASE + i, 0, text, ROW_BASE + i))
            rows.append(
                (
                    sid,
                    f"bench-{i}",
                    edition.starts_at.date(),
                    "",
                    "",
                    sentence(rng, vocab, 10),
                    "",
                    "reported",
                    "published",
                    edition.starts_at + dt.timedelta(minutes=5),
                    "[]",
                    "{}",
                    "bench",
                    "",
                    "",
                    1,
                    now,
                    now,
                    edition.id,
                    newsroom.pk,
                )
            )
            prints.append((sid, json.dumps(minhash.signature(words(text))), json.dumps(sorted(set(cited))), now))
        print(f"  story texts and fingerprints computed: {time.perf_counter() - t0:.1f}s", flush=True)
        with cur.copy(
            "COPY stories_story (id, slug, edition_date, audience, angle, headline, dek, trust, status, published_at, unresolved,"
            " decision_card, writer_agent, writer_run_id, created_by_partner, version, created_at, updated_at, edition_id, newsroom_id)"
            " FROM STDIN"
        ) as copy:
            for row in rows:
                copy.write_row(row)
        for table, columns, data in (
            ("stories_storyfingerprint", "story_id, minhash, claim_ids, updated_at", prints),
            ("stories_section", "id, position, heading, story_id", sections),
            ("stories_paragraph", "id, position, markdown, section_id", paragraphs),
            ("stories_cite", "id, position, manifest_id, paragraph_id", cites),
            ("stories_citeclaim", "id, position, cite_id, claim_id", cite_claims),
        ):
            with cur.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for row in data:
                    copy.write_row(row)
        for table in ("stories_section", "stories_paragraph", "stories_cite", "stories_citeclaim"):
            cur.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
        cur.execute("ANALYZE")
    print(f"  stories: {time.perf_counter() - t0:.1f}s", flush=True)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def backend_cpu_seconds(pid: int) -> float | None:
    """CPU time of the PostgreSQL backend serving us (a local server), from /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(fn, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def cpu_per_run(fn, runs: int) -> tuple[float, float | None]:
    """(client CPU ms, database backend CPU ms) per run: unlike wall time, these do not grow
    when other processes compete for the machine."""
    with connection.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        pid = cur.fetchone()[0]
    server0, client0 = backend_cpu_seconds(pid), time.process_time()
    for _ in range(runs):
        fn()
    server1, client1 = backend_cpu_seconds(pid), time.process_time()
    server = None if server0 is None or server1 is None else (server1 - server0) * 1000 / runs
    return (client1 - client0) * 1000 / runs, server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rebuild", action="store_true", help="drop the bench data and build it again")
    parser.add_argument("--runs", type=int, default=RUNS)
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        sys.exit("run this on PostgreSQL: DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_checks")
    settings.DEBUG = False  # no query log growing during the timed runs
    call_command("migrate", verbosity=0)
    if args.rebuild or Manifest.objects.count() < MANIFESTS:
        print("building (once) ...", flush=True)
        call_command("flush", interactive=False, verbosity=0)
        build(random.Random(1792))
    elif not StoryFingerprint.objects.exists():
        call_command("refresh_fingerprints", verbosity=0)
    counts = (Manifest.objects.count(), Claim.objects.count(), Story.objects.published().count())
    print(f"data: {counts[0]:,} manifests, {counts[1]:,} claims, {counts[2]:,} published stories")

    story = Story.objects.get(id="81")
    doc = desk.validate(desk.export_story(Story.objects.with_everything().get(pk=story.pk)))
    rubric = run_checks(doc, exclude_story_id=story.pk)
    with CaptureQueriesContext(connection) as queries:
        run_checks(doc, exclude_story_id=story.pk)
    print(f"demo story: passed={rubric['passed']} score={rubric['score']}; {len(queries)} queries per check")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)")
    timed(lambda: run_checks(doc, exclude_story_id=story.pk), 5)  # warm caches
    checks = timed(lambda: run_checks(doc, exclude_story_id=story.pk), args.runs)
    before = CheckResult.objects.count()
    recorded = timed(lambda: check_and_record(story), args.runs)
    CheckResult.objects.filter(
        pk__in=CheckResult.objects.order_by("-id").values("pk")[: CheckResult.objects.count() - before]
    ).delete()
    reset_queries()
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    client, server = cpu_per_run(lambda: run_checks(doc, exclude_story_id=story.pk), args.runs)
    print(
        f"run_checks CPU per check: client {client:.1f} ms, database backend {server if server is None else round(server, 1)} ms"
    )
    for label, values in (("run_checks(doc)", checks), ("check_and_record(story)", recorded)):
        print(
            f"{label:<26} runs={len(values)} median={statistics.median(values):.1f} ms p95={percentile(values, 95):.1f} ms max={max(values):.1f} ms"
        )


if __name__ == "__main__":
    main()
