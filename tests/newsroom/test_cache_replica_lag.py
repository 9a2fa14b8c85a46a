"""With read replicas, what is read just after a change may come from a replica that has not
replayed it: nothing read within the replicas' lag headroom (``DATABASE_PIN_SECONDS``) of the
change that moved a generation is kept under it, nor given an ETag a later read would give
(``newsroom.infra.pagecache.settled``). Without replicas, everything is kept at once."""

import time
from urllib.parse import urlsplit

import pytest
from django.core.cache import cache

from newsroom.infra import pagecache
from public.views import copies

pytestmark = pytest.mark.django_db

LAG = 15


@pytest.fixture
def replicas(settings):
    settings.DATABASE_REPLICAS = ["replica1"]  # routing needs the alias; what is kept does not
    settings.DATABASE_PIN_SECONDS = LAG


@pytest.fixture
def url(demo):
    return urlsplit(demo.url).path


def moved(name: str, seconds_ago: float) -> None:
    """The generation ``name`` as moved ``seconds_ago`` by a change."""
    cache.set(pagecache.generation_key(name), f"{time.time() - seconds_ago:.6f}", None)
    pagecache._recent.clear()


def all_moved(story_id: str, seconds_ago: float) -> None:
    for name in ("lists", "sources", f"sources:{story_id}"):
        moved(name, seconds_ago)


def test_settled_only_after_the_lag_headroom_with_replicas(settings):
    now = f"{time.time():.6f}"
    earlier = f"{time.time() - LAG - 1:.6f}"
    assert pagecache.settled(now)  # no replicas
    settings.DATABASE_REPLICAS, settings.DATABASE_PIN_SECONDS = ["replica1"], LAG
    assert not pagecache.settled(now)
    assert not pagecache.settled(earlier, now)
    assert pagecache.settled(earlier)
    assert pagecache.settled("0")  # a cache that keeps nothing: nothing is kept anyway


def test_a_story_read_just_after_a_change_is_served_but_not_kept(replicas, client, demo, url):
    all_moved(demo.pk, 1)
    first = client.get(url)
    second = client.get(url)
    assert first.status_code == second.status_code == 200 and first.content == second.content
    assert copies._copies == {}
    assert cache.get(f"page:story-url:{pagecache.CODE_VERSION}:html:2026-10-16:agent-training-stack") is None
    # Once the replicas have had their headroom, the same reads are kept, under another ETag.
    all_moved(demo.pk, LAG + 1)
    settled = client.get(url)
    client.get(url)
    assert settled.content == first.content
    assert settled["ETag"] != first["ETag"]
    assert len(copies._copies) == 1
    # A revalidation of the unsettled ETag is not a 304 now: the page is read again.
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 200
    assert client.get(url, HTTP_IF_NONE_MATCH=settled["ETag"]).status_code == 304


def test_a_list_read_just_after_a_change_is_served_but_not_kept(replicas, client, demo):
    moved("lists", 1)
    first = client.get("/")
    assert first.status_code == 200
    assert cache.get(f"page:{first['ETag']}") is None
    assert client.get("/", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304  # within the window
    moved("lists", LAG + 1)
    settled = client.get("/")
    assert settled["ETag"] != first["ETag"] and settled.content == first.content
    assert cache.get(f"page:{settled['ETag']}") is not None
    assert client.get("/", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 200


def test_without_replicas_a_fresh_change_is_kept_at_once(client, demo, url):
    all_moved(demo.pk, 0)
    first = client.get(url)
    client.get(url)
    assert len(copies._copies) == 1
    home = client.get("/")
    assert cache.get(f"page:{home['ETag']}") is not None
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
