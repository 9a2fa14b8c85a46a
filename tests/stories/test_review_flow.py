"""The review flow: a writer submits a draft, an editor sees it in the review queue and
publishes it or sends it back with a note the writer then reads."""

import pytest
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.test import Client

from stories import actions
from stories.models import AuditEntry, CheckResult, Story
from tests.factories import UserFactory
from tests.stories.helpers import change_url, client_for

pytestmark = pytest.mark.django_db

QUEUE = "/admin/stories/story/review/"


def _submit(draft, writer):
    return client_for(writer).post(f"/admin/stories/story/{draft.pk}/submit-review/")


# --------------------------------------------------------------------------- the actions


def test_submitting_marks_the_draft_in_review_with_one_audit_row_and_no_new_version(draft, writer):
    before = draft.version
    story = actions.submit_for_review(story=draft, user=writer)
    stored = Story.objects.get(pk=draft.pk)
    assert stored.review_status == Story.Review.IN_REVIEW and stored.review_changed_at is not None
    assert stored.version == before == story.version
    entry = AuditEntry.objects.filter(story=draft).first()
    assert entry.action == "submit_review" and entry.user == writer and entry.version == before


def test_a_published_story_is_not_submitted(demo, writer, editor):
    with pytest.raises(PermissionDenied):
        actions.submit_for_review(story=demo, user=writer)
    with pytest.raises(actions.ActionError, match="only a draft"):
        actions.submit_for_review(story=demo, user=editor)


def test_a_draft_already_in_review_is_not_submitted_twice(draft, writer):
    actions.submit_for_review(story=draft, user=writer)
    with pytest.raises(actions.ActionError, match="already in review"):
        actions.submit_for_review(story=draft, user=writer)
    assert AuditEntry.objects.filter(story=draft, action="submit_review").count() == 1


def test_sending_back_needs_an_editor_a_note_and_a_draft_in_review(draft, writer, editor):
    with pytest.raises(actions.ActionError, match="in review"):
        actions.send_back(story=draft, user=editor, note="Source the 900.")
    actions.submit_for_review(story=draft, user=writer)
    with pytest.raises(PermissionDenied):
        actions.send_back(story=draft, user=writer, note="I send myself back")
    with pytest.raises(actions.ActionError, match="note"):
        actions.send_back(story=draft, user=editor, note="   ")
    with pytest.raises(actions.ActionError, match="at most"):
        actions.send_back(story=draft, user=editor, note="x" * 5001)
    assert Story.objects.get(pk=draft.pk).review_status == Story.Review.IN_REVIEW
    actions.send_back(story=draft, user=editor, note="  Source the 900.  ")
    stored = Story.objects.get(pk=draft.pk)
    assert stored.review_status == Story.Review.SENT_BACK and stored.review_note == "Source the 900."
    entry = AuditEntry.objects.filter(story=draft).first()
    assert entry.action == "send_back" and entry.reason == "Source the 900." and entry.user == editor


def test_resubmitting_clears_the_note(draft, writer, editor):
    actions.submit_for_review(story=draft, user=writer)
    actions.send_back(story=draft, user=editor, note="Fix it.")
    actions.submit_for_review(story=draft, user=writer)
    stored = Story.objects.get(pk=draft.pk)
    assert stored.review_status == Story.Review.IN_REVIEW and stored.review_note == ""


@pytest.mark.parametrize(
    "fields",
    [
        {"review_status": "approved"},
        {"review_status": "sent_back", "review_note": ""},
        {"review_status": "in_review", "review_changed_at": None},
    ],
)
def test_the_database_refuses_an_inconsistent_review_status(draft, fields):
    from django.utils import timezone

    values = {"review_changed_at": timezone.now(), "review_note": "n", **fields}
    with pytest.raises(IntegrityError), transaction.atomic():
        Story.objects.filter(pk=draft.pk).update(**values)


# --------------------------------------------------------------------------- the admin


def test_a_writer_submits_from_the_story_page(draft, writer):
    html = client_for(writer).get(change_url(draft)).content.decode()
    assert 'id="desk-submit-review"' in html and 'id="desk-send-back"' not in html
    response = _submit(draft, writer)
    assert response.status_code == 302
    assert Story.objects.get(pk=draft.pk).review_status == Story.Review.IN_REVIEW
    html = client_for(writer).get(change_url(draft)).content.decode()
    assert 'id="desk-in-review"' in html and 'id="desk-submit-review"' not in html


def test_submit_is_a_post_with_csrf(draft, writer):
    assert client_for(writer).get(f"/admin/stories/story/{draft.pk}/submit-review/").status_code == 405
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(writer)
    assert csrf_client.post(f"/admin/stories/story/{draft.pk}/submit-review/").status_code == 403
    assert Story.objects.get(pk=draft.pk).review_status == ""


