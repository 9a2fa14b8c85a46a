"""Fixtures shared by every app's tests."""

import copy
import json
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "demo"
SEED_JSON = DEMO / "agent-training-stack.json"
SEED_TXT = DEMO / "agent-training-stack.txt"
SEED_MANIFESTS = DEMO / "agent-training-stack.manifests.json"


@pytest.fixture
def seed_doc() -> dict:
    """The seed story as a fresh dict (mutate freely)."""
    return json.loads(SEED_JSON.read_text(encoding="utf-8"))


@pytest.fixture
def seed_manifests_doc() -> dict:
    return json.loads(SEED_MANIFESTS.read_text(encoding="utf-8"))


@pytest.fixture
def demo(db):
    """The demo newsroom loaded: the seed story (published) and its four manifests."""
    from stories.models import Story

    call_command("loaddemo", stdout=open("/dev/null", "w"))
    return Story.objects.get(id="81")


@pytest.fixture
def manifests_loaded(db):
    """Only the seed's manifests and claims, no story."""
    call_command("import_manifests", str(SEED_MANIFESTS), stdout=open("/dev/null", "w"))


@pytest.fixture
def story_doc(seed_doc):
    """A builder of desk/1 documents derived from the seed: ``story_doc(id="900", slug="x")``."""

    def build(**overrides) -> dict:
        doc = copy.deepcopy(seed_doc)
        doc.update(overrides)
        return doc

    return build


@pytest.fixture(autouse=True)
def _clear_cache():
    """The public pages cache rendered bodies and generation counters (docs/site.md);
    start every test with an empty cache so that no test sees another's pages."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture
def async_unsafe(monkeypatch):
    """Playwright's sync API runs an event loop in the test's thread; Django's ORM then
    refuses to run unless told the test knows what it is doing. Scoped to the test, so the
    variable never leaks into subprocesses (``check --deploy`` rejects it)."""
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
