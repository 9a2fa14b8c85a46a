"""Attacks on the admin login limit (newsroom/infra/login_throttle.py): look-alike usernames,
password sprays over many usernames, a short X-Forwarded-For, and the API throttle's key."""

import threading
from types import SimpleNamespace

import pytest
from django.http import HttpResponse
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

import syndication.auth
from newsroom.infra import login_throttle
from syndication.auth import PartnerRateThrottle
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

LOGIN = "/admin/login/"
PASSWORD = "pw-for-tests-only"
ATTACKER = "203.0.113.5"
EDITOR = "198.51.100.20"


class FakeTime:
    def __init__(self, start=1_900_000_000.0):
        self.now = start

    def time(self):
        return self.now


@pytest.fixture(autouse=True)
def limits(settings, monkeypatch):
    settings.LOGIN_ATTEMPTS = 3
    settings.LOGIN_ADDRESS_ATTEMPTS = 6
    settings.LOGIN_WINDOW_SECONDS = 600
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast: many logins here
    clock = FakeTime()
    monkeypatch.setattr(login_throttle, "time", clock)
    return clock


@pytest.fixture
def editor():
    return UserFactory(username="editor", is_staff=True)


def attempt(client, username, password, address=ATTACKER, **extra):
    return client.post(
        LOGIN, {"username": username, "password": password, "next": "/admin/"}, REMOTE_ADDR=address, **extra
    )


def logged_in(client) -> bool:
    return "_auth_user_id" in client.session


def fail(client, username, times, address=ATTACKER):
    for _ in range(times):
        response = attempt(client, username, "wrong", address)
        assert response.status_code == 200 and b"correct username and password" in response.content


# --- Look-alike usernames: the count follows the name Django authenticates.

FULL_WIDTH = "\uff45\uff44\uff49\uff54\uff4f\uff52"  # ｅｄｉｔｏｒ, NFKC-normalised to "editor"


def test_a_full_width_username_logs_in_as_the_ascii_one(client, editor):
    """The premise: Django's login form normalises the name (NFKC) before looking it up."""
    assert attempt(client, FULL_WIDTH, PASSWORD).status_code == 302 and logged_in(client)


@pytest.mark.parametrize(
    "spelling",
    [
        FULL_WIDTH,
        "\uff25\uff24\uff29\uff34\uff2f\uff32",  # ＥＤＩＴＯＲ
        " editor\u00a0",  # spaces around, a no-break space among them
        "EDITOR",
        "\u1d49ditor",  # ᵉditor: a superscript e, NFKC "e"
    ],
)
def test_a_look_alike_of_a_locked_username_is_locked_too(client, editor, spelling):
    fail(client, "editor", 3)
    response = attempt(client, spelling, PASSWORD)
    assert response.status_code == 429 and not logged_in(client)


def test_failures_under_a_look_alike_lock_the_real_name(client, editor):
    fail(client, FULL_WIDTH, 3)
    assert attempt(client, "editor", PASSWORD).status_code == 429
    assert not logged_in(client)


def test_a_look_alike_cannot_log_in_to_clear_the_lock(client, editor):
    """Before: five failures as ``editor``, then the right password as ``ｅｄｉｔｏｒ`` got in
    and its success cleared ``editor``'s lock."""
    fail(client, "editor", 3)
    assert attempt(client, FULL_WIDTH, PASSWORD).status_code == 429
    assert attempt(client, "editor", PASSWORD).status_code == 429
    assert not logged_in(client)


# --- Password spraying: one address, many usernames.


def test_one_address_spraying_many_usernames_is_limited(client, editor):
    for number in range(6):  # two failures per name: no single name reaches its limit of 3
        fail(client, f"user{number // 2}", 1)
    response = attempt(client, "editor", PASSWORD)
    assert response.status_code == 429 and not logged_in(client)
    assert b"this address" in response.content
    assert 0 < int(response["Retry-After"]) <= 600


def test_the_spray_limit_leaves_other_addresses_alone_and_passes_with_the_window(client, editor, limits):
    for number in range(6):
        fail(client, f"user{number}", 1)
    assert attempt(client, "editor", PASSWORD).status_code == 429
    assert attempt(client, "editor", PASSWORD, address=EDITOR).status_code == 302  # the editor, elsewhere
    client.logout()
    limits.now += 601
    assert attempt(client, "editor", PASSWORD).status_code == 302


def test_the_address_limit_defaults_to_a_few_times_the_username_limit(settings):
    del settings.LOGIN_ADDRESS_ATTEMPTS
    assert login_throttle._address_attempts() == 4 * settings.LOGIN_ATTEMPTS


def test_a_success_does_not_reset_the_address_count(client, editor):
    """An attacker holding one account cannot log in between sprays to start again."""
    UserFactory(username="mallory", is_staff=True)
    for number in range(5):
        fail(client, f"user{number}", 1)
    assert attempt(client, "mallory", PASSWORD).status_code == 302
    client.logout()
    fail(client, "user9", 1)  # the sixth failure from this address
    assert attempt(client, "editor", PASSWORD).status_code == 429


