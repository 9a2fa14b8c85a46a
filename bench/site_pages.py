"""Time the readers' site: a story page and its renderings, cold (rendered) and warm
(from the page cache), for a small and a large story; and the list pages.

    DEBUG=1 DATABASE_URL=sqlite:////tmp/bench.sqlite3 .venv/bin/python bench/site_pages.py

Uses its own database (migrated and loaded here); never run it against production.
"""

import copy
import io
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "newsroom.settings")

import django

django.setup()

from django.core.cache import cache  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, reset_queries  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from stories import actions, desk  # noqa: E402
from stories.models import Story  # noqa: E402


def make(demo, n, slug, sid):
    if Story.objects.filter(id=sid).exists():
        return
    doc = copy.deepcopy(demo)
    base = demo["sections"][0]["paragraphs"]
    doc["sections"] = [
        {"heading": f"Part {i}", "paragraphs": [copy.deepcopy(base[j % 2]) for j in range(10)]}
        for i in range(n // 10 or 1)
    ]
    doc.update(id=sid, slug=slug)
    actions.import_story(desk.validate(doc), restore=True)


def timed(client, url, runs, clear):
    times, queries = [], 0
    for _ in range(runs):
        if clear:
            cache.clear()
        with CaptureQueriesContext(connection) as ctx:
            t = time.perf_counter()
            response = client.get(url)
            times.append((time.perf_counter() - t) * 1000)
        assert response.status_code == 200, (url, response.status_code)
        queries = len(ctx.captured_queries)
    return statistics.median(times), queries


def main():
    call_command("migrate", verbosity=0)
    call_command("loaddemo", stdout=io.StringIO())
    demo = desk.export_story(Story.objects.with_everything().get(id="81"))
    make(demo, 100, "hundred-paragraphs", "8100")
    client = Client()
    urls = [
        "/stories/2026-10-16/agent-training-stack/",
        "/stories/2026-10-16/agent-training-stack/index.json",
        "/stories/2026-10-16/agent-training-stack/index.txt",
        "/stories/2026-10-16/hundred-paragraphs/",
        "/",
        "/n/artificial-intelligence/",
        "/feed.atom",
        "/feed.json",
        "/sitemap.xml",
        "/search/?q=verifier",
    ]
    print(f"{'url':55} {'cold ms':>8} {'q':>3} {'warm ms':>8} {'q':>3}")
    for url in urls:
        cold, cq = timed(client, url, 15, clear=True)
        warm, wq = timed(client, url, 50, clear=False)
        print(f"{url:55} {cold:8.2f} {cq:3} {warm:8.2f} {wq:3}")
    reset_queries()


if __name__ == "__main__":
    main()
