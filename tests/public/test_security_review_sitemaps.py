"""Hostile month names in /sitemaps/<month>.xml: each answers 404, and only a real month
that could hold stories costs a query."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "month",
    [
        "9999-12",  # the month after it is past the calendar's end
        "2026-1",  # an alias of 2026-01: one month, one address
        "2026-001",
        "0001-01",
        "1899-12",
        "20261-01",
        "2026-13",
        "2026-00",
        "junk",
        "%2e%2e",
        "9" * 40 + "-01",
        "2026-01-01",
    ],
)
def test_a_month_that_is_not_one_answers_404_without_a_query(client, demo, month, django_assert_max_num_queries):
    with django_assert_max_num_queries(0):
        response = client.get(f"/sitemaps/{month}.xml")
    assert response.status_code == 404


def test_a_month_after_this_one_answers_404_without_a_query(client, demo, django_assert_max_num_queries):
    with django_assert_max_num_queries(0):
        assert client.get("/sitemaps/2999-05.xml").status_code == 404


def test_the_demo_story_month_still_answers(client, demo):
    response = client.get("/sitemaps/2026-10.xml")
    assert response.status_code == 200
    assert b"/stories/" in response.content
