"""Admin login attempts are limited per username and client address (newsroom/login_throttle.py)."""

import logging

import pytest

from newsroom.infra import login_throttle
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


@pytest.mark.parametrize(
    "proxies, forwarded, expected",
    [
        (0, "198.51.100.7", "10.0.0.2"),  # no trusted proxy: the header is the client's to forge
        (1, "198.51.100.7", "198.51.100.7"),  # nginx appended the client's address
        (1, "6.6.6.6, 198.51.100.7", "198.51.100.7"),  # a forged entry on the left is ignored
        (2, "6.6.6.6, 198.51.100.7, 192.0.2.1", "198.51.100.7"),  # CDN then nginx
        (3, "198.51.100.7", "10.0.0.2"),  # shorter than the proxy count: the connecting address
        (1, "", "10.0.0.2"),  # no header at all
    ],
)
def test_client_address_trusts_only_the_configured_proxies(rf, settings, proxies, forwarded, expected):
    settings.TRUSTED_PROXY_COUNT = proxies
    request = rf.get("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=forwarded)
    assert login_throttle.client_address(request) == expected


def test_behind_a_proxy_the_limit_is_per_client_not_per_proxy(client, staff, settings):
    """Behind nginx every request comes from 127.0.0.1: without TRUSTED_PROXY_COUNT one
    attacker would lock the editor out for everybody; with it, only the attacker's address."""
    settings.TRUSTED_PROXY_COUNT = 1

    def via_proxy(password, client_ip):
        return client.post(
            LOGIN,
            {"username": "editor-ann", "password": password, "next": "/admin/"},
            REMOTE_ADDR="127.0.0.1",
            HTTP_X_FORWARDED_FOR=client_ip,
        )

    for _ in range(3):
        assert via_proxy("wrong", "203.0.113.66").status_code == 200
    assert via_proxy(PASSWORD, "203.0.113.66").status_code == 429
    # A forged X-Forwarded-For from the attacker does not get round it: nginx appends the real one.
    assert via_proxy(PASSWORD, "198.51.100.1, 203.0.113.66").status_code == 429
    response = via_proxy(PASSWORD, "198.51.100.20")  # the editor, from her own address
    assert response.status_code == 302 and logged_in(client)
