"""/healthz says the process is up; /readyz says the database and the cache answer."""

import pytest
from django.db import OperationalError, connections

pytestmark = pytest.mark.django_db

CLOSED_REDIS = {
    "default": {
        "BACKEND": "newsroom.infra.cache.DegradingRedisCache",
        "LOCATION": "redis://127.0.0.1:1/0",
        "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
    }
}


def test_healthz_answers_without_touching_the_database(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert response["Cache-Control"] == "no-store"


def test_readyz_is_ok_when_database_and_cache_answer(client, django_assert_max_num_queries):
    with django_assert_max_num_queries(1):
        response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": {"database:default": "ok", "cache": "ok"}}


def test_readyz_is_503_naming_the_database_when_it_is_unreachable(client, monkeypatch):
    def refuse(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(connections["default"], "cursor", refuse)
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["failed"] == ["database:default"]
    assert body["checks"]["database:default"] == "error: OperationalError"
    assert body["checks"]["cache"] == "ok"
    assert "connection refused" not in response.content.decode()  # details go to the log only


def test_readyz_is_503_naming_the_cache_when_redis_is_down(client, settings):
    settings.CACHES = CLOSED_REDIS
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["failed"] == ["cache"]
    assert response.json()["checks"]["database:default"] == "ok"


def test_readyz_is_503_when_a_cache_call_raises(client, monkeypatch):
    from django.core.cache import cache

    def broken(*args, **kwargs):
        raise ConnectionError("boom")

    monkeypatch.setattr(cache, "set", broken)
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["cache"] == "error: ConnectionError"


def test_probes_answer_whatever_the_host_header(client):
    # Load balancers probe by IP address, which is not in ALLOWED_HOSTS.
    for path in ("/healthz", "/readyz"):
        response = client.get(path, HTTP_HOST="10.1.2.3:8000")
        assert response.status_code == 200, path


def test_probes_are_exempt_from_the_ssl_redirect(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/healthz").status_code == 200
    assert client.get("/n/x/").status_code == 301  # while ordinary pages redirect


def test_probes_have_named_routes():
    from django.urls import reverse

    assert reverse("healthz") == "/healthz"
    assert reverse("readyz") == "/readyz"


def test_readyz_accepts_the_dummy_cache_of_the_cold_benchmarks(client, settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json()["checks"]["cache"] == "ok"


def test_an_optional_check_failing_leaves_readyz_up_but_degraded(client, settings):
    settings.CACHES = CLOSED_REDIS
    settings.READYZ_OPTIONAL = ["cache", "database:replica"]
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json()["status"] == "degraded"
    assert response.json()["failed"] == ["cache"]


def test_a_required_check_failing_fails_readyz_even_with_optional_ones(client, settings, monkeypatch):
    settings.READYZ_OPTIONAL = ["cache"]

    def refuse(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(connections["default"], "cursor", refuse)
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["status"] == "fail"
