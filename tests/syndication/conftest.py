"""Fixtures for the partner API: clients sending a read key and a writer key."""

import datetime as dt

import pytest
import time_machine
from django.core.cache import cache
from rest_framework.test import APIClient

from tests.syndication.helpers import client_for


@pytest.fixture(autouse=True)
def no_counts_left_in_memory():
    """Each test starts with no request counted in this process and not yet added to the
    cache (``syndication.usage``): key ids may be reused from one test to the next."""
    from syndication import usage

    with usage._lock:
        usage._pending.clear()


@pytest.fixture
def noon_utc():
    """The test runs from noon UTC today, the clock ticking: request counts are kept per
    UTC day (``syndication.usage``), and a test that reads today's date once, or expects a
    key's requests in one ``ApiKeyUsage`` row, must not see midnight pass while it runs.
    Only the wall clock moves: ``time.monotonic`` (the usage counts' once-a-second addition)
    is left alone."""
    noon = dt.datetime.now(dt.UTC).replace(hour=12, minute=0, second=0, microsecond=0)
    with time_machine.travel(noon, tick=True):
        yield


@pytest.fixture
def api(read_key) -> APIClient:
    """A client sending a valid read key."""
    return client_for(read_key[1])


@pytest.fixture
def writer_api(writer_key) -> APIClient:
    return client_for(writer_key[1])


@pytest.fixture
def stored(monkeypatch):
    """The keys of the API answers stored during the test."""
    keys = []
    real_set = cache.set

    def spy(key, *args, **kwargs):
        if key.startswith("api:url:"):
            keys.append(key)
        return real_set(key, *args, **kwargs)

    monkeypatch.setattr(cache, "set", spy)
    return keys
