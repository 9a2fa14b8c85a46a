"""Faults the site must ride out: Redis down (pages come from the database) and the database
unreachable (a clean 503 with Retry-After, then recovery without a restart).

``tests/newsroom/test_prod_cache.py`` covers the degrading cache itself and the home page
and admin with Redis down; here every kind of public page is served with Redis down.
The real PostgreSQL restart under load is ``bench/fault_pg_restart.py`` (docs/reliability.md).
"""

import json
import xml.etree.ElementTree as ET
from unittest import mock

import pytest
from django.db import InterfaceError, OperationalError, connection
from django.http import HttpResponse
from django.urls import path

pytestmark = pytest.mark.django_db

CLOSED_PORT_REDIS = {
    "BACKEND": "newsroom.infra.cache.DegradingRedisCache",
    "LOCATION": "redis://127.0.0.1:1/0",
    "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
}
STORY = "/stories/2026-10-16/agent-training-stack/"


@pytest.fixture
def redis_down(settings):
    settings.CACHES = {"default": CLOSED_PORT_REDIS}


@pytest.mark.parametrize(
    "url",
    [
        STORY,
        STORY + "index.json",
        STORY + "index.md",
        "/n/artificial-intelligence/",
        "/editions/2026-10-16T00/",
        "/corrections/",
        "/manifests/1792067182956183080/",
        "/feed.atom",
        "/feed.rss",
        "/feed.json",
        "/n/artificial-intelligence/feed.atom",
        "/sitemap.xml",
        "/sitemap-news.xml",
    ],
)
def test_pages_and_feeds_are_served_from_the_database_with_redis_down(demo, redis_down, client, url):
    first, second = client.get(url), client.get(url)  # the second would be a cache hit, were Redis up
    assert first.status_code == second.status_code == 200, url
    assert first.content == second.content
    if url.endswith((".atom", ".rss", ".xml")):
        ET.fromstring(first.content)
    elif url.endswith(".json"):
        json.loads(first.content)
    elif url == STORY:
        assert "Agent training" in first.content.decode() or demo.headline in first.content.decode()


# --------------------------------------------------------------------------- database down


def failing_view(exc):
    def view(request):
        raise exc

    return view


urlpatterns = [
    path(
        "down/",
        failing_view(OperationalError("connection to server at 127.0.0.1, port 5432 failed: Connection refused")),
    ),
    path("closed/", failing_view(InterfaceError("connection already closed"))),
    path("api/v1/down/", failing_view(OperationalError("terminating connection due to administrator command"))),
    path("bug/", failing_view(ValueError("a real bug"))),
    path("ok/", lambda request: HttpResponse("fine")),
]


@pytest.fixture
def fault_urls(settings):
    settings.ROOT_URLCONF = __name__


@pytest.mark.parametrize("url", ["/down/", "/closed/"])
def test_a_database_outage_is_a_503_with_retry_after_never_cached(fault_urls, client, url, caplog):
    response = client.get(url)
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response["Cache-Control"] == "no-store"
    assert response["Content-Type"].startswith("text/plain")
    assert "retry" in response.content.decode()
    assert any("database unavailable" in r.getMessage() for r in caplog.records)  # still logged, with the error


def test_the_api_gets_its_503_as_json(fault_urls, client):
    response = client.get("/api/v1/down/")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert json.loads(response.content) == {"detail": "The database is briefly unavailable; please retry shortly."}


def test_other_exceptions_stay_errors(fault_urls, client):
    with pytest.raises(ValueError):  # the test client re-raises what would be a 500
        client.get("/bug/")
    assert client.get("/ok/").content == b"fine"


def test_a_story_page_whose_queries_fail_answers_503(demo, client):
    """The whole stack: the page's first query meets a dead connection (as after a
    PostgreSQL restart) and the reader gets a 503, not a 500."""
    dead = OperationalError("server closed the connection unexpectedly")
    with (
        mock.patch.object(connection, "cursor", side_effect=dead),
        mock.patch.object(connection, "chunked_cursor", side_effect=dead),
    ):
        response = client.get(STORY)
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert client.get(STORY).status_code == 200  # the next request is served again


# --------------------------------------------------------------------------- hostile URLs

HOSTILE_URLS = [
    "/search/?q=%00",
    "/search/?q=a%00b",
    "/search/?%00=x",
    "/editions/%00/",
    "/manifests/%00/",
    "/n/x%00/",
    "/search/?q=" + "x" * 5000,
    "/search/?q=%ED%A0%80",
    "/search/?q=%27%22%3B--%5C%25",
    "/search/?q=%26%7C%21%3A*",
    "/search/?page=abc",
    "/search/?q=a&page=99999999999999999999999",
    "/?page=0",
    "/?page=-1",
    "/?page=1e9",
    "/n/artificial-intelligence/?page=999999999999999999999",
    "/editions/9999-99-99T99/",
    "/editions/2026-10-16T00/?page=x",
    "/stories/2026-13-45/agent-training-stack/",
    "/stories/0000-00-00/x/",
    "/stories/99999-01-01/x/",
    "/manifests/" + "9" * 5000 + "/",
    "/corrections/?page=%00",
    "/n/x/feed.atom",
    "/sitemap.xml?p=abc",
    "/sitemap.xml?p=999",
]


@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_hostile_urls_get_a_4xx_or_a_page_never_a_500(demo, client, url):
    """Regression (PostgreSQL): NUL in a search or a path reached the database, which
    refused it with DataError, a 500. Now any NUL in the URL is a 400."""
    response = client.get(url)
    assert response.status_code < 500, (url, response.status_code)
    if "%00" in url:
        assert response.status_code == 400
