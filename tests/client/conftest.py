"""Fixtures of the Python client's tests: the package (installed, or from ``client/``), and
a live test server of the project with the demo newsroom and partner keys."""

import io
import sys
from pathlib import Path

import pytest

try:
    import newsroom_client  # noqa: F401  (installed: pip install ./client)
except ImportError:  # the main suite imports it from the source tree
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "client"))


@pytest.fixture
def site(transactional_db, live_server):
    """The live server's base URL, with the demo newsroom loaded (story 81 published)."""
    from django.core.management import call_command

    call_command("loaddemo", stdout=io.StringIO())
    return live_server.url


@pytest.fixture
def keys(transactional_db):
    """(read key, writer key) of one partner, as plaintext."""
    from syndication.models import ApiKey, Partner

    partner = Partner.objects.create(name="Agent Lab", slug="agent-lab", contact="ops@agent.example")
    return ApiKey.issue(partner=partner, scope="read")[1], ApiKey.issue(partner=partner, scope="writer")[1]


@pytest.fixture
def remote_core():
    """``api_core(...)`` whose connections are closed when the test ends, so the live server
    has no connection left open when it stops."""
    from newsroom_client.rewards import api_core

    made = []

    def build(*args, **kwargs):
        made.append(api_core(*args, **kwargs))
        return made[-1]

    yield build
    for core in made:
        core.close()
