"""Fixtures for the manifests' tests: the manifest provider, played by a local server."""

import pytest

from manifests import provider as provider_module
from tests.manifests.helpers import PROVIDER_KEY, FakeProvider


@pytest.fixture
def fake_provider(settings, monkeypatch):
    """The provider, running; settings point at it with a test key and tiny timeouts and
    backoff. ``fake_provider.sleeps`` records the waits between attempts (not slept)."""
    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    fake = FakeProvider()
    fake.sleeps = []
    monkeypatch.setattr(provider_module, "sleep", fake.sleeps.append)
    settings.MANIFEST_PROVIDER_URL = fake.url_template
    settings.MANIFEST_PROVIDER_KEY = PROVIDER_KEY
    settings.MANIFEST_PROVIDER_CONNECT_TIMEOUT = 2.0
    settings.MANIFEST_PROVIDER_READ_TIMEOUT = 2.0
    settings.MANIFEST_PROVIDER_MAX_ATTEMPTS = 3
    settings.MANIFEST_PROVIDER_BACKOFF = 0.01
    settings.MANIFEST_PROVIDER_BACKOFF_MAX = 0.05
    settings.MANIFEST_PROVIDER_RETRY_AFTER_MAX = 30.0
    settings.MANIFEST_PROVIDER_FRESH_HOURS = 24.0
    fake.start()
    yield fake
    fake.stop()
