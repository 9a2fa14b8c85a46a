"""The sitemap index and the monthly sitemaps against the way they were built before (one
query per month for the index, a subquery per story for ``lastmod``): the same bytes, on
stories across several months and a new year, with revisions and corrections, and with
drafts and scheduled stories left out; the index in one query whatever the number of
months; and no sitemap over ``MONTH_LIMIT`` URLs."""

import datetime as dt
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape

import pytest
from django.core.cache import cache
from django.urls import reverse

from newsroom.models import Edition
from public import sitemaps
from stories.models import Correction, Story
from tests.public.helpers import import_seed_story

pytestmark = pytest.mark.django_db

SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
UTC = dt.UTC


def at(*args) -> dt.datetime:
    return dt.datetime(*args, tzinfo=UTC)


def iso(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


# Published stories: (id, publication, revision, corrections). Two share a publication time
# (the order falls back on the id), one is revised after its correction, one corrected
# twice, one corrected in a later month, one corrected with a time before its publication.
PUBLISHED = [
    ("930", at(2025, 11, 30, 23, 59, 59), None, [at(2025, 12, 2, 8)]),
    ("931", at(2025, 12, 1, 0, 0, 0), at(2025, 12, 1, 5), []),
    ("932", at(2025, 12, 31, 23, 30, 15), None, [at(2026, 1, 1, 1), at(2026, 1, 3, 4, 5, 6)]),
    ("933", at(2025, 12, 31, 23, 30, 15), at(2026, 1, 4), [at(2026, 1, 2)]),
    ("934", at(2026, 1, 15, 12), None, [at(2026, 1, 14)]),
    ("935", at(2026, 3, 2, 9, 15, 30), None, []),
]


@pytest.fixture
def archive(demo, seed_doc):
    """The demo story (October 2026), the stories above, a draft, and a story scheduled in
    a month of its own (no published story in it)."""
    for pk, published, revised, corrections in PUBLISHED:
        story = import_seed_story(
            seed_doc, id=pk, slug=f"story-{pk}", published_at=iso(published), edition=published.strftime("%Y-%m-%dT%H")
        )
        if revised:
            Story.objects.filter(pk=story.pk).update(revised_at=revised)
        for moment in corrections:
            Correction.objects.create(story=story, corrected_at=moment, kind="correction", text=f"Fixed at {moment}.")
    import_seed_story(seed_doc, id="940", slug="draft-story", published_at=None, edition="2026-02-10T10")
    scheduled = import_seed_story(
        seed_doc, id="941", slug="scheduled-story", published_at=iso(at(2026, 2, 11, 10)), edition="2026-02-11T10"
    )
    Story.objects.filter(pk=scheduled.pk).update(status=Story.Status.SCHEDULED, scheduled_for=at(2026, 2, 11, 10))


def reference_months() -> list[dt.datetime]:
    """The months as the index found them before: one ORM query per month."""
    first_after = Story.objects.published().order_by("published_at").values_list("published_at", flat=True)
    months, cursor = [], None
    while (found := (first_after.filter(published_at__gte=cursor) if cursor else first_after).first()) is not None:
        months.append(sitemaps.month_start(found))
        cursor = sitemaps.next_month(months[-1])
    return months


def reference_index() -> bytes:
    body = [sitemaps.HEAD, f"<sitemapindex {sitemaps.NS}>\n"]
    body.append(f"<sitemap>{sitemaps._loc(reverse('sitemap-pages'))}</sitemap>\n")
    for month in reversed(reference_months()):
        body.append(f"<sitemap>{sitemaps._loc(reverse('sitemap-month', args=[f'{month:%Y-%m}']))}</sitemap>\n")
    body.append("</sitemapindex>\n")
    return "".join(body).encode()


def reference_month(start: dt.datetime) -> bytes:
    """A monthly sitemap as it was built before: ``with_last_change()`` read as datetimes."""
    end = sitemaps.next_month(start)
    rows = (
        Story.objects.published()
        .filter(published_at__gte=start, published_at__lt=end)
        .with_last_change()
        .order_by("published_at", "id")
        .values_list("edition_id", "slug", "last_change")[: sitemaps.MONTH_LIMIT]
    )
    base = sitemaps.site_url() + sitemaps.story_path_prefix()
    body = [sitemaps.HEAD, f"<urlset {sitemaps.NS}>\n"]
    for edition_id, slug, last_change in rows:
        loc = escape(f"{base}{edition_id[:10]}/{slug}/")
        lastmod = sitemaps.w3c(last_change)
        body.append(f"<url><loc>{loc}</loc><lastmod>{lastmod}</lastmod><changefreq>daily</changefreq></url>\n")
    editions = (
        Edition.objects.having_published()
        .filter(starts_at__gte=start, starts_at__lt=end)
        .order_by("starts_at")
        .values_list("id", flat=True)
    )
    for edition_id in editions:
        loc = sitemaps._loc(reverse("edition-detail", args=[edition_id]))
        body.append(f"<url>{loc}<changefreq>daily</changefreq></url>\n")
    body.append("</urlset>\n")
    return "".join(body).encode()


def test_the_months_are_those_with_published_stories(archive):
    expected = [at(2025, 11, 1), at(2025, 12, 1), at(2026, 1, 1), at(2026, 3, 1), at(2026, 10, 1)]
    assert sitemaps.published_months() == reference_months() == expected


def test_the_index_is_the_same_bytes(client, archive):
    response = client.get("/sitemap.xml")
    assert response.status_code == 200
    assert response.content == reference_index()
    assert b"/sitemaps/2026-02.xml" not in response.content  # a draft's and a scheduled story's month


@pytest.mark.parametrize("month", ["2025-11", "2025-12", "2026-01", "2026-03", "2026-10"])
def test_each_month_is_the_same_bytes(client, archive, month):
    response = client.get(f"/sitemaps/{month}.xml")
    assert response.status_code == 200
    assert response.content == reference_month(dt.datetime.strptime(month, "%Y-%m").replace(tzinfo=UTC))


def lastmods(client, month: str) -> dict[str, str]:
    root = ET.fromstring(client.get(f"/sitemaps/{month}.xml").content)
    return {
        u.find(f"{SM}loc").text.rstrip("/").rsplit("/", 1)[1]: u.find(f"{SM}lastmod").text
        for u in root.findall(f"{SM}url")
        if u.find(f"{SM}lastmod") is not None
    }


def test_lastmod_is_the_last_change_a_reader_can_see(client, archive):
    assert lastmods(client, "2025-11") == {"story-930": "2025-12-02T08:00:00Z"}  # corrected next month
    assert lastmods(client, "2025-12") == {
        "story-931": "2025-12-01T05:00:00Z",  # revised
        "story-932": "2026-01-03T04:05:06Z",  # the later of two corrections
        "story-933": "2026-01-04T00:00:00Z",  # revised after its correction
    }
    assert lastmods(client, "2026-01") == {"story-934": "2026-01-15T12:00:00Z"}  # correction dated before


def test_a_month_without_published_stories_is_not_found(client, archive):
    assert client.get("/sitemaps/2026-02.xml").status_code == 404


def months_of_stories(seed_doc, count: int) -> None:
    for i in range(count):
        published = at(2024 + i // 12, i % 12 + 1, 10, 8)
        import_seed_story(
            seed_doc,
            id=str(960 + i),
            slug=f"month-{i}",
            published_at=iso(published),
            edition=f"{published:%Y-%m-%dT%H}",
        )


@pytest.mark.parametrize("months", [0, 1, 14])
def test_the_index_is_one_query_whatever_the_number_of_months(
    client, demo, seed_doc, months, django_assert_num_queries
):
    months_of_stories(seed_doc, months)
    assert len(sitemaps.published_months()) == months + 1
    with django_assert_num_queries(1):
        response = client.get("/sitemap.xml")
    assert response.content == reference_index()


def test_the_index_without_stories(client, db):
    assert sitemaps.published_months() == []
    assert client.get("/sitemap.xml").content == reference_index()


def test_a_month_is_three_queries_whatever_its_corrections(client, archive, django_assert_num_queries):
    with django_assert_num_queries(3):  # its stories, their corrections, its editions
        assert client.get("/sitemaps/2025-12.xml").status_code == 200


def test_the_probing_fallback_finds_the_same_months(archive, monkeypatch):
    """A database without the recursive query's month arithmetic probes month by month."""
    monkeypatch.setattr(sitemaps, "NEXT_MONTH_SQL", {})
    assert sitemaps.published_months() == reference_months()


def urls(client, month: str) -> list[str]:
    return [u.find(f"{SM}loc").text for u in ET.fromstring(client.get(f"/sitemaps/{month}.xml").content)]


@pytest.mark.parametrize("limit", [1, 2, 3, 4, 5, 6])
def test_no_month_holds_more_than_the_limit(client, archive, monkeypatch, limit):
    """December: three stories and their two editions. The stories come first, oldest
    first; the editions fill what the limit leaves."""
    everything = urls(client, "2025-12")
    assert len(everything) == 5
    monkeypatch.setattr(sitemaps, "MONTH_LIMIT", limit)
    cache.clear()  # the page as rendered above, under the same ``lists`` generation
    assert urls(client, "2025-12") == everything[:limit]
    assert [u.rsplit("/", 2)[1] for u in everything[:3]] == ["story-931", "story-932", "story-933"]
