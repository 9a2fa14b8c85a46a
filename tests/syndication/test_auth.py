"""Partner keys: Bearer authentication, JSON errors, scopes, usage counting, throttling."""

import io
import logging

import pytest
from django.core.management import call_command
from django.utils import timezone

from syndication.models import ApiKey, ApiKeyUsage, Partner, hash_secret
from syndication.usage import flush
from tests.factories import UserFactory
from tests.syndication.helpers import client_for

pytestmark = pytest.mark.django_db

URL = "/api/v1/newsrooms/"


def assert_error(response, status: int, code: str):
    assert response.status_code == status, response.content
    assert response.json()["error"]["code"] == code
    assert response.json()["error"]["message"]


def test_missing_key_is_401_with_json_error_and_bearer_challenge(db):
    response = client_for(None).get(URL)
    assert_error(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize("token", ["nonsense", "hc_abc", "hc_000000000000_wrongsecret", "hc__x"])
def test_malformed_or_unknown_key_is_401(db, token):
    response = client_for(token).get(URL)
    assert_error(response, 401, "authentication_failed")
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_right_prefix_wrong_secret_is_401(read_key):
    _key, plaintext = read_key
    response = client_for(plaintext[:-4] + "AAAA").get(URL)
    assert_error(response, 401, "authentication_failed")


def test_revoked_key_is_401(read_key):
    key, plaintext = read_key
    key.revoke()
    assert_error(client_for(plaintext).get(URL), 401, "authentication_failed")


def test_inactive_partner_key_is_401(read_key):
    key, plaintext = read_key
    Partner.objects.filter(pk=key.partner_id).update(active=False)
    assert_error(client_for(plaintext).get(URL), 401, "authentication_failed")


def test_key_is_stored_hashed_only(read_key):
    key, plaintext = read_key
    key.refresh_from_db()
    assert plaintext.startswith(f"hc_{key.prefix}_")
    assert key.hashed_secret == hash_secret(plaintext)
    assert plaintext not in {str(v) for v in ApiKey.objects.values_list("prefix", "hashed_secret", "name").get()}


@pytest.mark.usefixtures("noon_utc")  # one day's count
def test_each_request_is_counted_per_day_and_last_use_recorded(api, read_key):
    key, _ = read_key
    for _ in range(3):
        assert api.get(URL).status_code == 200
    key.refresh_from_db()
    assert key.last_used_at is not None
    flush(key.pk)  # counts wait in the cache for up to a minute (syndication.usage)
    usage = ApiKeyUsage.objects.get(key=key)
    assert (usage.day, usage.count) == (timezone.now().date(), 3)


def test_count_request_upsert_is_additive(read_key):
    key, _ = read_key
    day = timezone.now().date()
    ApiKeyUsage.count_request(key.pk, day)
    ApiKeyUsage.count_request(key.pk, day)
    assert ApiKeyUsage.objects.get(key=key, day=day).count == 2


def test_key_never_reaches_the_logs(read_key, caplog):
    _key, plaintext = read_key
    with caplog.at_level(logging.DEBUG):
        client_for(plaintext + "x").get(URL)
        client_for(plaintext).get("/api/v1/stories/nope/")
    assert caplog.records, "the 401 and 404 should have been logged"
    assert plaintext not in caplog.text
    assert plaintext.split("_", 2)[2] not in caplog.text


def test_staff_session_may_read_but_a_plain_user_may_not(db):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_login(UserFactory(username="reader"))
    assert client.get(URL).status_code == 403
    client.force_login(UserFactory(username="staffer", is_staff=True))
    assert client.get(URL).status_code == 200


def test_read_key_may_not_post_writes(api):
    assert_error(api.post("/api/v1/submissions/", {}, format="json"), 403, "permission_denied")
    assert_error(api.post("/api/v1/manifests/", {}, format="json"), 403, "permission_denied")


@pytest.mark.usefixtures("noon_utc")  # one day's count
def test_throttle_per_key_gives_429_with_retry_after(settings, read_key, writer_key):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"partner": "3/min"}}
    api = client_for(read_key[1])
    codes = [api.get(URL).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    response = api.get(URL)
    assert_error(response, 429, "throttled")
    assert 0 < int(response["Retry-After"]) <= 60
    # Another key has its own budget.
    assert client_for(writer_key[1]).get(URL).status_code == 200
    # Throttled requests are still requests: counted.
    flush(read_key[0].pk)
    assert ApiKeyUsage.objects.get(key=read_key[0]).count == 5


def test_create_api_key_command_prints_the_key_alone(db):
    out, err = io.StringIO(), io.StringIO()
    call_command("create_api_key", "Acme Wire", "--scope", "writer", stdout=out, stderr=err)
    plaintext = out.getvalue().strip()
    assert "\n" not in plaintext
    key = ApiKey.objects.get(partner__slug="acme-wire")
    assert key.scope == "writer" and key.hashed_secret == hash_secret(plaintext)
    assert client_for(plaintext).get(URL).status_code == 200
    # The same partner again: a second key, no second partner.
    call_command("create_api_key", "acme-wire", stdout=io.StringIO(), stderr=io.StringIO())
    assert Partner.objects.filter(slug="acme-wire").count() == 1
    assert ApiKey.objects.filter(partner__slug="acme-wire").count() == 2


@pytest.mark.usefixtures("noon_utc")  # one day's count
def test_key_bookkeeping_does_not_pin_a_partner_to_the_primary(read_key):
    """With read replicas, a write during a request pins the client to the primary
    (newsroom.infra.db_router); counting a partner's GET must not count as its write."""
    from django.db import router

    from newsroom.infra import db_router
    from syndication.auth import ApiKeyAuthentication

    original = router.routers
    router.routers = [db_router.PrimaryReplicaRouter()]
    try:
        with db_router.routing(use_replicas=True) as state:
            ApiKeyAuthentication.record_use(read_key[0])
            ApiKeyAuthentication.record_use(read_key[0])
            flush(read_key[0].pk)
        assert state.wrote is False
        assert ApiKeyUsage.objects.get(key=read_key[0]).count == 2
        with db_router.routing(use_replicas=True) as state:
            ApiKeyUsage.objects.create(key=read_key[0], day="2026-01-01")  # an ordinary write does pin
        assert state.wrote is True
    finally:
        router.routers = original


class Clock:
    def __init__(self, now: float):
        self.now = now

    def __call__(self):
        return self.now


def test_throttle_is_a_sliding_window_a_burst_at_the_edge_cannot_double_the_rate(settings, read_key, monkeypatch):
    from syndication.auth import PartnerRateThrottle

    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"partner": "4/min"}}
    clock = Clock(1_900_000_000 * 60 + 50.0)  # 50 s into a minute window
    monkeypatch.setattr(PartnerRateThrottle, "timer", clock)
    api = client_for(read_key[1])
    assert [api.get(URL).status_code for _ in range(5)] == [200, 200, 200, 200, 429]
    clock.now += 15  # 5 s into the next window: 4 * (55/60) of the last window still counts
    response = api.get(URL)
    assert response.status_code == 429  # a fixed window would have allowed 4 more here
    assert 0 < int(response["Retry-After"]) <= 60
    clock.now += 20  # 25 s in: 4 * 35/60 = 2.33 still counts, so one more fits
    assert [api.get(URL).status_code for _ in range(2)] == [200, 429]
    clock.now += 60 * 2  # both windows slid past: the whole budget again
    assert [api.get(URL).status_code for _ in range(5)] == [200, 200, 200, 200, 429]


def test_refused_requests_do_not_use_up_the_budget(settings, read_key, monkeypatch):
    from syndication.auth import PartnerRateThrottle

    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"partner": "2/min"}}
    clock = Clock(1_900_000_000 * 60.0)  # the start of a window
    monkeypatch.setattr(PartnerRateThrottle, "timer", clock)
    api = client_for(read_key[1])
    assert [api.get(URL).status_code for _ in range(2)] == [200, 200]
    assert all(api.get(URL).status_code == 429 for _ in range(10))  # a client retrying in a loop
    clock.now += 60 * 2
    assert [api.get(URL).status_code for _ in range(3)] == [200, 200, 429]
