"""Redis down must not take the site down: the cache degrades to misses."""

import logging
import socket
import uuid

import pytest
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache

from newsroom.infra.cache import DegradingRedisCache

CLOSED_PORT_REDIS = {
    "BACKEND": "newsroom.infra.cache.DegradingRedisCache",
    "LOCATION": "redis://127.0.0.1:1/0",
    "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
}


def redis_is_up() -> bool:
    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=0.2).close()
        return True
    except OSError:
        return False


@pytest.fixture
def down_cache(settings):
    settings.CACHES = {"default": CLOSED_PORT_REDIS}
    return caches["default"]


def test_every_call_answers_as_an_empty_cache_when_redis_is_down(down_cache):
    assert isinstance(down_cache, DegradingRedisCache)
    assert down_cache.get("k") is None
    assert down_cache.get("k", "fallback") == "fallback"
    assert down_cache.set("k", "v") is None
    assert down_cache.add("k", "v") is False
    assert down_cache.get_many(["a", "b"]) == {}
    assert down_cache.set_many({"a": 1, "b": 2}) == ["a", "b"]
    assert down_cache.has_key("k") is False
    assert down_cache.delete("k") is False
    assert down_cache.get_or_set("k", "computed") == "computed"
    with pytest.raises(ValueError):
        down_cache.incr("counter")


def test_an_outage_is_logged_once_not_per_call(down_cache, caplog):
    with caplog.at_level(logging.ERROR, logger="newsroom.infra.cache"):
        for _ in range(5):
            down_cache.get("k")
    assert len(caplog.records) == 1
    assert "cache unreachable" in caplog.records[0].getMessage()


def test_after_a_failure_redis_is_not_retried_for_a_while(down_cache, monkeypatch):
    calls = []
    real_get = RedisCache.get

    def counting_get(self, *args, **kwargs):
        calls.append(1)
        return real_get(self, *args, **kwargs)

    down_cache.get("k")  # fails, opens the breaker
    monkeypatch.setattr(RedisCache, "get", counting_get)
    down_cache.get("k")
    assert calls == []


@pytest.mark.django_db
def test_pages_sessions_and_the_admin_work_with_redis_down(down_cache, client, django_user_model):
    editor = django_user_model.objects.create_superuser("ed", "ed@example.com", "pw-long-enough-123")
    client.force_login(editor)  # cached_db: written to the database, the cache write is skipped
    assert client.get("/").status_code == 200
    assert client.get("/admin/").status_code == 200  # the session is read back from the database


@pytest.mark.skipif(not redis_is_up(), reason="no Redis on 127.0.0.1:6379")
def test_with_redis_up_values_round_trip(settings):
    settings.CACHES = {
        "default": {**CLOSED_PORT_REDIS, "LOCATION": "redis://127.0.0.1:6379/0", "KEY_PREFIX": uuid.uuid4().hex}
    }
    cache = caches["default"]
    cache.set("k", {"v": 1}, 10)
    assert cache.get("k") == {"v": 1}
    assert cache.add("n", 1) is True
    assert cache.incr("n") == 2
    cache.delete_many(["k", "n"])


@pytest.fixture(params=["locmem", "redis"])
def counting_cache(request, settings):
    if request.param == "redis":
        if not redis_is_up():
            pytest.skip("no Redis on 127.0.0.1:6379")
        settings.CACHES = {
            "default": {**CLOSED_PORT_REDIS, "LOCATION": "redis://127.0.0.1:6379/0", "KEY_PREFIX": uuid.uuid4().hex}
        }
    else:
        settings.CACHES = {
            "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": uuid.uuid4().hex}
        }
    cache = caches["default"]
    yield cache
    cache.delete_many(["c", "other"])


def test_count_and_read_counts_reads_the_other_counter_and_plain_gets_see_it(counting_cache):
    from newsroom.infra.cache import count_and_read

    assert count_and_read(counting_cache, "c", 60) == (1, None)
    assert count_and_read(counting_cache, "c", 60, other="other") == (2, None)
    counting_cache.set("other", 5)
    assert count_and_read(counting_cache, "c", 60, other="other") == (3, 5)
    assert counting_cache.get("c") == 3  # a plain integer: usage.flush reads and decrements it
    assert counting_cache.decr("c", 3) == 0


@pytest.mark.skipif(not redis_is_up(), reason="no Redis on 127.0.0.1:6379")
def test_count_and_read_on_redis_is_one_round_trip_and_sets_the_ttl_once(settings):
    from newsroom.infra.cache import count_and_read

    settings.CACHES = {
        "default": {**CLOSED_PORT_REDIS, "LOCATION": "redis://127.0.0.1:6379/0", "KEY_PREFIX": uuid.uuid4().hex}
    }
    cache = caches["default"]
    client = cache._cache.get_client(write=True)
    key = cache.make_and_validate_key("c")
    commands = []
    original = client.__class__.pipeline

    def spy(self, *args, **kwargs):
        pipe = original(self, *args, **kwargs)
        execute = pipe.execute
        pipe.execute = lambda *a, **kw: commands.append(len(pipe.command_stack)) or execute(*a, **kw)
        return pipe

    client.__class__.pipeline = spy
    try:
        count_and_read(cache, "c", 100, other="other")
        count_and_read(cache, "c", 5000)
    finally:
        client.__class__.pipeline = original
    assert commands == [3, 2]  # one pipeline (one round trip) per call
    assert 0 < client.ttl(key) <= 100  # EXPIRE NX: the first use set it, the second left it
    cache.delete("c")


def test_count_and_read_fails_open_when_redis_is_down(down_cache):
    from newsroom.infra.cache import count_and_read

    assert count_and_read(down_cache, "c", 60, other="other") == (None, None)
