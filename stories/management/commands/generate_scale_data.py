"""Fill a PostgreSQL database with generated data at scale, for benchmarks.

    python manage.py generate_scale_data --stories 1000000 --manifests 100000 --claims 1000000

Loads the demo first (the demo story stays the page the benchmarks measure), then writes
manifests, claims and published stories with PostgreSQL ``COPY`` (psycopg 3
``cursor.copy()``), streaming: rows are produced while they are sent, so memory stays flat
whatever the counts. Each story has one section, one paragraph citing three claims of one
manifest, and sits in the demo's newsroom (the worst case for its page) on an hourly
edition, 40 stories an hour going back in time from the demo story's edition. Ids are fixed
ranges, so a second run with the same counts finds the rows there and stops. Its stories
are published without the checks, so it refuses a database that holds any story besides the
demo's: it fills only a new benchmark database.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import time

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction

from stories.management.commands.loaddemo import DEMO_DIR
from stories.markup import to_html

MANIFEST_BASE, CLAIM_BASE, STORY_BASE = 1_700_000_000_000_000_000, 1_600_000_000_000_000_000, 1_500_000_000_000_000_000
ROW_BASE = 100_000_000  # explicit ids for sections, paragraphs, cites and cite claims
CLAIMS_PER_CITE = 3
STORIES_PER_EDITION = 40
LAST_EDITION = dt.datetime(2026, 10, 15, 23, tzinfo=dt.UTC)  # the hour before the demo story's edition
WORDS = [
    "agents",
    "models",
    "training",
    "data",
    "evaluation",
    "compute",
    "policy",
    "research",
    "release",
    "benchmark",
    "open",
    "weights",
    "safety",
    "inference",
    "tools",
    "reasoning",
    "memory",
    "latency",
    "chips",
    "energy",
    "regulation",
    "market",
    "partners",
]


def _text(i: int, n: int) -> str:
    """A cheap, varied sentence of n words (deterministic: the same i gives the same text)."""
    return " ".join(WORDS[(i * 7 + k * 13) % len(WORDS)] for k in range(n)).capitalize() + "."


class Command(BaseCommand):
    help = "Generate manifests, claims and published stories with COPY (benchmarks only; PostgreSQL)."

    def add_arguments(self, parser):
        parser.add_argument("--stories", type=int, default=1_000_000)
        parser.add_argument("--manifests", type=int, default=100_000)
        parser.add_argument("--claims", type=int, default=1_000_000)

    def handle(self, *, stories, manifests, claims, **options):
        if connection.vendor != "postgresql":
            raise CommandError("generate_scale_data needs PostgreSQL (it writes with COPY)")
        if manifests < 1 or claims < manifests * CLAIMS_PER_CITE:
            raise CommandError(f"need at least one manifest and {CLAIMS_PER_CITE} claims per manifest")
        from stories import search_index
        from stories.models import Story

        if Story.objects.filter(id=str(STORY_BASE)).exists():
            raise CommandError("generated data is already there (drop the database to start again)")
        # Its stories are published without the checks: never where readers are. A database
        # holding any story besides the demo's is a newsroom's, not a benchmark's.
        demo_ids = [
            json.loads(path.read_bytes())["id"]
            for path in DEMO_DIR.glob("*.json")
            if not path.name.endswith(".manifests.json")
        ]
        own = Story.objects.exclude(id__in=demo_ids).count()
        if own:
            raise CommandError(
                f"this database holds stories besides the demo's ({own}): generate_scale_data publishes its "
                "stories without the checks and fills only a new benchmark database; nothing was written"
            )
        call_command("loaddemo", stdout=io.StringIO())
        self.t0 = time.perf_counter()
        with transaction.atomic(), connection.cursor() as cursor:
            cur = cursor.connection.cursor()  # the psycopg 3 cursor, for copy()
            self._sources(cur, manifests, claims)
            self._stories(cur, stories, manifests, claims // manifests)
            for table in ("stories_section", "stories_paragraph", "stories_cite", "stories_citeclaim"):
                cur.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
            self._say("search documents")
            search_index.refresh_all()  # what the commit step keeps for every published story
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        self._say(f"done: {stories} stories, {manifests} manifests, {claims} claims")

    def _say(self, message: str) -> None:
        self.stdout.write(f"{time.perf_counter() - self.t0:8.1f}s  {message}")
        self.stdout.flush()

    def _sources(self, cur, manifests: int, claims: int) -> None:
        from manifests.models import Publisher

        publishers = [Publisher.objects.get_or_create(name=f"scale-publisher-{i}")[0].pk for i in range(50)]
        now = dt.datetime.now(dt.UTC)
        with cur.copy(
            "COPY manifests_manifest (id, title, source_url, published_date, updated_at, publisher_id) FROM STDIN"
        ) as copy:
            for i in range(manifests):
                published = dt.date(2026, 10, 15) - dt.timedelta(days=i % 1000)
                copy.write_row(
                    (
                        str(MANIFEST_BASE + i),
                        _text(i, 8),
                        f"https://example.org/m/{i}",
                        published,
                        now,
                        publishers[i % 50],
                    )
                )
        self._say(f"{manifests} manifests")
        per = claims // manifests
        with cur.copy(
            "COPY manifests_claim (id, position, text, has_text, self_reported, manifest_id) FROM STDIN"
        ) as copy:
            for i in range(claims):
                copy.write_row(
                    (
                        str(CLAIM_BASE + i),
                        i % per,
                        _text(i, 16),
                        True,
                        bool(i % 2),
                        str(MANIFEST_BASE + min(i // per, manifests - 1)),
                    )
                )
        self._say(f"{claims} claims")

    def _stories(self, cur, stories: int, manifests: int, claims_per_manifest: int) -> None:
        from newsroom.models import Edition, Newsroom

        newsroom = Newsroom.objects.get(slug="artificial-intelligence")
        hours = (stories + STORIES_PER_EDITION - 1) // STORIES_PER_EDITION
        starts = [LAST_EDITION - dt.timedelta(hours=h) for h in range(hours)]
        Edition.objects.bulk_create(
            [Edition(id=s.strftime("%Y-%m-%dT%H"), starts_at=s) for s in starts], ignore_conflicts=True, batch_size=5000
        )
        self._say(f"{hours} editions")
        columns = (
            "id, slug, edition_date, audience, angle, headline, dek, trust, status, published_at, unresolved,"
            " decision_card, writer_agent, writer_run_id, version, created_at, updated_at, edition_id, newsroom_id,"
            " created_by_partner, review_status, review_note"
        )
        with cur.copy(f"COPY stories_story ({columns}) FROM STDIN") as copy:
            for i in range(stories):
                start = starts[i // STORIES_PER_EDITION]
                published = start + dt.timedelta(seconds=i % STORIES_PER_EDITION * 60)
                copy.write_row(
                    (
                        str(STORY_BASE + i),
                        f"scale-{i}",
                        start.date(),
                        "",
                        "",
                        _text(i, 10),
                        _text(i + 1, 20),
                        "reported",
                        "published",
                        published,
                        "[]",
                        "{}",
                        "scale",
                        "",
                        1,
                        published,
                        published,
                        start.strftime("%Y-%m-%dT%H"),
                        newsroom.pk,
                        "",
                        "",
                        "",
                    )
                )
        self._say(f"{stories} stories")
        for table, columns, rows in (
            (
                "stories_section",
                "id, position, heading, story_id",
                ((ROW_BASE + i, 0, "Section", str(STORY_BASE + i)) for i in range(stories)),
            ),
            (
                "stories_paragraph",
                "id, position, markdown, html, section_id",
                ((ROW_BASE + i, 0, _text(i, 60), to_html(_text(i, 60)), ROW_BASE + i) for i in range(stories)),
            ),
            (
                "stories_cite",
                "id, position, manifest_id, paragraph_id",
                ((ROW_BASE + i, 0, str(MANIFEST_BASE + i % manifests), ROW_BASE + i) for i in range(stories)),
            ),
            (
                "stories_citeclaim",
                "id, position, cite_id, claim_id",
                self._cite_claims(stories, manifests, claims_per_manifest),
            ),
        ):
            with cur.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            self._say(table)

    @staticmethod
    def _cite_claims(stories: int, manifests: int, claims_per_manifest: int):
        """Three claims of the cite's own manifest (a claim is cited under its manifest)."""
        for i in range(stories):
            first = (i % manifests) * claims_per_manifest
            for j in range(CLAIMS_PER_CITE):
                yield (
                    ROW_BASE * 4 + i * CLAIMS_PER_CITE + j,
                    j,
                    ROW_BASE + i,
                    str(CLAIM_BASE + first + (i + j) % claims_per_manifest),
                )
