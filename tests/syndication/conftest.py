"""Fixtures for the partner API: clients sending a read key and a writer key."""

import pytest
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
def api(read_key) -> APIClient:
    """A client sending a valid read key."""
    return client_for(read_key[1])


@pytest.fixture
def writer_api(writer_key) -> APIClient:
    return client_for(writer_key[1])
