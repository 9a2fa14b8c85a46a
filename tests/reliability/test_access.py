"""Who may do what, in tables: anonymous, a Writer, an Editor, a superuser, a read key and
a writer key against every admin view, every action in ``stories.actions`` and every API
endpoint. Each subject's whole row is compared at once, so a failure shows every cell that
differs.

Admin outcomes: ``200``, ``403``, ``405``, ``login`` (a redirect to the login page).
A partner key is not a login: the admin treats a request carrying one as anonymous.
"""

import datetime as dt

import pytest
from django.contrib.auth.models import AnonymousUser, Group
from django.core.exceptions import PermissionDenied
from django.utils import timezone

from stories import actions, desk
from stories.models import Story
from syndication.auth import PartnerUser
from syndication.models import ApiKey, Partner
from tests.factories import UserFactory
from tests.syndication.helpers import client_for

pytestmark = pytest.mark.django_db

SUBJECTS = ["anonymous", "writer", "editor", "superuser", "read_key", "writer_key"]
DRAFT, LIVE = "82", "81"
MANIFEST = "1792067182956183080"


@pytest.fixture
def world(demo, story_doc):
    """The seed story published (81), a draft copy of it (82), a partner with both keys."""
    actions.import_story(desk.validate(story_doc(id=DRAFT, slug="access-draft", published_at=None)), restore=True)
    assert Story.objects.get(pk=DRAFT).status == Story.Status.DRAFT
    partner = Partner.objects.create(name="Access Co", slug="access-co")
    keys = {scope: ApiKey.issue(partner=partner, scope=scope) for scope in ("read", "writer")}
    return {"partner": partner, "keys": keys}


def user_for(subject):
    if subject in ("writer", "editor"):
        user = UserFactory(username=f"access-{subject}", is_staff=True)
        user.groups.add(Group.objects.get(name=subject.title()))
        return user
    if subject == "superuser":
        return UserFactory(username="access-root", is_staff=True, is_superuser=True)
    return None


def client_as(subject, world):
    if subject.endswith("_key"):
        return client_for(world["keys"][subject.removesuffix("_key")][1])
    client = client_for(None)
    user = user_for(subject)
    if user is not None:
        client.force_login(user)
    return client


def outcome(response) -> str:
    if response.status_code == 302 and "/admin/login/" in response["Location"]:
        return "login"
    return str(response.status_code)


# --------------------------------------------------------------------------- admin views

S = "/admin/stories/story/"
ADMIN_VIEWS = {
    "story changelist": S,
    "story add": S + "add/",
    "draft change": f"{S}{DRAFT}/change/",
    "live change": f"{S}{LIVE}/change/",
    "run checks (GET)": f"{S}{DRAFT}/run-checks/",
    "publish": f"{S}{DRAFT}/publish/",
    "schedule": f"{S}{DRAFT}/schedule/",
    "unpublish": f"{S}{LIVE}/unpublish/",
    "correct": f"{S}{LIVE}/correct/",
    "revisions": f"{S}{LIVE}/revisions/",
    "story delete (live)": f"{S}{LIVE}/delete/",
    "manifest changelist": "/admin/manifests/manifest/",
    "manifest change": f"/admin/manifests/manifest/{MANIFEST}/change/",
    "manifest add": "/admin/manifests/manifest/add/",
    "partner changelist": "/admin/syndication/partner/",
    "partner add": "/admin/syndication/partner/add/",
    "key changelist": "/admin/syndication/apikey/",
    "key add": "/admin/syndication/apikey/add/",
    "webhook changelist": "/admin/syndication/webhookendpoint/",
}

