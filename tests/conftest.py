"""Fixtures shared by every app's tests, and the test run's own settings."""

import copy
import io
import json

import pytest
from django.core.management import call_command

from tests.seed import SEED_JSON, SEED_MANIFESTS

# Helper modules that assert on behalf of the tests: rewritten like test modules, so that a
# failing assertion in them reports its values.
pytest.register_assert_rewrite("tests.stories.documents")


def pytest_configure(config):
    """The tests create many users: a fast password hasher for the test run only (the
    default hasher takes a quarter of a second per password by design)."""
    from django.conf import settings

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


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

    call_command("loaddemo", stdout=io.StringIO())
    return Story.objects.get(id="81")


@pytest.fixture
def manifests_loaded(db):
    """Only the seed's manifests and claims, no story."""
    call_command("import_manifests", str(SEED_MANIFESTS), stdout=io.StringIO())


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
    """The public pages cache rendered bodies and generation counters (docs/site.md), the
    API and the login its throttle counts: every test starts and ends with an empty cache,
    so that no test sees another's pages or counts; nor each worker's copies of pages."""
    from django.core.cache import cache

    from public.views import copies

    cache.clear()
    copies.clear()
    yield
    cache.clear()
    copies.clear()


# --------------------------------------------------------------------------- partners and stories
# The partner API's fixtures, shared with the reliability tests.


@pytest.fixture
def partner(db):
    from syndication.models import Partner

    return Partner.objects.create(name="Wire Co", slug="wire-co", contact="ops@wire.example")


@pytest.fixture
def read_key(partner):
    """(ApiKey, plaintext) with the read scope."""
    from syndication.models import ApiKey

    return ApiKey.issue(partner=partner, scope="read")


@pytest.fixture
def writer_key(partner):
    from syndication.models import ApiKey

    return ApiKey.issue(partner=partner, scope="writer")


@pytest.fixture
def make_story(db):
    """Build a bare published story (no sections): ``make_story(slug="a", newsroom=n)``."""
    from stories.models import Story
    from tests.factories import EditionFactory, NewsroomFactory
    from tests.stories.factories import StoryFactory

    def build(**fields) -> Story:
        fields.setdefault("newsroom", NewsroomFactory(slug="desk-news"))
        fields.setdefault("edition", EditionFactory(id="2026-10-16T00"))
        published = fields.get("status", Story.Status.PUBLISHED) == Story.Status.PUBLISHED
        return StoryFactory(published=published, **fields)

    return build


@pytest.fixture
def receiver():
    """A webhook receiver listening on 127.0.0.1 (``receiver.url``)."""
    from tests.syndication.helpers import Receiver

    r = Receiver()
    r.thread.start()
    yield r
    r.server.shutdown()
    r.server.server_close()


@pytest.fixture
def async_unsafe(monkeypatch):
    """Playwright's sync API runs an event loop in the test's thread; Django's ORM then
    refuses to run unless told the test knows what it is doing. Scoped to the test, so the
    variable never leaks into subprocesses (``check --deploy`` rejects it)."""
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture
def editor(db):
    """A member of the Editor group (staff)."""
    from tests.stories.helpers import member_of

    return member_of("Editor", "edna")


@pytest.fixture
def writer(db):
    """A member of the Writer group (staff, may edit drafts, may not publish)."""
    from tests.stories.helpers import member_of

    return member_of("Writer", "walt")