def test_anonymous_and_read_only_users_cannot_submit(draft):
    anonymous = Client().post(f"/admin/stories/story/{draft.pk}/submit-review/")
    assert anonymous.status_code == 302 and "/admin/login/" in anonymous["Location"]
    readonly = UserFactory(username="rita", is_staff=True)
    readonly.user_permissions.add(*Group.objects.get(name="Writer").permissions.filter(codename="view_story"))
    response = client_for(readonly).post(f"/admin/stories/story/{draft.pk}/submit-review/")
    assert response.status_code == 403 and b'id="desk-forbidden"' in response.content
    assert Story.objects.get(pk=draft.pk).review_status == ""
    assert not AuditEntry.objects.filter(story=draft, action="submit_review").exists()


def test_the_editor_sees_the_queue_with_status_checks_writer_and_updated(draft, writer, editor):
    from stories.checks import check_and_record

    Story.objects.filter(pk=draft.pk).update(created_by=writer)
    check_and_record(draft)
    _submit(draft, writer)
    html = client_for(editor).get(QUEUE).content.decode()
    assert 'id="desk-review-queue"' in html
    assert draft.headline in html and "In review" in html and "passed" in html and writer.username in html
    assert "UTC" in html and f"/admin/stories/story/{draft.pk}/send-back/" in html


def test_the_queue_filters_by_status_and_checks(draft, writer, editor):
    CheckResult.objects.filter(story=draft).delete()
    _submit(draft, writer)
    client = client_for(editor)
    assert draft.headline in client.get(QUEUE + "?checks=none").content.decode()
    assert draft.headline not in client.get(QUEUE + "?checks=passed").content.decode()
    assert draft.headline not in client.get(QUEUE + "?status=sent_back").content.decode()
    assert draft.headline in client.get(QUEUE + "?status=all").content.decode()
    assert client.get(QUEUE + "?status=<script>&checks=x").status_code == 200  # unknown: the default


def test_the_queue_is_the_editors_landing_link(editor):
    html = client_for(editor).get("/admin/").content.decode()
    assert 'href="/admin/stories/story/review/"' in html and 'id="desk-landing"' in html


def test_the_queue_needs_a_login(db):
    response = Client().get(QUEUE)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_the_queue_queries_do_not_grow_with_the_stories(
    draft, writer, editor, make_story, django_assert_max_num_queries
):
    from stories.checks import check_and_record

    _submit(draft, writer)
    client = client_for(editor)
    client.get(QUEUE)
    with django_assert_max_num_queries(8) as one:
        client.get(QUEUE)
    for n in range(5):
        story = make_story(
            slug=f"review-{n}", status="draft", newsroom=draft.newsroom, edition=draft.edition, created_by=writer
        )
        check_and_record(story)
        actions.submit_for_review(story=story, user=writer)
    with django_assert_max_num_queries(len(one.captured_queries)):
        page = client.get(QUEUE)
    assert page.content.decode().count("Send back…") == 6


def test_a_writer_cannot_send_back(draft, writer):
    actions.submit_for_review(story=draft, user=writer)
    client = client_for(writer)
    assert 'id="desk-send-back"' not in client.get(change_url(draft)).content.decode()
    response = client.post(f"/admin/stories/story/{draft.pk}/send-back/", {"note": "no"})
    assert response.status_code == 403 and b"only an editor" in response.content
    assert Story.objects.get(pk=draft.pk).review_status == Story.Review.IN_REVIEW


def test_the_editor_sends_back_and_the_writer_reads_the_note_escaped(draft, writer, editor):
    actions.submit_for_review(story=draft, user=writer)
    hostile = '<script>alert(1)</script> <img src=x onerror=alert(2)> Source "900".'
    editor_client = client_for(editor)
    assert 'id="desk-send-back"' in editor_client.get(change_url(draft)).content.decode()
    response = editor_client.post(f"/admin/stories/story/{draft.pk}/send-back/", {"note": hostile})
    assert response.status_code == 302 and response["Location"] == QUEUE
    html = client_for(writer).get(change_url(draft)).content.decode()
    assert 'id="desk-sent-back"' in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert(1)" not in html
    assert "<img src=x" not in html
    queue = editor_client.get(QUEUE + "?status=sent_back").content.decode()
    assert "&lt;script&gt;" in queue and "<script>alert" not in queue


def test_a_blank_note_is_refused_with_the_form(draft, writer, editor):
    actions.submit_for_review(story=draft, user=writer)
    response = client_for(editor).post(f"/admin/stories/story/{draft.pk}/send-back/", {"note": "  "})
    assert response.status_code == 200 and b"errorlist" in response.content
    assert Story.objects.get(pk=draft.pk).review_status == Story.Review.IN_REVIEW
    assert not AuditEntry.objects.filter(story=draft, action="send_back").exists()


def test_sending_back_a_draft_not_in_review_says_why(draft, editor):
    response = client_for(editor).post(f"/admin/stories/story/{draft.pk}/send-back/", {"note": "Fix it."})
    assert response.status_code == 200 and b"only a draft in review is sent back" in response.content
