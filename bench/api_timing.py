"""In-process timing of the partner API's story endpoints: the list (50 stories),
a story's desk/1 document and its ninjs, through Django's test client with a partner key.

    export DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_api   # filled by bench/api_stories.py 50
    CACHE_URL=redis://127.0.0.1:6379/7 .venv/bin/python bench/api_timing.py     # warm: the cache keeps entries
    CACHE_URL=dummycache:// .venv/bin/python bench/api_timing.py                # cold: every request renders

Prints, per endpoint, the median and 90th percentile of ``--repeat`` requests (after one
request that fills the cache), this process's CPU time per request (what a busy machine
disturbs least: waiting for PostgreSQL and Redis is not in it) and the queries one request
makes. Runs with DEBUG=0.
"""

import argparse
import os
import secrets
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "newsroom.settings")
os.environ["DEBUG"] = "0"
os.environ.setdefault("SECRET_KEY", "bench-only")
os.environ.setdefault("SIGNING_KEY", secrets.token_urlsafe(32))
os.environ.setdefault("ALLOWED_HOSTS", "testserver")
os.environ.setdefault("SECURE_SSL_REDIRECT", "0")
os.environ.setdefault("API_RATE", "100000000/min")
os.environ.setdefault("CONN_MAX_AGE", "600")  # as the benchmark server: no connect per request

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402

from stories.models import Story  # noqa: E402
from syndication.models import ApiKey, Partner  # noqa: E402


def main(repeat: int) -> None:
    partner, _ = Partner.objects.get_or_create(slug="bench-timing", defaults={"name": "bench timing"})
    _, plaintext = ApiKey.issue(partner=partner)
    client = Client(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    story = Story.objects.published().order_by("id").first()
    paths = {
        "list (50)": "/api/v1/stories/?page_size=50",
        "detail": f"/api/v1/stories/{story.pk}/",
        "ninjs": f"/api/v1/stories/{story.pk}/ninjs",
    }
    print(
        f"cache {os.environ.get('CACHE_URL', '(settings default)')}; {Story.objects.published().count()} published stories"
    )
    for name, path in paths.items():
        first = client.get(path)  # fills the cache; records the key's first use
        assert first.status_code == 200, (path, first.status_code)
        client.get(path)  # caches the key
        queries = []  # counted by a wrapper: request_started clears connection.queries
        with connection.execute_wrapper(
            lambda execute, sql, *args, seen=queries: seen.append(sql) or execute(sql, *args)
        ):
            client.get(path)
        times = []
        cpu = time.process_time()
        for _ in range(repeat):
            start = time.perf_counter()
            response = client.get(path)
            times.append((time.perf_counter() - start) * 1000)
            assert response.status_code == 200
        cpu = (time.process_time() - cpu) * 1000 / repeat
        times.sort()
        p90 = times[int(len(times) * 0.9) - 1]
        print(
            f"{name:10} {len(first.content):>8} bytes  median {statistics.median(times):7.2f} ms  "
            f"p90 {p90:7.2f} ms  CPU {cpu:7.2f} ms  {len(queries)} queries"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=30)
    main(parser.parse_args().repeat)
