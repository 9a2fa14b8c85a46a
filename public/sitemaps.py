"""Sitemaps: an index (``/sitemap.xml``) of one sitemap per month of publication plus one
of the newsroom pages, and a Google News sitemap of the last two days' stories.

Each sitemap is cheap to render cold whatever the archive's size: the index finds the months
that have published stories in one query, one index probe per month inside the database (a
skip scan on ``story_latest``, status then publication time), and a month's sitemap is a
range query on that index and a join for its corrections. No ``COUNT`` and no ``OFFSET``
over the whole table. Every sitemap follows the ``lists``
generation (``list_page``), so a publish or correction shows at once.
"""

from __future__ import annotations

import datetime as dt
from urllib.parse import urlsplit
from xml.sax.saxutils import escape

from django.conf import settings
from django.db import connections
from django.db.models import CharField, Func, Max
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce, Greatest
from django.http import Http404, HttpResponse
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_safe

from newsroom.infra.jsondoc import xml_text
from newsroom.infra.pagecache import list_page, public
from newsroom.models import Edition, Newsroom
from public.renderings import site_name
from stories.models import Correction, Story

NEWS_WINDOW = dt.timedelta(days=2)
NEWS_LIMIT = 1000
# The sitemaps.org limit on URLs in one sitemap (and on sitemaps in one index).
MONTH_LIMIT = 50_000

XML = "application/xml; charset=utf-8"
HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'
NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
NEWS_NS = 'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"'


def site_url() -> str:
    """URLs on ``settings.SITE_URL``, whatever host the sitemap was asked for on."""
    parts = urlsplit(settings.SITE_URL)
    return f"{parts.scheme or 'https'}://{parts.netloc}"


