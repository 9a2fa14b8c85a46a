"""/healthz says the process is up; /readyz says the database and the cache answer."""

import pytest
from django.db import OperationalError, connections

from newsroom.infra import health

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_round():
    """Each test's first probe runs the checks (a round of another test is not kept)."""
    health.forget_readiness()
    yield
    health.forget_readiness()


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


def test_a_flood_of_probes_runs_one_round_of_checks_a_window(client, settings, monkeypatch, django_assert_num_queries):
    """An anonymous client may call /readyz as often as it likes: within
    ``READYZ_CACHE_SECONDS`` the process answers from its last round, and the database sees
    one ``SELECT 1``."""
    settings.READYZ_CACHE_SECONDS = 5
    now = [1000.0]
    monkeypatch.setattr(health.time, "monotonic", lambda: now[0])
    with django_assert_num_queries(1):
        for _ in range(20):
            assert client.get("/readyz").status_code == 200
    now[0] += 5  # the window is over: the next probe runs the checks again
    with django_assert_num_queries(1):
        assert client.get("/readyz").status_code == 200


def test_a_failure_shows_once_the_window_is_over(client, settings, monkeypatch):
    settings.READYZ_CACHE_SECONDS = 5
    now = [1000.0]
    monkeypatch.setattr(health.time, "monotonic", lambda: now[0])
    assert client.get("/readyz").status_code == 200

    def refuse(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(health, "check_database", refuse)
    assert client.get("/readyz").status_code == 200  # the round of a moment ago
    now[0] += 5.001
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["failed"] == ["database:default"]


def test_with_no_window_every_probe_runs_the_checks(client, settings, django_assert_num_queries):
    settings.READYZ_CACHE_SECONDS = 0
    with django_assert_num_queries(3):
        for _ in range(3):
            assert client.get("/readyz").status_code == 200


def test_probes_arriving_during_a_round_wait_for_it_and_share_it(settings, monkeypatch):
    """Threads probing at once run the checks once between them."""
    import threading

    settings.READYZ_CACHE_SECONDS = 60
    rounds, started, release = [], threading.Event(), threading.Event()

    def slow_round():
        rounds.append(1)
        started.set()
        release.wait(5)
        return {"database:default": "ok", "cache": "ok"}

    monkeypatch.setattr(health, "readiness", slow_round)
    answers = []
    threads = [threading.Thread(target=lambda: answers.append(health.recent_readiness())) for _ in range(8)]
    threads[0].start()
    assert started.wait(5)
    for thread in threads[1:]:
        thread.start()
    release.set()
    for thread in threads:
        thread.join(5)
    assert len(rounds) == 1
    assert answers == [{"database:default": "ok", "cache": "ok"}] * 8
