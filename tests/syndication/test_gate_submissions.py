"""Submissions only ever touch the submitter's own drafts: anything else they would match is
a 409, with nothing written, naming the story only when it is published or the partner's own; corrections never come from a submission; an
automatic publish goes through ``publish_story``."""

import copy
import datetime as dt
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection, connections, transaction
from django.test import Client
from django.utils import timezone

from newsroom.models import Edition, Newsroom
from stories.models import AuditEntry, CheckResult, Correction, Revision, Story
from syndication.models import ApiKey, Partner, WebhookDelivery, WebhookEndpoint

from .conftest import client_for

pytestmark = pytest.mark.django_db

URL = "/api/v1/submissions/"
RUBRIC_PASS = {
    "passed": True,
    "score": 1.0,
    "criteria": [{"name": "manifests_exist", "passed": True, "score": 1.0, "findings": []}],
}
RUBRIC_FAIL = {
    "passed": False,
    "score": 0.5,
    "criteria": [
        {"name": "manifests_exist", "passed": True, "score": 1.0, "findings": []},
        {
            "name": "claims_support",
            "passed": False,
            "score": 0.0,
            "findings": [{"severity": "error", "path": "sections[0].paragraphs[0]", "message": "37.0% is not stated"}],
        },
    ],
}


@pytest.fixture
def verdict(monkeypatch):
    """Fix the checks' verdict (the wiring is under test here, not the checks), counting runs."""
    import stories.checks

    runs = []

    def install(rubric: dict):
        def check_and_record(story):
            runs.append(story.pk)
            return CheckResult.objects.create(
                story=story, version=story.version, passed=rubric["passed"], score=rubric["score"], rubric=rubric
            )

        monkeypatch.setattr(stories.checks, "check_and_record", check_and_record)
        return runs

    return install


@pytest.fixture
def other_api(db):
    """A writer key of another partner."""
    other = Partner.objects.create(name="Rival Wire", slug="rival-wire")
    return client_for(ApiKey.issue(partner=other, scope="writer")[1])


def new_doc(story_doc, **overrides):
    return story_doc(**{"id": None, "slug": "a-new-submission", **overrides})


def written(story: Story) -> tuple:
    """What a refused submission must leave as it was."""
    story.refresh_from_db()
    return (
        story.status,
        story.version,
        story.headline,
        story.published_at,
        story.scheduled_for,
        AuditEntry.objects.count(),
        Revision.objects.count(),
        CheckResult.objects.count(),
    )


def assert_conflict(response, story: Story):
    assert response.status_code == 409, response.content
    error = response.json()["error"]
    assert error["code"] == "conflict"
    assert error["story"] == {"id": story.pk, "edition": story.edition_id, "slug": story.slug, "url": story.url}
    assert f"story {story.pk} " in error["message"] and story.url in error["message"]


def assert_taken(response, story: Story, field: str):
    """A 409 that says only which field is taken: the story is not the key's to see."""
    assert response.status_code == 409, response.content
    error = response.json()["error"]
    assert error["code"] == "conflict" and error["path"] == field and "is taken" in error["message"]
    assert "story" not in error
    body = response.content.decode()
    assert story.pk not in body and story.path not in body and story.headline not in body


# --------------------------------------------------------------------------- not a draft


def test_published_story_matched_by_slug_is_a_409_and_its_page_is_unchanged(writer_api, story_doc, demo, verdict):
    verdict(RUBRIC_PASS)
    before = written(demo)
    page = Client().get(demo.path)
    assert page.status_code == 200

    response = writer_api.post(URL, story_doc(id=None, headline="A quieter headline"), format="json")

    assert_conflict(response, demo)
    assert "is published" in response.json()["error"]["message"]
    assert written(demo) == before
    after = Client().get(demo.path)
    assert after.status_code == 200 and b"A quieter headline" not in after.content


def test_published_story_of_the_same_partner_is_a_409_too(writer_api, story_doc, demo, partner, verdict):
    verdict(RUBRIC_PASS)
    Story.objects.filter(pk=demo.pk).update(created_by_partner=partner.slug)
    before = written(demo)
    response = writer_api.post(URL, story_doc(headline="A quieter headline"), format="json")  # by id
    assert_conflict(response, demo)
    assert written(demo) == before


