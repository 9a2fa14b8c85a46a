"""The API's stored answers are keyed by what the view reads: a made-up query parameter,
or one given twice, is answered by the full path and never stored, so a key cannot fill the
cache with copies of a page; the same parameters in another order are one entry."""

import pytest

from tests.syndication.helpers import client_for

pytestmark = pytest.mark.django_db

LIST, DETAIL = "/api/v1/stories/", "/api/v1/stories/81/"


@pytest.fixture
def api(read_key):
    return client_for(read_key[1])


def test_made_up_parameters_are_answered_but_not_stored(api, demo, stored):
    for i in range(3):
        response = api.get(f"{LIST}?page_size=100&junk={i}")
        assert response.status_code == 200
        assert response.json()["results"]
    assert stored == []


def test_a_parameter_on_a_story_is_answered_but_not_stored(api, demo, stored):
    assert api.get(f"{DETAIL}?v=1").status_code == 200
    assert stored == []
    assert api.get(DETAIL).status_code == 200
    assert len(stored) == 1


def test_a_parameter_given_twice_is_not_stored(api, demo, stored):
    assert api.get(f"{LIST}?page_size=1&page_size=2").status_code in (200, 400)
    assert stored == []


def test_the_same_parameters_in_another_order_are_one_entry(api, demo, stored, django_assert_num_queries):
    first = api.get(f"{LIST}?page_size=1&newsroom=artificial-intelligence")
    assert first.status_code == 200
    assert len(stored) == 1
    api.get(f"{LIST}?page_size=1&newsroom=artificial-intelligence")  # the key's record cached
    with django_assert_num_queries(0):
        again = api.get(f"{LIST}?newsroom=artificial-intelligence&page_size=1")
    assert again.content == first.content
    assert len(set(stored)) == 1


def test_known_parameters_with_other_values_are_other_entries(api, demo, stored):
    assert api.get(f"{LIST}?page_size=1").status_code == 200
    assert api.get(f"{LIST}?page_size=2").status_code == 200
    assert len(set(stored)) == 2