LOGIN = dict.fromkeys(ADMIN_VIEWS, "login")
STAFF = {
    "story changelist": "200",
    "story add": "200",
    "draft change": "200",
    "live change": "200",
    "run checks (GET)": "405",
    "revisions": "200",
    "manifest changelist": "200",
    "manifest change": "200",
}
ADMIN_TABLE = {
    "anonymous": LOGIN,
    "read_key": LOGIN,
    "writer_key": LOGIN,
    "writer": {
        **STAFF,
        "publish": "403",
        "schedule": "403",
        "unpublish": "403",
        "correct": "403",
        "story delete (live)": "403",
        "manifest add": "403",
        "partner changelist": "403",
        "partner add": "403",
        "key changelist": "403",
        "key add": "403",
        "webhook changelist": "403",
    },
    "editor": {
        **STAFF,
        "publish": "200",
        "schedule": "200",
        "unpublish": "200",
        "correct": "200",
        # A published story is never deleted from the admin, by anyone: unpublish it first.
        "story delete (live)": "403",
        "manifest add": "200",
        "partner changelist": "403",
        "partner add": "403",
        "key changelist": "403",
        "key add": "403",
        "webhook changelist": "403",
    },
    "superuser": {
        **STAFF,
        "publish": "200",
        "schedule": "200",
        "unpublish": "200",
        "correct": "200",
        "story delete (live)": "403",
        "manifest add": "200",
        "partner changelist": "200",
        "partner add": "200",
        "key changelist": "200",
        "key add": "200",
        "webhook changelist": "200",
    },
}


@pytest.mark.parametrize("subject", SUBJECTS)
def test_admin_views(subject, world):
    client = client_as(subject, world)
    got = {name: outcome(client.get(url)) for name, url in ADMIN_VIEWS.items()}
    assert got == ADMIN_TABLE[subject]


VERB_POSTS = {
    "run checks": (f"{S}{DRAFT}/run-checks/", {}),
    "publish": (f"{S}{DRAFT}/publish/", {}),
    "schedule": (f"{S}{DRAFT}/schedule/", {"when": (timezone.now() + dt.timedelta(days=1)).strftime("%Y-%m-%d %H:%M")}),
    "unpublish": (f"{S}{LIVE}/unpublish/", {"reason": "a test"}),
    "correct": (f"{S}{LIVE}/correct/", {"kind": "correction", "text": "A date was wrong."}),
}


@pytest.mark.parametrize("subject", ["anonymous", "read_key", "writer_key", "writer"])
def test_verbs_posted_without_the_right_change_nothing(subject, world):
    """The POSTs behind the buttons: refused (403, or the login page) and nothing changes.
    (A writer may run the checks: that is a writer's tool, so it is left out for the writer.)"""
    client = client_as(subject, world)
    before = {s.pk: (s.status, s.version) for s in Story.objects.all()}
    got = {
        name: outcome(client.post(url, data))
        for name, (url, data) in VERB_POSTS.items()
        if not (subject == "writer" and name == "run checks")
    }
    expected = "403" if subject == "writer" else "login"
    assert set(got.values()) == {expected}, got
    assert {s.pk: (s.status, s.version) for s in Story.objects.all()} == before


# --------------------------------------------------------------------------- actions


def acting_user(subject, world):
    if subject == "anonymous":
        return AnonymousUser()
    if subject.endswith("_key"):
        return PartnerUser(world["keys"][subject.removesuffix("_key")][0])
    return user_for(subject)


ACTIONS = {
    "save_story (draft)": lambda u: actions.save_story(story=Story.objects.get(pk=DRAFT), user=u),
    "publish_story": lambda u: actions.publish_story(story=Story.objects.get(pk=DRAFT), user=u),
    "override the checks": lambda u: actions.publish_story(
        story=Story.objects.get(pk=DRAFT), user=u, override_reason="urgent"
    ),
    "schedule_story": lambda u: actions.schedule_story(
        story=Story.objects.get(pk=DRAFT), user=u, when=timezone.now() + dt.timedelta(days=1)
    ),
    "record_correction": lambda u: actions.record_correction(
        story=Story.objects.get(pk=LIVE), user=u, text="Fixed.", kind="correction"
    ),
    "unpublish_story": lambda u: actions.unpublish_story(story=Story.objects.get(pk=LIVE), user=u, reason="test"),
}
DENIED = dict.fromkeys(ACTIONS, "denied")
ACTION_TABLE = {
    "anonymous": DENIED,
    "read_key": DENIED,
    "writer_key": DENIED,
    "writer": {**DENIED, "save_story (draft)": "ok"},
    "editor": dict.fromkeys(ACTIONS, "ok"),
    "superuser": dict.fromkeys(ACTIONS, "ok"),
}