def test_a_success_never_clears_another_addresses_lock(client, editor):
    fail(client, "editor", 3)  # the attacker's address is locked for editor
    assert attempt(client, "editor", PASSWORD, address=EDITOR).status_code == 302  # the editor, elsewhere
    client.logout()
    assert attempt(client, "editor", PASSWORD).status_code == 429


# --- Attempts sent at once.


def test_attempts_in_flight_at_once_are_refused_past_the_limit(rf, editor):
    """Ten passwords sent together all reach the limiter before any of them has failed: each
    is counted as it arrives, so only the limit's worth are tried, as one by one."""
    tried = []
    middleware = login_throttle.LoginThrottleMiddleware(lambda request: tried.append(request) or HttpResponse())
    statuses = [
        middleware(rf.post(LOGIN, {"username": "editor", "password": f"guess{n}"}, REMOTE_ADDR=ATTACKER)).status_code
        for n in range(10)
    ]
    assert statuses == [200] * 3 + [429] * 7
    assert len(tried) == 3


def test_a_spray_in_flight_at_once_is_refused_past_the_address_limit(rf, editor):
    tried = []
    middleware = login_throttle.LoginThrottleMiddleware(lambda request: tried.append(request) or HttpResponse())
    for n in range(10):
        middleware(rf.post(LOGIN, {"username": f"user{n}", "password": "guess"}, REMOTE_ADDR=ATTACKER))
    assert len(tried) == 6  # LOGIN_ADDRESS_ATTEMPTS


def test_failures_counted_from_many_threads_are_each_counted(editor):
    """The count is one atomic addition in the cache, not a read and a write: failures
    recorded at the same moment by many workers are all counted."""
    threads, each = 8, 25
    start = threading.Barrier(threads)

    def work():
        start.wait()
        for _ in range(each):
            login_throttle.record_failure("editor", ATTACKER)

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert login_throttle.failures("editor", ATTACKER)[0] == threads * each


def test_a_success_takes_back_only_its_own_attempt_from_the_address_count(client, editor):
    fail(client, "user1", 2)
    assert attempt(client, "editor", PASSWORD).status_code == 302
    assert login_throttle._read(login_throttle._address_key(ATTACKER))[0] == 2


# --- X-Forwarded-For shorter than the proxy chain.


@pytest.mark.parametrize(
    "proxies, forwarded, expected",
    [
        (3, "198.51.100.7", "10.0.0.2"),  # one entry for three proxies: all of it the client's own
        (2, "6.6.6.6", "10.0.0.2"),
        (2, "6.6.6.6, 198.51.100.7", "6.6.6.6"),  # exactly two: the outer proxy's entry
        (1, " , ", "10.0.0.2"),  # an empty entry where the proxy's should be
        (1, "", "10.0.0.2"),
    ],
)
def test_a_short_forwarded_header_falls_back_to_the_connecting_address(rf, settings, proxies, forwarded, expected):
    settings.TRUSTED_PROXY_COUNT = proxies
    request = rf.get("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=forwarded)
    assert login_throttle.client_address(request) == expected


def test_a_forged_short_header_cannot_dodge_the_lock(client, editor, settings):
    """Two proxies configured; the attacker reaches gunicorn directly with one forged entry
    per attempt. Before: each forged entry was a new 'client' with its own count."""
    settings.TRUSTED_PROXY_COUNT = 2
    for number in range(3):
        response = attempt(client, "editor", "wrong", HTTP_X_FORWARDED_FOR=f"192.0.2.{number}")
        assert response.status_code == 200
    response = attempt(client, "editor", PASSWORD, HTTP_X_FORWARDED_FOR="192.0.2.99")
    assert response.status_code == 429 and not logged_in(client)


def test_the_api_throttle_counts_per_key_never_per_address(settings, monkeypatch):
    """DRF's NUM_PROXIES would take a short header's leftmost entry, but the partner throttle
    never asks DRF for an address: a request without a key is not throttled (authentication
    refuses it), and one with a key is counted by the key, whatever address it claims."""
    settings.TRUSTED_PROXY_COUNT = 2
    throttle = PartnerRateThrottle()

    def request(remote, forwarded):
        return Request(APIRequestFactory().get("/api/v1/stories/", REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR=forwarded))

    assert throttle.get_cache_key(request("10.0.0.2", "6.6.6.6"), view=None) is None
    monkeypatch.setattr(syndication.auth, "api_key", lambda request: SimpleNamespace(pk=7))
    keys = {
        throttle.get_cache_key(request(remote, forwarded), view=None)
        for remote, forwarded in [
            ("10.0.0.2", "6.6.6.6"),
            ("10.0.0.3", "7.7.7.7"),
            ("10.0.0.2", "1.1.1.1, 2.2.2.2, 3.3.3.3"),
        ]
    }
    assert len(keys) == 1 and "7" in keys.pop()
