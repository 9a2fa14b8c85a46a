"""The primary/replica router and the read-your-writes middleware, decision by decision."""

import pytest
from django.db import connections
from django.http import HttpResponse
from django.test import RequestFactory, override_settings

from newsroom.infra import db_router
from newsroom.infra.db_router import PrimaryReplicaRouter
from newsroom.infra.middleware import PIN_COOKIE, PrimaryDatabaseMiddleware
from newsroom.models import Newsroom

REPLICAS = ["replica1", "replica2"]
router = PrimaryReplicaRouter()


@pytest.fixture(autouse=True)
def two_replicas(settings):
    settings.DATABASE_REPLICAS = REPLICAS


def test_reads_outside_any_request_go_to_the_primary():
    assert router.db_for_read(Newsroom) == "default"


def test_reads_go_to_a_replica_when_allowed():
    with db_router.replica_reads():
        chosen = {router.db_for_read(Newsroom) for _ in range(50)}
    assert chosen <= set(REPLICAS)
    assert chosen == set(REPLICAS)  # random choice spreads the load over all of them


def test_reads_go_to_the_primary_when_not_allowed():
    with db_router.primary_only():
        assert router.db_for_read(Newsroom) == "default"


def test_writes_always_go_to_the_primary():
    with db_router.replica_reads():
        assert router.db_for_write(Newsroom) == "default"
    assert router.db_for_write(Newsroom) == "default"


def test_a_write_pins_the_rest_of_the_request_to_the_primary():
    with db_router.replica_reads() as state:
        router.db_for_write(Newsroom)
        assert state.wrote is True
        assert router.db_for_read(Newsroom) == "default"


def test_reads_inside_a_transaction_go_to_the_primary(monkeypatch):
    monkeypatch.setattr(connections["default"], "in_atomic_block", True)
    with db_router.replica_reads():
        assert router.db_for_read(Newsroom) == "default"


def test_without_replicas_everything_reads_the_primary(settings):
    settings.DATABASE_REPLICAS = []
    with db_router.replica_reads():
        assert router.db_for_read(Newsroom) == "default"


def test_migrations_never_run_on_replicas():
    assert router.allow_migrate("replica1", "stories") is False
    assert router.allow_migrate("default", "stories") is None


def test_relations_between_primary_and_replica_rows_are_allowed():
    a, b = Newsroom(slug="a"), Newsroom(slug="b")
    a._state.db, b._state.db = "default", "replica2"
    assert router.allow_relation(a, b) is True
    b._state.db = "elsewhere"
    assert router.allow_relation(a, b) is None


# --- PrimaryDatabaseMiddleware: which requests may read replicas, and the pin cookie.


def run(request, *, writes=False):
    """Pass ``request`` through the middleware; return (where a read went, the response)."""
    seen = {}

    def view(request):
        if writes:
            router.db_for_write(Newsroom)
        seen["read"] = router.db_for_read(Newsroom)
        return HttpResponse("ok")

    response = PrimaryDatabaseMiddleware(view)(request)
    return seen["read"], response


rf = RequestFactory()


def test_a_safe_public_request_reads_a_replica_and_sets_no_pin():
    read, response = run(rf.get("/n/demo/"))
    assert read in REPLICAS
    assert PIN_COOKIE not in response.cookies


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_an_unsafe_request_reads_the_primary_and_pins_the_browser(method, settings):
    read, response = run(getattr(rf, method)("/api/v1/stories/"))
    assert read == "default"
    cookie = response.cookies[PIN_COOKIE]
    assert cookie["max-age"] == settings.DATABASE_PIN_SECONDS
    assert cookie["httponly"]


def test_a_get_that_writes_pins_the_browser():
    read, response = run(rf.get("/n/demo/"), writes=True)
    assert read == "default"
    assert PIN_COOKIE in response.cookies


def test_a_pinned_browser_reads_the_primary():
    request = rf.get("/n/demo/")
    request.COOKIES[PIN_COOKIE] = "1"
    read, _ = run(request)
    assert read == "default"


def test_the_admin_always_reads_the_primary():
    read, _ = run(rf.get("/admin/stories/story/"))
    assert read == "default"


def test_routing_ends_with_the_request():
    run(rf.get("/n/demo/"))
    assert router.db_for_read(Newsroom) == "default"


@override_settings(DATABASE_REPLICAS=[])
def test_without_replicas_the_middleware_does_nothing():
    read, response = run(rf.post("/api/v1/stories/"))
    assert read == "default"
    assert PIN_COOKIE not in response.cookies


def test_an_api_client_that_wrote_reads_the_primary_without_cookies():
    from django.core.cache import cache

    cache.clear()
    headers = {"HTTP_AUTHORIZATION": "Api-Key partner-key-123456"}
    _, response = run(rf.post("/api/v1/stories/", **headers))
    assert PIN_COOKIE in response.cookies  # ignored by the API client
    read, _ = run(rf.get("/api/v1/stories/", **headers))
    assert read == "default"
    other, _ = run(rf.get("/api/v1/stories/", HTTP_AUTHORIZATION="Api-Key another-key-654321"))
    assert other in REPLICAS
    assert not any("partner-key" in str(key) for key in getattr(cache, "_cache", {}))