def test_scheduled_story_is_a_409_and_keeps_its_schedule_and_content(writer_api, story_doc, demo, partner, verdict):
    verdict(RUBRIC_PASS)
    when = timezone.now() + dt.timedelta(days=1)
    Story.objects.filter(pk=demo.pk).update(
        status=Story.Status.SCHEDULED, published_at=None, scheduled_for=when, created_by_partner=partner.slug
    )
    before = written(demo)
    for doc in (story_doc(id=None, headline="Replaced"), story_doc(headline="Replaced")):
        response = writer_api.post(URL, doc, format="json")
        assert_conflict(response, demo)
        assert "is scheduled" in response.json()["error"]["message"]
    assert written(demo) == before
    assert (demo.status, demo.scheduled_for) == (Story.Status.SCHEDULED, when)


def test_pending_draft_of_a_live_story_is_a_409(writer_api, story_doc, demo, partner, verdict):
    verdict(RUBRIC_PASS)
    pending = Story.objects.create(
        id="8100",
        draft_of=demo,
        slug=demo.slug,
        edition=demo.edition,
        newsroom=demo.newsroom,
        headline="Pending changes",
        created_by_partner=partner.slug,
    )
    before = written(pending)
    response = writer_api.post(URL, story_doc(id="8100", headline="Replaced"), format="json")
    assert_conflict(response, pending)
    assert "pending changes to live story 81" in response.json()["error"]["message"]
    assert written(pending) == before


# --------------------------------------------------------------------------- not the submitter's


@pytest.fixture
def rival_draft(other_api, story_doc, manifests_loaded, verdict):
    verdict(RUBRIC_FAIL)
    response = other_api.post(URL, new_doc(story_doc, headline="The rival's headline"), format="json")
    assert response.status_code == 201, response.content
    story = Story.objects.get(pk=response.json()["id"])
    assert story.created_by_partner == "rival-wire"
    return story


def test_another_partners_draft_by_id_is_a_409(writer_api, story_doc, rival_draft):
    before = written(rival_draft)
    response = writer_api.post(URL, new_doc(story_doc, id=rival_draft.pk, headline="Mine now"), format="json")
    assert_taken(response, rival_draft, "id")
    assert "was not submitted by this partner" not in response.json()["error"]["message"]
    assert written(rival_draft) == before


def test_another_partners_draft_by_slug_is_a_409(writer_api, story_doc, rival_draft):
    before = written(rival_draft)
    response = writer_api.post(URL, new_doc(story_doc, headline="Mine now"), format="json")
    assert_taken(response, rival_draft, "slug")
    assert written(rival_draft) == before


