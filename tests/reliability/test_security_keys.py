"""API keys tried by an attacker: unknown prefixes by the thousand, and guessing from one address.

An unknown prefix costs one query, then none for a while (a negative cache); failed
look-ups are counted per client address and, over the rate, answered 429 with Retry-After
without looking anything up. Revocation, and a key becoming usable, still apply at once."""

import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from syndication.models import ApiKey
from tests.syndication.helpers import client_for

pytestmark = pytest.mark.django_db

URL = "/api/v1/newsrooms/"


@pytest.fixture(autouse=True)
def _rate(settings):
    settings.API_KEY_FAILURE_RATE = "5/min"


def get(token, address="203.0.113.7"):
    return client_for(token).get(URL, REMOTE_ADDR=address)


def key_queries(token, address="203.0.113.7"):
    """(response, how many queries read the key table)."""
    with CaptureQueriesContext(connection) as queries:
        response = get(token, address)
    return response, sum(ApiKey._meta.db_table in q["sql"] for q in queries.captured_queries)


def test_an_unknown_prefix_costs_one_query_then_none(db):
    token = "hc_0123456789ab_guess"
    first, n_first = key_queries(token)
    second, n_second = key_queries(token)
    assert (first.status_code, second.status_code) == (401, 401)
    assert (n_first, n_second) == (1, 0)


def test_a_revoked_key_is_refused_at_once(read_key):
    key, plaintext = read_key
    assert get(plaintext).status_code == 200  # now cached
    key.revoke()
    assert get(plaintext).status_code == 401
    assert get(plaintext).status_code == 401  # and the refusal is cached, not the old key


def test_a_key_refused_while_its_partner_was_off_works_as_soon_as_it_is_back_on(read_key):
    key, plaintext = read_key
    key.partner.active = False
    key.partner.save()
    assert get(plaintext).status_code == 401  # the prefix is now remembered as unusable
    key.partner.active = True
    key.partner.save()
    assert get(plaintext).status_code == 200


def test_failed_lookups_from_one_address_get_429_with_retry_after(db):
    for n in range(5):
        assert get(f"hc_{n:012x}_guess").status_code == 401
    over = get("hc_ffffffffffff_guess")
    assert over.status_code == 429
    assert int(over["Retry-After"]) >= 1
    assert over.json()["error"]["code"] == "throttled"
    # Blocked: refused without a look-up.
    blocked, queries = key_queries("hc_eeeeeeeeeeee_guess")
    assert (blocked.status_code, queries) == (429, 0)
    assert get("not-even-a-key").status_code == 429
    # Another address is not affected.
    assert get("hc_dddddddddddd_guess", address="198.51.100.9").status_code == 401


def test_a_blocked_address_waits_whatever_the_key_then_is_let_in(read_key, monkeypatch):
    _, plaintext = read_key
    assert get(plaintext).status_code == 200
    for n in range(6):
        get(f"hc_{n:012x}_guess")
    refused = get(plaintext)
    assert refused.status_code == 429
    wait = int(refused["Retry-After"])
    later = time.time() + wait + 61  # past the block and out of the sliding window
    monkeypatch.setattr(time, "time", lambda: later)
    assert get(plaintext).status_code == 200


def test_the_client_address_follows_the_trusted_proxies(db, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    for n in range(6):
        client_for(f"hc_{n:012x}_guess").get(URL, REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="203.0.113.7")
    blocked = client_for("hc_aaaaaaaaaaaa_guess").get(URL, REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="203.0.113.7")
    other = client_for("hc_aaaaaaaaaaaa_guess").get(URL, REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="198.51.100.9")
    assert (blocked.status_code, other.status_code) == (429, 401)


def test_a_client_around_the_proxies_cannot_choose_its_address_by_header(db, settings):
    """With two proxies, a header of one entry did not pass both: it is the client's own
    writing. Each guess names another address there; all are counted against the address
    that connected, as the login limit counts them."""
    settings.TRUSTED_PROXY_COUNT = 2
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 2}
    for n in range(6):
        forged = f"198.51.100.{n}"
        client_for(f"hc_{n:012x}_guess").get(URL, REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=forged)
    blocked = client_for("hc_aaaaaaaaaaaa_guess").get(URL, REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="198.51.100.99")
    assert blocked.status_code == 429
