"""Writer keys: submissions, manifests; any key: the check-only endpoint."""

import copy

import pytest

import stories.checks
from manifests.models import Manifest
from newsroom.models import Newsroom
from stories.models import CheckResult, Story
from syndication.models import WebhookDelivery, WebhookEndpoint

pytestmark = pytest.mark.django_db

RUBRIC_PASS = {
    "passed": True,
    "score": 1.0,
    "criteria": [{"name": "manifests_exist", "passed": True, "score": 1.0, "findings": []}],
}
RUBRIC_FAIL = {
    "passed": False,
    "score": 0.5,
    "criteria": [
        {
            "name": "claims_support",
            "passed": False,
            "score": 0.5,
            "findings": [{"severity": "error", "path": "sections[0].paragraphs[0]", "message": "37.0% is not stated"}],
        }
    ],
}


@pytest.fixture
def stub_checks(monkeypatch):
    """Fix the checks' verdict, to test this app's wiring on its own."""

    def install(rubric: dict):
        def run_checks(doc, *, exclude_story_id=None, public_sources=False):
            return copy.deepcopy(rubric)

        def check_and_record(story):
            return CheckResult.objects.create(
                story=story, version=story.version, passed=rubric["passed"], score=rubric["score"], rubric=rubric
            )

        monkeypatch.setattr(stories.checks, "run_checks", run_checks)
        monkeypatch.setattr(stories.checks, "check_and_record", check_and_record)

    return install


def submission(story_doc, **overrides):
    doc = story_doc(id=None, slug="a-new-submission", **overrides)
    return doc


# --------------------------------------------------------------------------- submissions


