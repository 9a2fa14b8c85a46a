"""The story page's cold rendering in-process, whole and by phase: median wall and process
CPU milliseconds, and the query count ("time per render" in docs/benchmarks.md).

    DEBUG=0 SECRET_KEY=x SIGNING_KEY=$(python3 -c 'import secrets; print(secrets.token_urlsafe(32))') \\
    SECURE_SSL_REDIRECT=0 CACHE_URL=dummycache:// \\
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_pages .venv/bin/python bench/story_render.py [--runs 30] [--root DIR]

``--root`` runs another checkout's code (e.g. ``git archive`` of an older commit, with a
``.venv`` and ``staticfiles`` link) against the same database, to compare before and after.
CPU time is reported because wall time swings with whatever else shares the machine.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

parser = argparse.ArgumentParser()
parser.add_argument("--runs", type=int, default=30)
parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
args = parser.parse_args()
sys.path.insert(0, args.root)
os.chdir(args.root)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "newsroom.settings")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.template.loader import render_to_string  # noqa: E402
from django.test import Client, RequestFactory  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from newsroom.models import SiteProfile  # noqa: E402
from public import presenters  # noqa: E402
from stories import desk  # noqa: E402
from stories.models import Story  # noqa: E402


def load(pk):
    published = Story.objects.published()
    if hasattr(published, "loaded"):
        return published.loaded(pk)
    return published.with_everything().filter(pk=pk).first()  # before Story.objects.loaded()


def main():
    demo = Story.objects.published().get(slug=os.environ.get("BENCH_SLUG", "agent-training-stack"))
    url = demo.get_absolute_url()
    client, request = Client(HTTP_HOST="127.0.0.1"), RequestFactory().get(url)
    names = ("whole request", "load the story", "export_story", "story_context", "template")
    wall, cpu = {n: [] for n in names}, {n: [] for n in names}

    def timed(name, keep, f, *args, **kwargs):
        t, p = time.perf_counter(), time.process_time()
        out = f(*args, **kwargs)
        if keep:
            wall[name].append((time.perf_counter() - t) * 1000)
            cpu[name].append((time.process_time() - p) * 1000)
        return out

    for i in range(args.runs + 3):  # three to warm the process
        keep = i >= 3
        with CaptureQueriesContext(connection) as ctx:
            response = timed("whole request", keep, client.get, url)
        profile = SiteProfile.load()
        story = timed("load the story", keep, load, demo.pk)
        d = timed("export_story", keep, desk.export_story, story, profile=profile)
        context = timed("story_context", keep, presenters.story_context, story, d)
        timed("template", keep, render_to_string, "public/story_detail.html", context, request=request)
    print(f"{args.root}: {len(ctx.captured_queries)} queries, {len(response.content)} bytes, median of {args.runs}")
    for n in names:
        print(f"  {n:15s} wall {statistics.median(wall[n]):7.1f} ms   cpu {statistics.median(cpu[n]):6.1f} ms")


if __name__ == "__main__":
    main()
