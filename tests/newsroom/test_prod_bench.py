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


def test_the_floor_resolves_without_trying_other_routes():
    # Trying (and failing) other routes first costs time the pages measured against the
    # floor would not pay, flattering their ratio.
    from django.urls import resolve

    assert len(resolve("/bench/floor").tried) == 1
