"""The API's stored answers (``syndication.fastpath``) are kept per scheme and host: the
stories list holds an absolute ``next`` URL built from the host and scheme of the request,
and a partner follows it with its key, so each partner gets the host it asked for, never one
another client sent. Only hosts the site names (``ALLOWED_HOSTS`` literally, ``named_host``)
get stored answers: under a wildcard, ``Host: a.example.com``, ``Host: b.example.com``... are
answered by the full path and cannot fill the cache with one entry each."""

import pytest
from django.test import override_settings

from tests.syndication.helpers import client_for

pytestmark = pytest.mark.django_db

HOSTS = ["news.example.com", "api.example.com", ".example.com"]
PAGE = "/api/v1/stories/?page_size=1"


@pytest.fixture
def two_stories(demo, make_story):
    """Two published stories: the first page of ``page_size=1`` has a ``next``."""
    make_story(slug="second")


def warm_key(client, host: str) -> None:
    """A polling partner: its key's use recorded and its key cached (the warm path)."""
    for _ in range(2):
        assert client.get("/api/v1/newsrooms/", HTTP_HOST=host).status_code == 200


@override_settings(ALLOWED_HOSTS=HOSTS)
def test_a_wildcard_host_does_not_reach_other_partners(two_stories, read_key, writer_key):
    other = client_for(writer_key[1])
    partner = client_for(read_key[1])
    warm_key(partner, "news.example.com")

    elsewhere = other.get(PAGE, HTTP_HOST="evil.example.com")
    assert elsewhere.status_code == 200
    assert elsewhere.json()["next"].startswith("http://evil.example.com/")

    answer = partner.get(PAGE, HTTP_HOST="news.example.com")
    assert answer.status_code == 200
    assert answer.json()["next"].startswith("http://news.example.com/"), answer.json()["next"]


@override_settings(ALLOWED_HOSTS=HOSTS)
def test_each_named_host_and_scheme_has_its_own_stored_answer(two_stories, read_key, stored, django_assert_num_queries):
    partner = client_for(read_key[1])
    warm_key(partner, "news.example.com")
    asks = [("news.example.com", False), ("api.example.com", False), ("news.example.com", True)]
    firsts = {}
    for host, secure in asks:
        response = partner.get(PAGE, HTTP_HOST=host, secure=secure)
        assert response.status_code == 200
        firsts[host, secure] = response
    assert len(set(stored)) == 3
    for (host, secure), first in firsts.items():
        scheme = "https" if secure else "http"
        assert first.json()["next"].startswith(f"{scheme}://{host}/api/v1/stories/?")
        with django_assert_num_queries(0):  # the stored answer of this host and scheme
            again = partner.get(PAGE, HTTP_HOST=host, secure=secure)
        assert again.content == first.content
        assert again["ETag"] == first["ETag"]


@override_settings(ALLOWED_HOSTS=HOSTS)
def test_an_etag_from_another_host_is_not_a_match(two_stories, read_key, writer_key):
    partner = client_for(read_key[1])
    warm_key(partner, "news.example.com")
    etag = client_for(writer_key[1]).get(PAGE, HTTP_HOST="evil.example.com")["ETag"]
    answer = partner.get(PAGE, HTTP_HOST="news.example.com", HTTP_IF_NONE_MATCH=etag)
    assert answer.status_code == 200
    assert answer.json()["next"].startswith("http://news.example.com/")


@override_settings(ALLOWED_HOSTS=HOSTS)
@pytest.mark.parametrize("host", ["a.example.com", "b.example.com", "News.example.com", "news.example.com:8000"])
def test_hosts_the_site_does_not_name_are_answered_but_not_stored(two_stories, read_key, stored, host):
    partner = client_for(read_key[1])
    warm_key(partner, host)
    for _ in range(2):
        response = partner.get(PAGE, HTTP_HOST=host)
        assert response.status_code == 200
        assert response.json()["next"].startswith(f"http://{host}/")
    assert stored == []
