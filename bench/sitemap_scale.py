"""Cold sitemaps at scale: ``/sitemap.xml`` (the index), the newest and the oldest monthly
sitemap and the news sitemap, each rendered with nothing cached, on a PostgreSQL database
filled with ``--generate N`` published stories: copies of the demo story's row (short texts) made by one
``INSERT ... SELECT`` over ``generate_series`` (bulk SQL, not the checks: only the sitemaps
read these rows), 40 an hour on hourly editions going back from 2026-10-15, one in 50 with a
correction (one in 500 with two).

    createdb bench_sitemaps
    export DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_sitemaps
    python manage.py migrate && python manage.py loaddemo
    python bench/sitemap_scale.py --generate 1000000      # once: bulk SQL rows, then measures
    python bench/sitemap_scale.py                         # measures again

Each URL is asked for ``--repeat`` times through Django's test client with
``CACHE_URL=dummycache://`` (every request renders: what a crawler meets after a publish
has moved the ``lists`` generation); prints the median and the fastest wall time, the
queries of one request and the bytes, and the median CPU time of this process (Django's
share, without the database's: steadier than the wall time on a busy machine). Runs with
``DEBUG=0``.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "newsroom.settings")
os.environ["DEBUG"] = "0"
os.environ["CACHE_URL"] = "dummycache://"
os.environ.setdefault("SECRET_KEY", "bench-only-" + "k" * 50)
os.environ.setdefault("ALLOWED_HOSTS", "testserver")
os.environ.setdefault("SECURE_SSL_REDIRECT", "0")
os.environ.setdefault("CONN_MAX_AGE", "600")

import django  # noqa: E402

django.setup()

from django.db import connection, reset_queries  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from stories.models import Story  # noqa: E402


def generate(n: int) -> None:
    """``n`` published copies of the demo story's row, and their hourly editions."""
    with connection.cursor() as cur:
        columns = [c.name for c in connection.introspection.get_table_description(cur, "stories_story")]
        made = {
            "id": "(1500000000000000000 + g)::text",
            "slug": "'scale-' || g",
            "published_at": "t",
            "created_at": "t",
            "updated_at": "t",
            "revised_at": "NULL",
            "edition_id": "to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24')",
            "edition_date": "(t AT TIME ZONE 'UTC')::date",
            "draft_of_id": "NULL",
            "version": "1",
            # Short texts: the sitemaps read none of them, and a million copies of the demo's
            # would only make the table (and its generation) larger.
            "headline": "'Generated story ' || g",
            "dek": "''",
            "angle": "''",
            "unresolved": "''",
            "decision_card": "''",
        }
        select = ", ".join(made.get(c, c) for c in columns)
        # A benchmark database only: no foreign-key trigger per row (every row references
        # the demo's newsroom and the editions made just before).
        cur.execute("SET session_replication_role = replica")
        series = (
            f"FROM generate_series(1, {n}) AS g, "
            "LATERAL (SELECT timestamptz '2026-10-15 23:00+00' - ((g - 1) / 40) * interval '1 hour' AS t) AS s"
        )
        cur.execute(
            "INSERT INTO newsroom_edition (id, starts_at) SELECT DISTINCT "
            "to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24'), t " + series + " ON CONFLICT DO NOTHING"
        )
        cur.execute(
            f"INSERT INTO stories_story ({', '.join(columns)}) SELECT {select} "
            + series.replace("FROM ", "FROM stories_story AS demo, ")
            + " WHERE demo.id = '81'"
        )
        corrections(cur, n)
        cur.execute("SET session_replication_role = DEFAULT")
        cur.execute("ANALYZE")


def corrections(cur, n: int) -> None:
    """A correction a day after publication for one generated story in 50, and a second
    two days after for one in 500: so ``lastmod`` is read from real rows, as on a site with
    an archive of corrected stories."""
    cur.execute(
        "INSERT INTO stories_correction (story_id, corrected_at, kind, text) "
        "SELECT (1500000000000000000 + g)::text, "
        "timestamptz '2026-10-15 23:00+00' - ((g - 1) / 40) * interval '1 hour' + d * interval '1 day', "
        "'correction', 'A generated correction.' "
        f"FROM generate_series(50, {n}, 50) AS g, generate_series(1, 2) AS d WHERE d = 1 OR g % 500 = 0"
    )


def main(repeat: int) -> None:
    stories = Story.objects.published()
    newest = stories.order_by("-published_at").values_list("published_at", flat=True).first()
    oldest = stories.order_by("published_at").values_list("published_at", flat=True).first()
    print(f"{connection.vendor}, {stories.count():,} published stories, {oldest:%Y-%m} to {newest:%Y-%m}\n")
    client = Client()
    urls = ["/sitemap.xml", f"/sitemaps/{newest:%Y-%m}.xml", f"/sitemaps/{oldest:%Y-%m}.xml", "/sitemap-news.xml"]
    print("| URL | median ms | fastest ms | median CPU ms (Django) | queries | bytes |\n|---|---|---|---|---|---|")
    for url in urls:
        times, cpu = [], []
        for _ in range(repeat):
            reset_queries()
            start, start_cpu = time.perf_counter(), time.process_time()
            with CaptureQueriesContext(connection) as queries:
                response = client.get(url)
            times.append((time.perf_counter() - start) * 1000)
            cpu.append((time.process_time() - start_cpu) * 1000)
            assert response.status_code == 200, (url, response.status_code)
        print(
            f"| `{url}` | {statistics.median(times):.1f} | {min(times):.1f} | {statistics.median(cpu):.1f} "
            f"| {len(queries)} | {len(response.content):,} |"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--generate", type=int, default=0, metavar="N")
    args = parser.parse_args()
    if args.generate:
        started = time.perf_counter()
        generate(args.generate)
        print(f"generated {args.generate:,} stories in {time.perf_counter() - started:.0f} s")
    main(args.repeat)
