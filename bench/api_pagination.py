"""Keyset pagination cost: the first page vs a page deep in the list.

    DEBUG=1 DATABASE_URL=postgres://postgres@127.0.0.1:5432/newsroom_api_bench \\
        .venv/bin/python bench/api_pagination.py [--stories 50000]

Creates the database's tables if needed, fills it with bare published stories (once), then
times GET /api/v1/stories/?page_size=100 at the start and at a cursor near the end, through
the Django test client with a partner key. Prints medians and the plan of the page query.
"""

import argparse
import datetime as dt
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "newsroom.settings")
os.environ.setdefault("API_RATE", "1000000/min")

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.utils import timezone  # noqa: E402

from newsroom.models import Edition, Newsroom  # noqa: E402
from stories.models import Story  # noqa: E402
from syndication.models import ApiKey, Partner  # noqa: E402
from syndication.pagination import encode_cursor  # noqa: E402


def fill(n: int) -> None:
    have = Story.objects.count()
    if have >= n:
        return
    room, _ = Newsroom.objects.get_or_create(slug="bench", defaults={"title": "Bench"})
    edition, _ = Edition.objects.get_or_create_for("2026-10-16T00")
    start = timezone.now() - dt.timedelta(days=30)
    batch = []
    for i in range(have, n):
        moment = start + dt.timedelta(seconds=i)
        batch.append(
            Story(
                id=f"b{i:08d}",
                slug=f"bench-{i}",
                edition=edition,
                edition_date=edition.id[:10],
                newsroom=room,
                headline=f"Bench story {i}",
                status="published",
                published_at=moment,
            )
        )
        if len(batch) == 5000:
            Story.objects.bulk_create(batch)
            batch = []
    Story.objects.bulk_create(batch)
    # auto_now set every updated_at to now; spread them out as real traffic would.
    with connection.cursor() as cur:
        cur.execute("UPDATE stories_story SET updated_at = published_at")
        if connection.vendor == "postgresql":
            cur.execute("ANALYZE stories_story")  # as autovacuum would, before the planner is asked


def timed(client, url, header, runs=15) -> float:
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        response = client.get(url, HTTP_AUTHORIZATION=header)
        samples.append((time.perf_counter() - t0) * 1000)
        assert response.status_code == 200, response.content[:200]
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--stories", type=int, default=50_000)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    fill(args.stories)
    partner, _ = Partner.objects.get_or_create(slug="bench", defaults={"name": "Bench"})
    _, key = ApiKey.issue(partner=partner, scope="read")
    header = f"Bearer {key}"
    client = Client()
    last = Story.objects.published().order_by("-updated_at", "-id")[150]
    deep = f"/api/v1/stories/?page_size=100&cursor={encode_cursor(last.updated_at, last.id)}"
    first = "/api/v1/stories/?page_size=100"
    print(f"{Story.objects.count()} stories on {connection.vendor}")
    print(f"first page: median {timed(client, first, header):.1f} ms")
    print(f"page near the end (~{args.stories // 100 - 1} pages in): median {timed(client, deep, header):.1f} ms")
    if connection.vendor == "postgresql":
        qs = Story.objects.published().filter(updated_at__gte=last.updated_at).order_by("updated_at", "id")[:101]
        print(qs.explain())


if __name__ == "__main__":
    main()
