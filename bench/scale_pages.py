"""Time the pages the scale target names (story, newsroom, API first and deep page), in-process (Django test client), cache cold
(every request renders) and with a partner key, on whatever database DATABASE_URL names:

    CACHE_URL=dummycache:// DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_scale \\
        .venv/bin/python bench/scale_pages.py [--runs 15] [--deep-page 10000]

Pages: the demo story, its newsroom page and that page's ``--deep-page``th older page (the
``?before=`` cursor of the row it starts after), the home page, the demo's edition page, the
API story list's first page and its ``--deep-page``th cursor page (the cursor of the row that
page starts after, at the API's default page size). Deep pages are skipped when the database
has fewer stories. Prints the median and the query count of each. Run it on the demo
database and on the generated one (``manage.py generate_scale_data``) and compare.
"""

import argparse
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

from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from newsroom.infra import keyset  # noqa: E402
from public.views.site import PAGE_SIZE  # noqa: E402
from stories.models import Story  # noqa: E402
from syndication.models import ApiKey, Partner  # noqa: E402
from syndication.pagination import KeysetPagination, encode_cursor  # noqa: E402


def timed(client, url, runs, **headers):
    client.get(url, **headers)  # warm the connection and the process, not the page cache
    samples = []
    for _ in range(runs):
        with CaptureQueriesContext(connection) as ctx:
            t0 = time.perf_counter()
            response = client.get(url, **headers)
            samples.append((time.perf_counter() - t0) * 1000)
        assert response.status_code == 200, (url, response.status_code, response.content[:200])
    return statistics.median(samples), len(ctx.captured_queries), len(response.content)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--deep-page", type=int, default=10_000)
    args = parser.parse_args()
    partner, _ = Partner.objects.get_or_create(slug="bench-scale", defaults={"name": "Bench scale"})
    _, key = ApiKey.issue(partner=partner, scope="read")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {key}"}
    demo = Story.objects.get(id="81")
    newsroom_url = f"/n/{demo.newsroom.slug}/"
    pages = [("story page", demo.get_absolute_url(), {}), ("newsroom page", newsroom_url, {})]
    total = Story.objects.published().count()
    in_newsroom = Story.objects.published().in_newsroom(demo.newsroom).newest_first()
    if in_newsroom.count() > args.deep_page * PAGE_SIZE:
        row = in_newsroom.values_list("published_at", "id")[(args.deep_page - 1) * PAGE_SIZE - 1]
        pages.append(
            (f"newsroom page, {args.deep_page}th page", f"{newsroom_url}?before={keyset.encode_cursor(*row)}", {})
        )
    pages += [
        ("home page", "/", {}),
        ("edition page (the demo's)", f"/editions/{demo.edition_id}/", {}),
        ("API list, first page", "/api/v1/stories/", auth),
    ]
    size = KeysetPagination.page_size
    if total > args.deep_page * size:
        row = (
            Story.objects.published()
            .order_by("updated_at", "id")
            .values_list("updated_at", "id")[args.deep_page * size - 1]
        )
        pages.append((f"API list, page {args.deep_page}", f"/api/v1/stories/?cursor={encode_cursor(*row)}", auth))
    print(f"{total} published stories on {connection.settings_dict['NAME']}; median of {args.runs}")
    print("| page | median ms | queries | bytes |")
    print("|---|---|---|---|")
    client = Client(HTTP_HOST="127.0.0.1")
    for label, url, headers in pages:
        ms, queries, size_bytes = timed(client, url, args.runs, **headers)
        print(f"| {label} | {ms:.1f} | {queries} | {size_bytes} |")


if __name__ == "__main__":
    main()