def test_submission_stored_as_draft_with_rubric(
    writer_api, story_doc, stub_checks, manifests_loaded, django_assert_max_num_queries
):
    stub_checks(RUBRIC_FAIL)
    # Nearly all of it is stories.actions.import_story writing the seed's sections and cites (71 today).
    with django_assert_max_num_queries(80):
        response = writer_api.post("/api/v1/submissions/", submission(story_doc), format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    story = Story.objects.get(pk=body["id"])
    assert (body["status"], story.status, story.published_at) == ("draft", "draft", None)
    assert body["rubric"] == RUBRIC_FAIL
    assert story.check_results.get().rubric == RUBRIC_FAIL
    assert story.audit_entries.filter(action="submission").exists()


def test_passing_submission_waits_for_an_editor_without_auto_publish(
    writer_api, story_doc, stub_checks, manifests_loaded
):
    stub_checks(RUBRIC_PASS)
    body = writer_api.post("/api/v1/submissions/", submission(story_doc), format="json").json()
    assert body["status"] == "draft"
    assert Story.objects.get(pk=body["id"]).status == "draft"


def test_passing_submission_is_published_when_the_newsroom_auto_publishes(
    writer_api, story_doc, stub_checks, manifests_loaded, partner
):
    stub_checks(RUBRIC_PASS)
    Newsroom.objects.create(slug="artificial-intelligence", title="Artificial Intelligence", auto_publish=True)
    WebhookEndpoint.objects.create(partner=partner, url="http://127.0.0.1:9/", events=["story.published"])
    body = writer_api.post("/api/v1/submissions/", submission(story_doc), format="json").json()
    story = Story.objects.get(pk=body["id"])
    assert body["status"] == story.status == "published"
    assert story.published_at is not None
    assert WebhookDelivery.objects.get().event == "story.published"


def test_failing_submission_is_not_published_even_with_auto_publish(
    writer_api, story_doc, stub_checks, manifests_loaded
):
    stub_checks(RUBRIC_FAIL)
    Newsroom.objects.create(slug="artificial-intelligence", title="Artificial Intelligence", auto_publish=True)
    body = writer_api.post("/api/v1/submissions/", submission(story_doc), format="json").json()
    assert body["status"] == "draft"


def test_published_at_in_a_submission_is_ignored(writer_api, story_doc, stub_checks, manifests_loaded):
    stub_checks(RUBRIC_FAIL)
    doc = submission(story_doc, published_at="2026-10-16T00:39:10Z")
    body = writer_api.post("/api/v1/submissions/", doc, format="json").json()
    assert Story.objects.get(pk=body["id"]).published_at is None


def test_submission_may_not_overwrite_a_published_story(writer_api, story_doc, demo, stub_checks):
    stub_checks(RUBRIC_PASS)
    response = writer_api.post("/api/v1/submissions/", story_doc(), format="json")  # id "81", published
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "conflict"
    demo.refresh_from_db()
    assert demo.status == "published"


@pytest.mark.parametrize(
    "change, path",
    [
        (lambda d: d.pop("headline"), "headline"),
        (lambda d: d.update(edition="2026-10-16"), "edition"),
        (
            lambda d: d["sections"][0]["paragraphs"][0]["cites"][0].update(manifest_id=1792067182956183080),
            "sections[0].paragraphs[0].cites[0].manifest_id",
        ),
    ],
)
def test_invalid_submission_is_400_with_the_json_path(writer_api, story_doc, change, path):
    doc = submission(story_doc)
    change(doc)
    response = writer_api.post("/api/v1/submissions/", doc, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid" and error["path"] == path and error["message"]
    assert not Story.objects.exists()


def test_unresolvable_manifest_is_400_and_nothing_is_stored(writer_api, story_doc):
    doc = submission(story_doc)
    doc["manifests"] = [m for m in doc["manifests"] if m["manifest_id"] != "1792067182956183080"]
    response = writer_api.post("/api/v1/submissions/", doc, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["path"].endswith(".manifest_id")
    assert not Story.objects.exists() and not Manifest.objects.exists() and not Newsroom.objects.exists()


def test_not_json_is_a_400(writer_api):
    response = writer_api.post("/api/v1/submissions/", "{nope", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "parse_error"


def test_submission_with_the_real_checks(writer_api, story_doc, manifests_loaded):
    response = writer_api.post("/api/v1/submissions/", submission(story_doc), format="json")
    assert response.status_code == 201, response.content
    rubric = response.json()["rubric"]
    assert {c["name"] for c in rubric["criteria"]} >= {"manifests_exist", "claims_support", "not_a_repeat"}
    assert CheckResult.objects.filter(story_id=response.json()["id"]).exists()


# --------------------------------------------------------------------------- manifests


def test_writer_posts_a_manifests_document(writer_api, seed_manifests_doc, django_assert_max_num_queries):
    # manifests.formats upserts claim by claim (92 on main today for the seed's 4 manifests).
    with django_assert_max_num_queries(110):
        response = writer_api.post("/api/v1/manifests/", seed_manifests_doc, format="json")
    assert response.status_code == 201, response.content
    assert response.json() == {"created": 4, "updated": 0, "unchanged": 0}
    again = writer_api.post("/api/v1/manifests/", seed_manifests_doc, format="json")
    assert again.status_code == 409  # writer keys add manifests, never update them


def test_invalid_manifests_document_is_400_and_nothing_is_stored(writer_api, seed_manifests_doc):
    seed_manifests_doc["manifests"][2]["claims"][0]["claim_id"] = 17
    response = writer_api.post("/api/v1/manifests/", seed_manifests_doc, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["path"] == "manifests[2].claims[0].claim_id"
    assert not Manifest.objects.exists()


# --------------------------------------------------------------------------- checks


@pytest.mark.parametrize("who", ["read", "writer", "staff"])
def test_checks_endpoint_returns_the_rubric_and_saves_nothing(
    who, read_key, writer_key, story_doc, stub_checks, django_assert_max_num_queries
):
    from rest_framework.test import APIClient

    from tests.factories import UserFactory
    from tests.syndication.helpers import client_for

    stub_checks(RUBRIC_FAIL)
    if who == "staff":
        client = APIClient()
        client.force_login(UserFactory(username="editor", is_staff=True))
    else:
        client = client_for((read_key if who == "read" else writer_key)[1])
    with django_assert_max_num_queries(8):
        response = client.post("/api/v1/checks/", story_doc(), format="json")
    assert response.status_code == 200, response.content
    assert response.json() == RUBRIC_FAIL
    assert not Story.objects.exists()


def test_checks_endpoint_needs_a_key(db, story_doc):
    from tests.syndication.helpers import client_for

    assert client_for(None).post("/api/v1/checks/", story_doc(), format="json").status_code == 401


def test_checks_endpoint_invalid_document_is_400(api, story_doc):
    doc = story_doc()
    doc["sections"][1]["paragraphs"][0]["cites"][0]["claim_ids"][0] = 5
    response = api.post("/api/v1/checks/", doc, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["path"] == "sections[1].paragraphs[0].cites[0].claim_ids[0]"


def test_checks_endpoint_with_the_real_checks(writer_api, story_doc, manifests_loaded):
    response = writer_api.post("/api/v1/checks/", story_doc(), format="json")
    assert response.status_code == 200
    assert response.json()["passed"] is True  # the seed story passes against its manifests
    assert not Story.objects.exists()
