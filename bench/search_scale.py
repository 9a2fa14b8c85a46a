"""Search at scale: the first page of results from the stored, GIN-indexed documents
(``StorySearch``) against the vector built from every story's rows at every search (what
search did before the documents were stored), in turns, on a real database.

    DEBUG=0 SECRET_KEY=... SIGNING_KEY=... DATABASE_URL=postgres://postgres@127.0.0.1:5432/scale100k \\
        .venv/bin/python bench/search_scale.py [--runs 5] [QUERY ...]

Fill the database first (``manage.py migrate``, then ``manage.py generate_scale_data
--stories N ...``). Each query runs as the search page runs it (published stories, newsroom
and beat joined, best first, 21 rows: a page and one more); one line per query and way:
the median and best of ``--runs`` wall times in ms, and the rows found.
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

import django  # noqa: E402

django.setup()

from django.contrib.postgres.aggregates import StringAgg  # noqa: E402
from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector  # noqa: E402
from django.db import connection, models  # noqa: E402
from django.db.models.functions import Coalesce  # noqa: E402

from stories.models import Paragraph, Story  # noqa: E402

PAGE = 21


def stored(query: str):
    return Story.objects.published().select_related("newsroom", "beat").search(query)


def on_the_fly(query: str):
    body = (
        Paragraph.objects.filter(section__story=models.OuterRef("pk"))
        .order_by()
        .values("section__story")
        .annotate(text=StringAgg("markdown", delimiter=" "))
        .values("text")
    )
    vector = (
        SearchVector("headline", weight="A", config="english")
        + SearchVector("dek", weight="B", config="english")
        + SearchVector(
            Coalesce(models.Subquery(body), models.Value(""), output_field=models.TextField()),
            weight="C",
            config="english",
        )
    )
    search = SearchQuery(query, search_type="websearch", config="english")
    return (
        Story.objects.published()
        .select_related("newsroom", "beat")
        .annotate(search_document=vector)
        .filter(search_document=search)
        .annotate(search_rank=SearchRank(models.F("search_document"), search))
        .order_by("-search_rank", "-published_at", "-id")
    )


def timed(make, query: str) -> tuple[float, int]:
    start = time.perf_counter()
    rows = list(make(query)[:PAGE])
    return (time.perf_counter() - start) * 1000, len(rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("queries", nargs="*", default=["agents", "memory policy", "chips release", "zzzyzx"])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        sys.exit("search_scale measures PostgreSQL's search")
    stories = Story.objects.published().count()
    print(f"{stories} published stories; {args.runs} runs a query, in turns")
    print("| query | way | median ms | best ms | rows |")
    print("|---|---|---|---|---|")
    for query in args.queries:
        times = {"stored document": [], "vector from the rows": []}
        for _ in range(args.runs):
            for way, make in (("stored document", stored), ("vector from the rows", on_the_fly)):
                ms, rows = timed(make, query)
                times[way].append((ms, rows))
        for way, runs in times.items():
            ms = [m for m, _ in runs]
            print(f"| `{query}` | {way} | {statistics.median(ms):.1f} | {min(ms):.1f} | {runs[0][1]} |")


if __name__ == "__main__":
    main()
