"""The sitemaps against the sitemaps.org schemas and Google News' rules: the index, a monthly
sitemap, the pages sitemap, and the news sitemap with and without recent stories."""

import copy
import datetime as dt
import re
from pathlib import Path

import pytest
from django.utils import timezone
from lxml import etree

from tests.public.helpers import import_seed_story

pytestmark = pytest.mark.django_db

SCHEMAS = Path(__file__).parent / "schemas"
SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
NEWS = "{http://www.google.com/schemas/sitemap-news/0.9}"
W3C_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$")


def schema(name: str) -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(SCHEMAS / name)))


def assert_valid(xsd: str, content: bytes) -> etree._Element:
    root = etree.fromstring(content)
    checker = schema(xsd)
    assert checker.validate(root), checker.error_log
    return root


def fetch(client, url: str) -> bytes:
    response = client.get(url.removeprefix("https://hangingcontext.com"))
    assert response.status_code == 200, url
    assert response["Content-Type"] == "application/xml; charset=utf-8"
    return response.content


def iso(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture
def recent(demo, seed_doc):
    now = timezone.now()
    return import_seed_story(
        seed_doc,
        id="920",
        slug="fresh-story",
        headline='AT&T <b>buys</b> "it" & more',
        published_at=iso(now - dt.timedelta(hours=1)),
        edition=now.strftime("%Y-%m-%dT%H"),
    )


def news_rules(root: etree._Element) -> list[etree._Element]:
    """Google News sitemap rules for each <news:news>; returns them."""
    urls = root.findall(f"{SM}url")
    news = [u.find(f"{NEWS}news") for u in urls if u.find(f"{NEWS}news") is not None]
    assert len(news) <= 1000
    now = timezone.now()
    for item in news:
        publication = item.find(f"{NEWS}publication")
        assert publication.find(f"{NEWS}name").text.strip()
        assert re.fullmatch(r"[a-z]{2,3}(-[A-Za-z]{2,4})?", publication.find(f"{NEWS}language").text)
        date = item.find(f"{NEWS}publication_date").text
        assert W3C_DATETIME.match(date)
        published = dt.datetime.fromisoformat(date.replace("Z", "+00:00"))
        assert now - published <= dt.timedelta(days=2)
        assert item.find(f"{NEWS}title").text.strip()
    return news


def without_news(root: etree._Element) -> etree._Element:
    """The document with its news:news elements taken out, for the sitemaps.org schema
    (whose strict wildcard wants a schema for every foreign element)."""
    root = copy.deepcopy(root)
    for item in root.iter(f"{NEWS}news"):
        item.getparent().remove(item)
    return root


def test_the_index_and_every_sitemap_it_lists_are_valid(client, recent):
    index = assert_valid("siteindex.xsd", fetch(client, "/sitemap.xml"))
    locs = [loc.text for loc in index.iter(f"{SM}loc")]
    assert locs == [
        "https://hangingcontext.com/sitemaps/pages.xml",
        f"https://hangingcontext.com/sitemaps/{recent.published_at:%Y-%m}.xml",
        "https://hangingcontext.com/sitemaps/2026-10.xml",
    ]
    for loc in locs:
        assert_valid("sitemap.xsd", fetch(client, loc))


def test_a_monthly_sitemap_lists_that_months_stories_and_editions(client, recent):
    root = assert_valid("sitemap.xsd", fetch(client, "/sitemaps/2026-10.xml"))
    urls = [u.find(f"{SM}loc").text for u in root.findall(f"{SM}url")]
    assert urls == [
        "https://hangingcontext.com/stories/2026-10-16/agent-training-stack/",
        "https://hangingcontext.com/editions/2026-10-16T00/",
    ]
    assert recent.url not in urls
    assert recent.url in fetch(client, f"/sitemaps/{recent.published_at:%Y-%m}.xml").decode()


@pytest.mark.parametrize("month", ["2026-09", "2026-13", "26-10", "9999-99", "2026-1x"])
def test_a_month_without_stories_or_malformed_is_not_found(client, demo, month):
    assert client.get(f"/sitemaps/{month}.xml").status_code == 404


def test_a_draft_gives_its_month_no_sitemap(client, demo, seed_doc):
    import_seed_story(seed_doc, id="921", slug="draft", published_at=None, edition="2026-11-02T00")
    assert "2026-11" not in fetch(client, "/sitemap.xml").decode()
    assert client.get("/sitemaps/2026-11.xml").status_code == 404


def test_news_sitemap_with_a_recent_story_is_valid_and_follows_google_news_rules(client, recent):
    root = etree.fromstring(fetch(client, "/sitemap-news.xml"))
    [item] = news_rules(root)
    assert item.find(f"{NEWS}title").text == recent.headline  # escaped in the XML, exact once parsed
    assert_valid("sitemap.xsd", etree.tostring(without_news(root)))


def test_news_sitemap_with_no_recent_story_is_still_a_valid_urlset(client, demo):
    content = fetch(client, "/sitemap-news.xml")
    root = assert_valid("sitemap.xsd", content)
    assert news_rules(root) == []
    assert [u.find(f"{SM}loc").text for u in root.findall(f"{SM}url")] == ["https://hangingcontext.com/"]


def test_news_sitemap_on_an_empty_site_is_valid(client, db):
    assert_valid("sitemap.xsd", fetch(client, "/sitemap-news.xml"))
    index = assert_valid("siteindex.xsd", fetch(client, "/sitemap.xml"))
    assert [loc.text for loc in index.iter(f"{SM}loc")] == ["https://hangingcontext.com/sitemaps/pages.xml"]
    assert_valid("sitemap.xsd", fetch(client, "/sitemaps/pages.xml"))


def test_robots_txt_points_at_the_index(client, db):
    lines = client.get("/robots.txt").content.decode().splitlines()
    assert "Sitemap: https://hangingcontext.com/sitemap.xml" in lines


def test_a_new_story_reaches_the_index_and_its_month_at_once(client, demo, seed_doc):
    assert "2026-11" not in fetch(client, "/sitemap.xml").decode()
    story = import_seed_story(
        seed_doc, id="922", slug="november", published_at="2026-11-03T10:00:00Z", edition="2026-11-03T10"
    )
    assert "/sitemaps/2026-11.xml" in fetch(client, "/sitemap.xml").decode()
    assert story.url in fetch(client, "/sitemaps/2026-11.xml").decode()


def test_unknown_parameters_do_not_make_new_entries(client, demo):
    first = client.get("/sitemap.xml")
    assert client.get("/sitemap.xml?x=1")["ETag"] == first["ETag"]