@pytest.fixture
def passing_checks(monkeypatch):
    """The draft is a copy of the live story, which the real checks rightly call a duplicate;
    here only the permissions are under test."""
    import stories.checks as checks
    from stories.models import CheckResult

    def check_and_record(story):
        return CheckResult.objects.create(
            story=story, version=story.version, passed=True, score=1.0, rubric={"passed": True}
        )

    monkeypatch.setattr(checks, "check_and_record", check_and_record)


@pytest.mark.parametrize("subject", SUBJECTS)
def test_actions(subject, world, passing_checks):
    """Each action with each user, on fresh state (a savepoint per call, rolled back)."""
    from django.db import transaction

    user = acting_user(subject, world)
    got = {}
    for name, act in ACTIONS.items():
        with transaction.atomic():
            try:
                act(user)
                got[name] = "ok"
            except PermissionDenied:
                got[name] = "denied"
            transaction.set_rollback(True)
    assert got == ACTION_TABLE[subject]


# --------------------------------------------------------------------------- API


def api_requests(story_doc, seed_manifests_doc):
    return {
        "GET stories": ("get", "/api/v1/stories/", None),
        "GET story": ("get", f"/api/v1/stories/{LIVE}/", None),
        "GET draft story": ("get", f"/api/v1/stories/{DRAFT}/", None),
        "GET ninjs": ("get", f"/api/v1/stories/{LIVE}/ninjs", None),
        "GET newsrooms": ("get", "/api/v1/newsrooms/", None),
        "GET editions": ("get", "/api/v1/editions/", None),
        "GET manifest": ("get", f"/api/v1/manifests/{MANIFEST}/", None),
        "GET corrections": ("get", "/api/v1/corrections/", None),
        "GET schema": ("get", "/api/schema/", None),
        "POST checks": ("post", "/api/v1/checks/", story_doc()),
        "POST submissions": ("post", "/api/v1/submissions/", story_doc(id=None, slug="access-submission")),
        "POST manifests": ("post", "/api/v1/manifests/", seed_manifests_doc),
        "POST stories": ("post", "/api/v1/stories/", {}),
    }


READS = {
    "GET stories": 200,
    "GET story": 200,
    "GET draft story": 404,
    "GET ninjs": 200,
    "GET newsrooms": 200,
    "GET editions": 200,
    "GET manifest": 200,
    "GET corrections": 200,
    "GET schema": 200,
}
NO_LOGIN = {
    **dict.fromkeys(READS, 401),
    "GET schema": 200,
    "POST checks": 401,
    "POST submissions": 401,
    "POST manifests": 401,
    "POST stories": 401,
}
# A staff session reads, and may run the checks; submitting is for writer keys (agents).
STAFF_API = {**READS, "POST checks": 200, "POST submissions": 403, "POST manifests": 403, "POST stories": 405}
API_TABLE = {
    "anonymous": NO_LOGIN,
    # A plain user (not staff) is not in this table's subjects; staff sessions are.
    "writer": STAFF_API,
    "editor": STAFF_API,
    "superuser": STAFF_API,
    "read_key": {**READS, "POST checks": 200, "POST submissions": 403, "POST manifests": 403, "POST stories": 403},
    # The seed's manifests are stored already, and a writer key only adds new ones: 409.
    "writer_key": {**READS, "POST checks": 200, "POST submissions": 201, "POST manifests": 409, "POST stories": 403},
}


@pytest.mark.parametrize("subject", SUBJECTS)
def test_api(subject, world, story_doc, seed_manifests_doc, django_assert_max_num_queries):
    client = client_as(subject, world)
    got = {}
    for name, (method, url, body) in api_requests(story_doc, seed_manifests_doc).items():
        # Reads stay within a small, fixed number of queries whoever asks.
        limit = 25 if method == "get" else 400
        with django_assert_max_num_queries(limit):
            response = (
                getattr(client, method)(url, body, format="json") if body is not None else getattr(client, method)(url)
            )
        got[name] = response.status_code
        if response.status_code >= 400:
            assert response.json()["error"]["code"], (name, response.content[:200])
    assert got == API_TABLE[subject]
