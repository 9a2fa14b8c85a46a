"""Read replicas end to end, with ``replica1`` a test mirror of the primary.

The replica alias exists only when ``DATABASE_REPLICA_URLS`` is set before Django starts,
so the ordinary test run re-runs this file in a child pytest with that variable set (the
replica URL is the primary's; settings make it a ``TEST: MIRROR`` of ``default``). The
end-to-end tests are transactional: inside a test transaction every read goes to the
primary by design.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connections
from django.test.utils import CaptureQueriesContext

from newsroom.infra.middleware import PIN_COOKIE
from newsroom.models import Newsroom

HAS_REPLICA = "replica1" in settings.DATABASES
needs_replica = pytest.mark.skipif(not HAS_REPLICA, reason="runs in the child pytest with DATABASE_REPLICA_URLS")
replica_db = pytest.mark.django_db(transaction=True, databases=["default", "replica1"])
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.skipif(HAS_REPLICA, reason="this is the child run")
def test_replica_tests_pass_with_a_mirrored_replica():
    primary_url = os.environ.get("DATABASE_URL") or f"sqlite:///{ROOT / 'db.sqlite3'}"
    env = {**os.environ, "DATABASE_REPLICA_URLS": primary_url}
    if primary_url.startswith("postgres"):
        # A test database of its own: the parent run's is in use.
        env["TEST_DATABASE_NAME"] = f"{os.environ.get('TEST_DATABASE_NAME') or 'test_newsroom'}_replica"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-o", "addopts=", "-q", "-p", "no:cacheprovider", str(Path(__file__))],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    passed = re.search(r"(\d+) passed", output)
    assert passed and int(passed.group(1)) == 5, output


@needs_replica
def test_each_replica_mirrors_the_primary_under_test_and_the_router_is_installed():
    assert settings.DATABASE_REPLICAS == ["replica1"]
    assert settings.DATABASES["replica1"]["TEST"]["MIRROR"] == "default"
    assert settings.DATABASE_ROUTERS == ["newsroom.infra.db_router.PrimaryReplicaRouter"]


def selects(context) -> list[str]:
    return [q["sql"] for q in context.captured_queries if q["sql"].lstrip().upper().startswith("SELECT")]


@needs_replica
@replica_db
def test_a_public_page_reads_from_the_replica(client):
    Newsroom.objects.create(slug="wire", title="The Wire")
    with (
        CaptureQueriesContext(connections["default"]) as primary,
        CaptureQueriesContext(connections["replica1"]) as replica,
    ):
        response = client.get("/")
    assert response.status_code == 200
    assert selects(replica), "the page read nothing from the replica"
    assert not selects(primary)


@needs_replica
@replica_db
def test_a_pinned_browser_reads_its_writes_from_the_primary(client):
    Newsroom.objects.create(slug="wire", title="The Wire")
    client.cookies[PIN_COOKIE] = "1"
    with (
        CaptureQueriesContext(connections["default"]) as primary,
        CaptureQueriesContext(connections["replica1"]) as replica,
    ):
        response = client.get("/")
    assert response.status_code == 200
    assert selects(primary)
    assert not selects(replica)


@needs_replica
@replica_db
def test_an_editor_who_saves_is_pinned_to_the_primary(client, django_user_model):
    editor = django_user_model.objects.create_superuser("ed", "ed@example.com", "pw-long-enough-123")
    client.force_login(editor)
    response = client.post("/admin/newsroom/newsroom/add/", {"slug": "wire", "title": "The Wire", "auto_publish": ""})
    assert response.status_code == 302, response.content[:500]
    assert PIN_COOKIE in response.cookies
    with CaptureQueriesContext(connections["replica1"]) as replica:
        assert client.get("/").status_code == 200
    assert not selects(replica)


@needs_replica
@replica_db
def test_the_admin_reads_the_primary(client, django_user_model):
    editor = django_user_model.objects.create_superuser("ed", "ed@example.com", "pw-long-enough-123")
    client.force_login(editor)
    client.cookies.pop(PIN_COOKIE, None)
    with CaptureQueriesContext(connections["replica1"]) as replica:
        assert client.get("/admin/newsroom/newsroom/").status_code == 200
    assert not selects(replica)