def w3c(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def month_start(moment: dt.datetime) -> dt.datetime:
    moment = moment.astimezone(dt.UTC)
    return dt.datetime(moment.year, moment.month, 1, tzinfo=dt.UTC)


def next_month(start: dt.datetime) -> dt.datetime:
    return start.replace(year=start.year + 1, month=1) if start.month == 12 else start.replace(month=start.month + 1)


# The first publication at or after the start of the month after ``months.moment``'s: the
# step of the skip scan, in each database's date arithmetic (UTC months).
NEXT_MONTH_SQL = {
    "postgresql": "(date_trunc('month', months.moment AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC'",
    # Django keeps SQLite datetimes as UTC text, 'YYYY-MM-DD HH:MM:SS[.ffffff]': compared as text.
    "sqlite": "datetime(months.moment, 'start of month', '+1 month')",
}


def _first_published(after: str | None = None):
    """The earliest publication (at or after the SQL expression ``after``), as one row."""
    first = Story.objects.published().order_by("published_at").values_list("published_at", flat=True)
    if after is not None:
        first = first.filter(published_at__gte=RawSQL(after, ()))
    return first[:1]


def _moment(value) -> dt.datetime:
    """A publication time as the database answered it outside the ORM (SQLite: text)."""
    if isinstance(value, str):
        value = dt.datetime.fromisoformat(value)
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


def published_months() -> list[dt.datetime]:
    """The first instant (UTC) of each month with a published story, oldest first, in one
    query whatever the number of months: a recursive query whose every step is one indexed
    probe (the earliest publication at or after the next month's start, on ``story_latest``),
    so the cost follows the number of months, not of stories, and the probes run inside the
    database. On a database without the month arithmetic here, one query per month."""
    db = Story.objects.published().db
    connection = connections[db]
    step = NEXT_MONTH_SQL.get(connection.vendor)
    if step is None:
        return _published_months_probing()
    first_sql, first_params = _first_published().query.get_compiler(using=db).as_sql()
    next_sql, next_params = _first_published(step).query.get_compiler(using=db).as_sql()
    sql = (
        f"WITH RECURSIVE months(moment) AS (SELECT ({first_sql}) "
        f"UNION ALL SELECT ({next_sql}) FROM months WHERE months.moment IS NOT NULL) "
        "SELECT moment FROM months WHERE moment IS NOT NULL ORDER BY moment"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, (*first_params, *next_params))
        return [month_start(_moment(moment)) for (moment,) in cursor.fetchall()]


def _published_months_probing() -> list[dt.datetime]:
    """``published_months()`` as one ORM query per month."""
    first_after = Story.objects.published().order_by("published_at").values_list("published_at", flat=True)
    months: list[dt.datetime] = []
    cursor = None
    while True:
        found = (first_after.filter(published_at__gte=cursor) if cursor else first_after).first()
        if found is None:
            return months
        months.append(month_start(found))
        cursor = next_month(months[-1])


def _loc(path: str) -> str:
    return f"<loc>{escape(site_url() + path)}</loc>"


def _xml(body: list[str]) -> HttpResponse:
    return HttpResponse("".join(body), content_type=XML)


@require_safe
@public
@list_page
def sitemap_index(request):
    """The sitemap index: the newsroom pages' sitemap, then one sitemap per month of
    publication, newest first."""
    body = [HEAD, f"<sitemapindex {NS}>\n", f"<sitemap>{_loc(reverse('sitemap-pages'))}</sitemap>\n"]
    for month in reversed(published_months()):
        body.append(f"<sitemap>{_loc(reverse('sitemap-month', args=[f'{month:%Y-%m}']))}</sitemap>\n")
    body.append("</sitemapindex>\n")
    return _xml(body)


@require_safe
@public
@list_page
def pages_sitemap(request):
    """The newsroom pages and the home page (always at least one URL, so never an empty
    ``urlset``)."""
    body = [HEAD, f"<urlset {NS}>\n", f"<url>{_loc(reverse('home'))}<changefreq>hourly</changefreq></url>\n"]
    for slug in Newsroom.objects.having_published().order_by("slug").values_list("slug", flat=True):
        body.append(f"<url>{_loc(reverse('newsroom-detail', args=[slug]))}<changefreq>hourly</changefreq></url>\n")
    body.append("</urlset>\n")
    return _xml(body)


def _month(value: str) -> dt.datetime:
    """The first instant of the month ``YYYY-MM`` names. Only the index's spelling is a
    month (``2026-1`` is not an alias of ``2026-01``), and a month before 1900 or after
    the current one answers 404 without a query."""
    try:
        start = dt.datetime.strptime(value, "%Y-%m").replace(tzinfo=dt.UTC)
    except ValueError:
        raise Http404("No such month") from None
    if f"{start:%Y-%m}" != value or start.year < 1900 or start > month_start(timezone.now()):
        raise Http404("No such month")
    return start


def story_path_prefix() -> str:
    """``/stories/`` as the URLconf has it: a story's path is this, its edition's date and slug."""
    return reverse("story-detail", args=["2000-01-01", "x"]).removesuffix("2000-01-01/x/")


class W3CText(Func):
    """A datetime as ``w3c()`` writes it, made by the database: a month's sitemap has tens
    of thousands of ``lastmod``, and reading each as a datetime only to format it again was
    most of the render's time."""

    output_field = CharField()

    def as_postgresql(self, compiler, connection, **extra):
        return self.as_sql(
            compiler,
            connection,
            template="to_char(%(expressions)s AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')",
            **extra,
        )

    def as_sqlite(self, compiler, connection, **extra):
        # Django keeps SQLite datetimes as UTC text. The format is a parameter: its "%" are
        # not placeholders then, with or without other parameters.
        sql, params = compiler.compile(self.source_expressions[0])
        return f"strftime(%s, {sql})", ("%Y-%m-%dT%H:%M:%SZ", *params)

    def as_sql(self, compiler, connection, template=None, **extra):
        if template is None:  # another database: the datetime itself, formatted by _lastmod()
            return compiler.compile(self.source_expressions[0])
        return super().as_sql(compiler, connection, template=template, **extra)


def _lastmod(value) -> str:
    return value if isinstance(value, str) else w3c(value)


def _month_lastmods(start: dt.datetime, end: dt.datetime) -> list[tuple[str, str, str]]:
    """The edition, slug and ``lastmod`` (as ``w3c()`` writes it) of each story published
    in ``[start, end)``, oldest first, at most ``MONTH_LIMIT``: the last change a reader can
    see, as ``Story.with_last_change()`` has it (publication, revision, latest correction).

    Two queries rather than ``with_last_change()``'s subquery per story (tens of thousands
    of index probes in a month): the stories with their publication and revision, then the
    latest correction of those of them that have one, a join from the corrections made since
    the month began (an earlier one cannot be a story's last change: it is older than the
    publication). The times come as text of one fixed width, so the later is the greater."""
    month = Story.objects.published().filter(published_at__gte=start, published_at__lt=end)
    stories = (
        month.annotate(lastmod=W3CText(Greatest("published_at", Coalesce("revised_at", "published_at"))))
        .order_by("published_at", "id")
        .values_list("id", "edition_id", "slug", "lastmod")[:MONTH_LIMIT]
    )
    corrected = dict(
        Correction.objects.filter(corrected_at__gte=start, story__in=month.values("pk"))
        .order_by()
        .values("story_id")
        .annotate(latest=W3CText(Max("corrected_at")))
        .values_list("story_id", "latest")
    )
    return [
        (edition_id, slug, max(_lastmod(lastmod), _lastmod(corrected.get(pk, lastmod))))
        for pk, edition_id, slug, lastmod in stories
    ]


@require_safe
@public
@list_page
def month_sitemap(request, month: str):
    """The stories published in one month (UTC), oldest first, and the editions that began
    in it: two range queries on the publication time (``_month_lastmods()``), one on the
    editions' start. At most ``MONTH_LIMIT`` URLs in all, stories first (the sitemaps.org
    limit)."""
    start = _month(month)
    end = next_month(start)
    rows = _month_lastmods(start, end)
    base = site_url() + story_path_prefix()
    body = [HEAD, f"<urlset {NS}>\n"]
    body.extend(
        f"<url><loc>{escape(f'{base}{edition_id[:10]}/{slug}/')}</loc><lastmod>{lastmod}</lastmod>"
        "<changefreq>daily</changefreq></url>\n"
        for edition_id, slug, lastmod in rows
    )
    stories = len(body) - 2
    if not stories:
        raise Http404("No stories published that month")
    if stories < MONTH_LIMIT:
        editions = (
            Edition.objects.having_published()
            .filter(starts_at__gte=start, starts_at__lt=end)
            .order_by("starts_at")
            .values_list("id", flat=True)[: MONTH_LIMIT - stories]
        )
        for edition_id in editions:
            body.append(
                f"<url>{_loc(reverse('edition-detail', args=[edition_id]))}<changefreq>daily</changefreq></url>\n"
            )
    body.append("</urlset>\n")
    return _xml(body)


def _news_entry(story, publication: str) -> str:
    return (
        f"<url>{_loc(story.path)}<news:news><news:publication>"
        f"<news:name>{escape(xml_text(publication))}</news:name><news:language>en</news:language></news:publication>"
        f"<news:publication_date>{w3c(story.published_at)}</news:publication_date>"
        f"<news:title>{escape(xml_text(story.headline))}</news:title></news:news></url>\n"
    )


@require_safe
@public
@list_page(period=3600)  # a story leaves it two days after its publication, within the hour
def news_sitemap(request):
    """Google News sitemap: stories published in the last two days, at most 1,000, newest
    first. With none, the home page alone (a plain ``url``, no ``news:news``): the
    sitemaps.org schema requires at least one ``url``, and Google News reads only the
    entries that carry ``news:news``."""
    since = timezone.now() - NEWS_WINDOW
    stories = (
        Story.objects.published().filter(published_at__gte=since).only("slug", "edition_id", "published_at", "headline")
    )
    stories = list(stories.order_by("-published_at", "-id")[:NEWS_LIMIT])
    body = [HEAD, f"<urlset {NS} {NEWS_NS}>\n"]
    publication = site_name()
    body.extend(_news_entry(story, publication) for story in stories)
    if not stories:
        body.append(f"<url>{_loc(reverse('home'))}</url>\n")
    body.append("</urlset>\n")
    return _xml(body)
