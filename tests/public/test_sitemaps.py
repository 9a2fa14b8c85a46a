"""/sitemap.xml, the Google News sitemap and robots.txt."""

import datetime as dt
import xml.etree.ElementTree as ET

import pytest
from django.utils import timezone

from stories.models import Story
from tests.public.helpers import import_seed_story

pytestmark = pytest.mark.django_db

SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
NEWS = "{http://www.google.com/schemas/sitemap-news/0.9}"


def iso(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture
def recent(demo, seed_doc):
    """The demo story (old), one published an hour ago, and a draft from today."""
    now = timezone.now()
    edition = now.strftime("%Y-%m-%dT%H")
    fresh = import_seed_story(
        seed_doc, id="910", slug="fresh-story", published_at=iso(now - dt.timedelta(hours=1)), edition=edition
    )
    import_seed_story(seed_doc, id="911", slug="draft-story", published_at=None, edition=edition)
    return fresh


def all_urls(client) -> tuple[list[str], ET.Element]:
    """Every URL the sitemap index leads to, and the <url> elements they came from."""
    index = ET.fromstring(client.get("/sitemap.xml").content)
    root = ET.Element("all")
    for loc in index.iter(f"{SM}loc"):
        response = client.get(loc.text.removeprefix("https://hangingcontext.com"))
        assert response.status_code == 200
        root.extend(ET.fromstring(response.content).findall(f"{SM}url"))
    return [u.find(f"{SM}loc").text for u in root], root


def test_sitemap_lists_published_stories_newsrooms_and_editions(client, recent):
    urls, root = all_urls(client)
    assert "https://hangingcontext.com/stories/2026-10-16/agent-training-stack/" in urls
    assert recent.url in urls
    assert "https://hangingcontext.com/n/artificial-intelligence/" in urls
    assert "https://hangingcontext.com/editions/2026-10-16T00/" in urls
    assert not any("draft-story" in u for u in urls)
    [demo_url] = [u for u in root.findall(f"{SM}url") if u.find(f"{SM}loc").text.endswith("agent-training-stack/")]
    assert demo_url.find(f"{SM}lastmod").text.startswith("2026-10-16")


def test_news_sitemap_has_only_the_last_two_days(client, recent):
    response = client.get("/sitemap-news.xml")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/xml; charset=utf-8"
    root = ET.fromstring(response.content)
    urls = root.findall(f"{SM}url")
    assert [u.find(f"{SM}loc").text for u in urls] == [recent.url]
    news = urls[0].find(f"{NEWS}news")
    assert news.find(f"{NEWS}publication/{NEWS}name").text == "Hanging Context"
    assert news.find(f"{NEWS}publication/{NEWS}language").text == "en"
    assert news.find(f"{NEWS}title").text == recent.headline
    assert news.find(f"{NEWS}publication_date").text.startswith(recent.published_at.strftime("%Y-%m-%dT%H:%M"))


def test_news_sitemap_is_capped(client, recent, monkeypatch):
    from public import sitemaps

    monkeypatch.setattr(sitemaps, "NEWS_LIMIT", 0)
    assert list(ET.fromstring(client.get("/sitemap-news.xml").content).iter(f"{NEWS}news")) == []


def test_unpublished_story_leaves_the_sitemaps(client, recent):
    Story.objects.filter(pk=recent.pk).update(status="draft", published_at=None)
    assert recent.url not in all_urls(client)[0]
    assert recent.url not in client.get("/sitemap-news.xml").content.decode()


def test_robots_txt_lists_the_sitemaps(client, db):
    response = client.get("/robots.txt")
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    lines = response.content.decode().splitlines()
    assert "Sitemap: https://hangingcontext.com/sitemap.xml" in lines
    assert "Sitemap: https://hangingcontext.com/sitemap-news.xml" in lines
    assert "Disallow: /admin/" in lines


@pytest.mark.parametrize(
    "url,most",
    [
        ("/sitemap.xml", 1),
        ("/sitemaps/pages.xml", 1),
        ("/sitemaps/2026-10.xml", 3),
        ("/sitemap-news.xml", 1),
        ("/robots.txt", 0),
    ],
)
def test_sitemap_query_counts(client, recent, url, most, django_assert_max_num_queries):
    # sitemap.xml: one query for every month (a recursive skip scan);
    # a month: its stories, their corrections and its editions
    with django_assert_max_num_queries(most):
        assert client.get(url).status_code == 200


def test_news_sitemap_drops_a_story_two_days_on_even_for_a_reader_holding_it(client, recent):
    import time_machine

    first = client.get("/sitemap-news.xml")
    assert recent.url in first.content.decode()
    with time_machine.travel(timezone.now() + dt.timedelta(days=2, hours=1)):
        # nothing was published meanwhile: the page is still another page, not a 304
        response = client.get("/sitemap-news.xml", HTTP_IF_NONE_MATCH=first["ETag"])
        assert response.status_code == 200
        assert response["ETag"] != first["ETag"]
        assert recent.url not in response.content.decode()


@pytest.mark.parametrize("url", ["/feed.atom", "/feed.rss"])
def test_a_warm_feed_keeps_the_headers_of_a_cold_one(client, recent, url):
    cold, warm = client.get(url), client.get(url)
    assert cold["Last-Modified"] and warm["Last-Modified"] == cold["Last-Modified"]
    assert warm["Content-Type"] == cold["Content-Type"] and warm.content == cold.content
