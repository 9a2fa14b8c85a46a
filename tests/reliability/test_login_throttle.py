"""Admin login attempts are limited per username and client address (newsroom/login_throttle.py)."""

import logging

import pytest

from newsroom import login_throttle
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

LOGIN = "/admin/login/"
PASSWORD = "pw-for-tests-only"


class FakeTime:
    def __init__(self, start=1_900_000_000.0):
        self.now = start

    def time(self):
        return self.now


@pytest.fixture(autouse=True)
def limits(settings, monkeypatch):
    settings.LOGIN_ATTEMPTS = 3
    settings.LOGIN_WINDOW_SECONDS = 600
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast: many logins here
    clock = FakeTime()
    monkeypatch.setattr(login_throttle, "time", clock)
    return clock


@pytest.fixture
def staff():
    return UserFactory(username="editor-ann", is_staff=True)


def attempt(client, username, password, address="203.0.113.5"):
    return client.post(LOGIN, {"username": username, "password": password, "next": "/admin/"}, REMOTE_ADDR=address)


def logged_in(client) -> bool:
    return "_auth_user_id" in client.session


def fail(client, username, times, address="203.0.113.5"):
    for _ in range(times):
        response = attempt(client, username, "wrong", address)
        assert response.status_code == 200 and b"correct username and password" in response.content


def test_after_n_failures_even_the_right_password_is_refused_until_the_window_passes(client, staff, limits):
    fail(client, "editor-ann", 3)
    response = attempt(client, "editor-ann", PASSWORD)
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= 600
    assert not logged_in(client)
    limits.now += 599
    assert attempt(client, "editor-ann", PASSWORD).status_code == 429
    limits.now += 2  # the window (from the first failure) has passed
    response = attempt(client, "editor-ann", PASSWORD)
    assert response.status_code == 302 and logged_in(client)


def test_fewer_failures_than_the_limit_do_not_block(client, staff):
    fail(client, "editor-ann", 2)
    response = attempt(client, "editor-ann", PASSWORD)
    assert response.status_code == 302 and logged_in(client)


def test_a_success_clears_the_count(client, staff):
    fail(client, "editor-ann", 2)
    assert attempt(client, "editor-ann", PASSWORD).status_code == 302
    client.logout()
    fail(client, "editor-ann", 2)  # would be the 3rd and 4th without the reset
    assert attempt(client, "editor-ann", PASSWORD).status_code == 302


def test_others_are_unaffected(client, staff):
    UserFactory(username="editor-bob", is_staff=True)
    fail(client, "editor-ann", 3)
    assert attempt(client, "editor-ann", PASSWORD).status_code == 429
    # Another username from the same address
    assert attempt(client, "editor-bob", PASSWORD).status_code == 302
    client.logout()
    # The same username from another address
    assert attempt(client, "editor-ann", PASSWORD, address="198.51.100.7").status_code == 302


def test_unknown_usernames_are_limited_alike_and_case_does_not_dodge_it(client):
    fail(client, "nobody", 3)
    assert attempt(client, "nobody", "wrong").status_code == 429
    assert attempt(client, "NoBody ", "wrong").status_code == 429


def test_get_of_the_login_page_is_never_refused(client, staff):
    fail(client, "editor-ann", 3)
    assert client.get(LOGIN, REMOTE_ADDR="203.0.113.5").status_code == 200


def test_the_password_never_reaches_the_logs(client, staff, caplog):
    with caplog.at_level(logging.DEBUG):
        for _ in range(4):
            attempt(client, "editor-ann", "s3cret-Guess-42")
    assert "login throttled" in caplog.text
    assert "s3cret-Guess-42" not in caplog.text
