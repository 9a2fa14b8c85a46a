"""The signing decorator under hostile requests: Host headers under a wildcard
ALLOWED_HOSTS and query strings store no signature entries; errors, 304s and refused
methods are never signed."""

import pytest

from newsroom.infra.signing import messages
from public.views import copies

pytestmark = pytest.mark.django_db


@pytest.fixture
def stored(monkeypatch):
    """The signature entries written to the shared cache."""
    keys = []
    real = messages.cache

    class Counting:
        def get(self, key, default=None):
            return real.get(key, default)

        def set(self, key, value, timeout=None):
            keys.append(key)
            return real.set(key, value, timeout)

    monkeypatch.setattr(messages, "cache", Counting())
    messages._local.clear()
    copies.clear()
    return keys


def test_hosts_under_a_wildcard_store_no_signatures(client, demo, settings, stored):
    settings.ALLOWED_HOSTS = ["*"]
    for i in range(20):
        response = client.get(demo.path + "index.json", HTTP_HOST=f"h{i}.attacker.example")
        assert response.status_code == 200 and "Signature" in response
        assert f"h{i}.attacker.example" not in str(response.get("Signature-Input"))
    assert stored == []


def test_a_named_host_still_stores_its_signature(client, demo, settings, stored):
    settings.ALLOWED_HOSTS = ["hangingcontext.com", "*"]
    client.get(demo.path + "index.json", HTTP_HOST="hangingcontext.com")
    client.get(demo.path + "index.json", HTTP_HOST="hangingcontext.com")
    assert len(set(stored)) == 1  # one entry (written again at most, never another)


def test_ports_and_capitals_of_a_named_host_store_no_signatures(client, demo, settings, stored):
    settings.ALLOWED_HOSTS = ["hangingcontext.com"]
    for host in ["hangingcontext.com:1", "hangingcontext.com:2", "HangingContext.com", "HANGINGCONTEXT.COM:80"]:
        response = client.get(demo.path + "index.json", HTTP_HOST=host)
        assert response.status_code == 200 and "Signature" in response, host
    assert stored == []
    # The port the server listens on is the site's own (a development server's 127.0.0.1:8000).
    client.get(demo.path + "index.json", HTTP_HOST="hangingcontext.com:80", SERVER_PORT="80")
    assert len(set(stored)) == 1


def test_query_strings_store_no_signatures(client, demo, stored):
    for i in range(5):
        assert "Signature" in client.get(demo.path + f"index.json?x={i}")
    assert stored == []


def test_errors_not_modified_and_refused_methods_are_not_signed(client, demo):
    assert "Signature" not in client.get("/stories/2026-10-16/no-such-story/index.json")
    first = client.get(demo.path + "index.json")
    again = client.get(demo.path + "index.json", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and "Signature" not in again
    refused = client.post(demo.path + "index.json")
    assert refused.status_code == 405 and "Signature" not in refused
    assert "Signature" not in client.get(demo.path + "index.json", HTTP_HOST="evil.example")  # 400
