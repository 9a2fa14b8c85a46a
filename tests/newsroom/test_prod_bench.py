"""The benchmark floor view: N bytes through the whole stack, only when switched on."""

import pytest

pytestmark = pytest.mark.django_db


def test_the_floor_is_off_by_default(client):
    assert client.get("/bench/floor?bytes=10").status_code == 404


def test_the_floor_returns_exactly_the_bytes_asked_for(client, settings, django_assert_num_queries):
    settings.BENCH_FLOOR = True
    with django_assert_num_queries(0):
        response = client.get("/bench/floor?bytes=12345")
    assert response.status_code == 200
    assert len(response.content) == 12345
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert "Content-Security-Policy" in response  # the same middleware as every page


@pytest.mark.parametrize("value", ["-1", "x", "10000001"])
def test_the_floor_refuses_a_bad_size(client, settings, value):
    settings.BENCH_FLOOR = True
    response = client.get(f"/bench/floor?bytes={value}")
    assert response.status_code == 400


def test_the_floor_resolves_after_the_story_routes_alone():
    # Trying (and failing) other routes first costs time the pages measured against the
    # floor would not pay, flattering their ratio: only the story routes, which resolve
    # first of all, come before it.
    from django.urls import resolve

    tried = resolve("/bench/floor").tried
    assert len(tried) == 2
    assert str(tried[0][0].pattern) == "stories/"


def test_story_renderings_resolve_first():
    from django.urls import resolve

    for suffix in ("", "index.json", "index.md", "index.txt", "checks.json"):
        tried = resolve("/stories/2026-10-16/agent-training-stack/" + suffix).tried
        # Only the story routes themselves are tried, inside the first include.
        assert all(str(path[0].pattern) == "stories/" for path in tried), suffix