def test_a_story_created_in_the_admin_records_its_editor_and_refuses_submissions(writer_api, story_doc, demo, verdict):
    from tests.stories.helpers import member_of

    verdict(RUBRIC_PASS)
    writer = member_of("Writer", "walt")
    admin = Client()
    admin.force_login(writer)
    edition, _ = Edition.objects.get_or_create_for("2026-10-17T09")
    data = {
        "headline": "An editor's draft",
        "slug": "an-editors-draft",
        "edition": edition.pk,
        "newsroom": demo.newsroom_id,
        "trust": "reported",
        **dict.fromkeys(["audience", "dek", "angle", "unresolved", "useful_for", "not_for", "compare_against"], ""),
        **dict.fromkeys(["writer_agent", "writer_run_id"], ""),
    }
    for prefix in ["key_facts", "sections", "images", "related_links"]:
        data.update({f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"})
    assert admin.post("/admin/stories/story/add/", data).status_code == 302
    draft = Story.objects.get(slug="an-editors-draft")
    assert (draft.created_by, draft.created_by_partner) == (writer, "")

    before = written(draft)
    for doc, field in (
        (new_doc(story_doc, slug="an-editors-draft", edition="2026-10-17T09"), "slug"),
        (new_doc(story_doc, id=draft.pk, slug="an-editors-draft", edition="2026-10-17T09"), "id"),
    ):
        assert_taken(writer_api.post(URL, doc, format="json"), draft, field)
    assert written(draft) == before


def test_a_story_with_no_recorded_owner_is_a_409(writer_api, story_doc, demo, verdict):
    verdict(RUBRIC_PASS)
    Story.objects.filter(pk=demo.pk).update(status=Story.Status.DRAFT, published_at=None)
    before = written(demo)
    assert_taken(writer_api.post(URL, story_doc(headline="Mine now"), format="json"), demo, "id")
    assert_taken(writer_api.post(URL, story_doc(id=None, headline="Mine now"), format="json"), demo, "slug")
    assert written(demo) == before


# --------------------------------------------------------------------------- own drafts


def test_own_draft_is_updated_by_slug_and_by_id(writer_api, writer_key, story_doc, manifests_loaded, verdict):
    verdict(RUBRIC_FAIL)
    first = writer_api.post(URL, new_doc(story_doc), format="json").json()
    story = Story.objects.get(pk=first["id"])
    assert story.created_by_partner == "wire-co" and story.created_by is None

    by_slug = writer_api.post(URL, new_doc(story_doc, headline="Second take"), format="json")
    assert by_slug.status_code == 201, by_slug.content
    assert by_slug.json()["id"] == story.pk and by_slug.json()["version"] == first["version"] + 1
    by_id = writer_api.post(URL, new_doc(story_doc, id=story.pk, headline="Third take"), format="json")
    assert by_id.status_code == 201, by_id.content

    story.refresh_from_db()
    assert (story.headline, story.status, story.created_by_partner) == ("Third take", "draft", "wire-co")
    entries = list(story.audit_entries.order_by("version"))
    assert [e.action for e in entries] == [AuditEntry.Action.SUBMISSION] * 3
    prefix = writer_key[0].prefix
    assert [e.details for e in entries] == [
        {"partner": "wire-co", "key_prefix": prefix, "outcome": outcome}
        for outcome in ("created", "updated", "updated")
    ]
    assert all(e.user is None for e in entries)


def test_a_writer_key_cannot_take_over_a_draft_by_renaming_it(writer_api, story_doc, rival_draft):
    # Its own new story under the rival's id: the id names the rival's draft.
    response = writer_api.post(URL, new_doc(story_doc, id=rival_draft.pk, slug="something-else"), format="json")
    assert_taken(response, rival_draft, "id")


# --------------------------------------------------------------------------- corrections


def test_corrections_in_a_submission_are_a_400_and_nothing_is_stored(writer_api, story_doc, manifests_loaded, verdict):
    verdict(RUBRIC_PASS)
    doc = new_doc(
        story_doc,
        corrections=[{"corrected_at": "2020-01-01T00:00:00Z", "kind": "correction", "text": "We never said that."}],
    )
    response = writer_api.post(URL, doc, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["code"], error["path"]) == ("invalid", "corrections")
    assert not Story.objects.exists() and not Correction.objects.exists() and not AuditEntry.objects.exists()


def test_an_own_draft_keeps_the_corrections_the_desk_recorded(writer_api, story_doc, demo, partner, verdict):
    from stories import actions

    verdict(RUBRIC_PASS)
    correction = actions.record_correction(story=demo, text="The figure was 36%.", kind="correction")
    actions.unpublish_story(story=Story.objects.get(pk=demo.pk))
    Story.objects.filter(pk=demo.pk).update(created_by_partner=partner.slug)

    response = writer_api.post(URL, story_doc(headline="Back with a fix"), format="json")

    assert response.status_code == 201, response.content
    assert list(Correction.objects.filter(story=demo)) == [correction]
    assert Story.objects.get(pk=demo.pk).headline == "Back with a fix"


# --------------------------------------------------------------------------- auto_publish


@pytest.fixture
def auto_publishing(partner):
    Newsroom.objects.create(slug="artificial-intelligence", title="Artificial Intelligence", auto_publish=True)
    WebhookEndpoint.objects.create(partner=partner, url="http://127.0.0.1:9/", events=["story.published"])


def test_auto_publish_with_passing_checks_publishes_once_through_the_gate(
    writer_api, story_doc, manifests_loaded, auto_publishing, verdict
):
    runs = verdict(RUBRIC_PASS)
    response = writer_api.post(URL, new_doc(story_doc), format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    story = Story.objects.get(pk=body["id"])
    assert body["status"] == story.status == "published" and body["failed_criteria"] == []
    assert body["rubric"] == RUBRIC_PASS and body["version"] == story.version
    assert len(runs) == 1 and story.check_results.get().passed
    assert [e.action for e in story.audit_entries.order_by("version")] == ["submission", "publish"]
    assert story.audit_entries.get(action="publish").details["passed"] is True
    assert [d.event for d in WebhookDelivery.objects.all()] == ["story.published"]


def test_auto_publish_with_failing_checks_stays_a_draft_and_names_the_failures(
    writer_api, story_doc, manifests_loaded, auto_publishing, verdict
):
    verdict(RUBRIC_FAIL)
    response = writer_api.post(URL, new_doc(story_doc), format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    story = Story.objects.get(pk=body["id"])
    assert body["status"] == story.status == "draft" and story.published_at is None
    assert body["failed_criteria"] == ["claims_support"] and body["rubric"] == RUBRIC_FAIL
    assert story.check_results.get().rubric == RUBRIC_FAIL
    assert not story.audit_entries.filter(action="publish").exists()
    assert not WebhookDelivery.objects.exists()


def test_auto_publish_keeps_an_earlier_first_publication(writer_api, story_doc, demo, verdict):
    verdict(RUBRIC_PASS)
    first = timezone.now().replace(microsecond=0) - dt.timedelta(days=3)
    Newsroom.objects.filter(slug=demo.newsroom.slug).update(auto_publish=True)
    # Taken down earlier with its first publication time kept, then resubmitted by its partner.
    Story.objects.filter(pk=demo.pk).update(status=Story.Status.DRAFT, published_at=first, created_by_partner="wire-co")
    response = writer_api.post(URL, story_doc(headline="Back again"), format="json")
    assert response.status_code == 201, response.content
    demo.refresh_from_db()
    assert (demo.status, demo.headline, demo.published_at) == ("published", "Back again", first)


def test_published_at_in_the_document_never_publishes(writer_api, story_doc, manifests_loaded, verdict):
    verdict(RUBRIC_PASS)
    doc = copy.deepcopy(new_doc(story_doc))
    doc["published_at"] = "2026-10-16T00:39:10Z"
    body = writer_api.post(URL, doc, format="json").json()
    story = Story.objects.get(pk=body["id"])
    assert (story.status, story.published_at) == ("draft", None)


# --------------------------------------------------------------------------- locking


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks contend only on PostgreSQL")
def test_a_submission_racing_a_publish_waits_for_it_and_is_refused(transactional_db, story_doc, manifests_loaded):
    """The editor's publish holds the story's row lock; the submission waits on it and then
    sees a published story, instead of reading the draft it was a moment before."""
    from stories import actions, desk
    from stories.actions.submissions import SubmissionRefused, submit_draft

    doc = desk.validate(new_doc(story_doc))
    story = submit_draft(doc=doc, partner_slug="wire-co").story
    locked, submitted = threading.Event(), threading.Event()

    def publish():
        try:
            with transaction.atomic():
                actions.publish_story(story=story, override_reason="racing a submission")
                locked.set()
                submitted.wait(timeout=1)  # the submission is waiting on the lock by now
        finally:
            connections.close_all()

    def submit():
        locked.wait(timeout=10)
        try:
            changed = desk.validate(new_doc(story_doc, headline="Overwritten while going live"))
            threading.Timer(0.5, submitted.set).start()
            submit_draft(doc=changed, partner_slug="wire-co")
            return "written"
        except SubmissionRefused as exc:
            return exc.story.status
        finally:
            connections.close_all()

    with ThreadPoolExecutor(2) as pool:
        publishing, submitting = pool.submit(publish), pool.submit(submit)
        publishing.result()
        assert submitting.result() == "published"
    story.refresh_from_db()
    assert (story.status, story.headline) == ("published", doc["headline"])
