"""The story actions: every verb the admin, the API and the commands share."""

import datetime as dt
import io

import pytest
from django.core.exceptions import PermissionDenied
from django.core.management import call_command
from django.utils import timezone

from stories import actions, signals
from stories.models import AppendOnlyError, AuditEntry, CheckResult, Correction, Revision, Story

pytestmark = pytest.mark.django_db


@pytest.fixture
def received():
    """Signals sent during the test."""
    log = []

    def make(name):
        def receiver(sender, story, user, **kwargs):
            kwargs.pop("signal")
            log.append({"name": name, "story": story, "user": user, **kwargs})

        return receiver

    receivers = {
        name: make(name) for name in ("story_published", "story_unpublished", "story_corrected", "story_updated")
    }
    for name, receiver in receivers.items():
        getattr(signals, name).connect(receiver)
    yield log
    for name, receiver in receivers.items():
        getattr(signals, name).disconnect(receiver)


# --------------------------------------------------------------------------- save_story


def test_save_story_bumps_version_keeps_revision_audits_and_signals(draft, editor, received):
    before = draft.version
    draft.headline = "A sharper headline"
    saved = actions.save_story(story=draft, user=editor, expected_version=before)
    assert saved.version == before + 1
    revision = Revision.objects.get(story=draft, version=before + 1)
    assert revision.data["headline"] == "A sharper headline"
    assert revision.created_by == editor
    assert AuditEntry.objects.filter(story=draft, action="edit", version=before + 1, user=editor).exists()
    assert [r["name"] for r in received] == ["story_updated"]


def test_save_story_runs_the_callers_writes_inside_the_bump(draft, editor):
    section = draft.sections.all()[0]

    def write():
        section.heading = "Renamed section"
        section.save()

    saved = actions.save_story(story=draft, user=editor, write=write)
    assert Revision.objects.get(story=draft, version=saved.version).data["sections"][0]["heading"] == "Renamed section"


def test_save_story_refuses_a_stale_version_and_writes_nothing(draft, editor):
    opened = draft.version
    other = Story.objects.get(pk=draft.pk)
    other.dek = "Someone else's dek"
    actions.save_story(story=other, user=editor, expected_version=opened)

    mine = Story.objects.get(pk=draft.pk)
    mine.headline = "My headline"
    with pytest.raises(actions.VersionConflict) as exc:
        actions.save_story(story=mine, user=editor, expected_version=opened)
    assert exc.value.story.version == opened + 1
    stored = Story.objects.get(pk=draft.pk)
    assert (stored.headline, stored.dek, stored.version) == (draft.headline, "Someone else's dek", opened + 1)


def test_writer_edits_drafts_but_not_published_stories(demo, draft, writer):
    draft.dek = "Writer's dek"
    assert actions.save_story(story=draft, user=writer).dek == "Writer's dek"
    Story.objects.filter(pk=draft.pk).update(status="published", published_at=timezone.now())
    published = Story.objects.get(pk=draft.pk)
    published.dek = "Writer edits a live story"
    with pytest.raises(PermissionDenied):
        actions.save_story(story=published, user=writer)


def test_signals_are_sent_inside_the_transaction(demo, editor):
    """A receiver that fails (an outbox that cannot write) undoes the action with it."""

    def failing_outbox(sender, **kwargs):
        raise RuntimeError("outbox down")

    signals.story_corrected.connect(failing_outbox)
    try:
        with pytest.raises(RuntimeError):
            actions.record_correction(story=demo, user=editor, kind="correction", text="x")
    finally:
        signals.story_corrected.disconnect(failing_outbox)
    assert not Correction.objects.exists()
    assert Story.objects.get(pk=demo.pk).version == demo.version


# --------------------------------------------------------------------------- publish


def test_publish_runs_checks_and_publishes_a_passing_story(draft, editor, received):
    story = actions.publish_story(story=draft, user=editor)
    assert story.status == Story.Status.PUBLISHED and story.published_at is not None
    assert CheckResult.objects.filter(story=draft, passed=True).exists()
    entry = AuditEntry.objects.filter(story=draft, action="publish").first()
    assert (entry.user, entry.version, entry.reason) == (editor, story.version, "")
    assert [r["name"] for r in received] == ["story_published"]


def test_publish_refuses_a_failing_story_and_keeps_the_rubric(uncited_draft, editor):
    version = Story.objects.get(pk=uncited_draft.pk).version
    with pytest.raises(actions.ChecksFailed) as exc:
        actions.publish_story(story=uncited_draft, user=editor)
    rubric = exc.value.result.rubric
    cited = next(c for c in rubric["criteria"] if c["name"] == "paragraphs_cited")
    assert not cited["passed"]
    assert "sections[1].paragraphs[0]" in [f["path"] for f in cited["findings"]]
    story = Story.objects.get(pk=uncited_draft.pk)
    assert (story.status, story.version) == (Story.Status.DRAFT, version)
    # the failing rubric is recorded, so the editor sees why
    assert CheckResult.objects.filter(story=story, passed=False).exists()
    assert not AuditEntry.objects.filter(story=story, action="publish", version__gt=version).exists()


def test_override_needs_a_reason_and_the_permission(uncited_draft, editor, writer):
    with pytest.raises(PermissionDenied):
        actions.publish_story(story=uncited_draft, user=writer, override_reason="deadline")
    story = actions.publish_story(story=uncited_draft, user=editor, override_reason="  Source confirmed by phone.  ")
    assert story.is_published
    entry = AuditEntry.objects.filter(story=story, action="publish").first()
    assert entry.reason == "Source confirmed by phone."
    assert entry.details["overridden"] is True


def test_override_without_override_permission_is_refused(uncited_draft):
    from django.contrib.auth.models import Permission

    from tests.factories import UserFactory

    publisher = UserFactory(username="pub")
    publisher.user_permissions.add(Permission.objects.get(codename="publish_story"))
    with pytest.raises(PermissionDenied):
        actions.publish_story(story=uncited_draft, user=publisher, override_reason="I say so")
    assert not Story.objects.get(pk=uncited_draft.pk).is_published


def test_writer_cannot_publish_unpublish_or_schedule(draft, writer):
    with pytest.raises(PermissionDenied):
        actions.publish_story(story=draft, user=writer)
    with pytest.raises(PermissionDenied):
        actions.schedule_story(story=draft, user=writer, when=timezone.now() + dt.timedelta(hours=1))
    published = actions.publish_story(story=draft)
    with pytest.raises(PermissionDenied):
        actions.unpublish_story(story=published, user=writer)
    assert Story.objects.get(pk=draft.pk).is_published


def test_publishing_a_published_story_is_refused(demo, editor):
    with pytest.raises(actions.ActionError):
        actions.publish_story(story=demo, user=editor)


# --------------------------------------------------------------------------- unpublish, schedule


def test_unpublish_makes_a_draft_audits_and_signals(demo, editor, received):
    story = actions.unpublish_story(story=demo, user=editor, reason="legal asked")
    # taken down, its first publication time stays on record
    assert (story.status, story.published_at) == (Story.Status.DRAFT, demo.published_at)
    assert AuditEntry.objects.get(story=demo, action="unpublish").reason == "legal asked"
    assert [r["name"] for r in received] == ["story_unpublished"]
    with pytest.raises(actions.ActionError):
        actions.unpublish_story(story=story, user=editor)


def test_schedule_needs_a_future_time(draft, editor):
    with pytest.raises(actions.ActionError):
        actions.schedule_story(story=draft, user=editor, when=timezone.now() - dt.timedelta(minutes=1))
    when = timezone.now() + dt.timedelta(hours=2)
    story = actions.schedule_story(story=draft, user=editor, when=when)
    assert (story.status, story.scheduled_for) == (Story.Status.SCHEDULED, when)
    assert AuditEntry.objects.filter(story=draft, action="schedule").exists()


def test_cancel_schedule_returns_to_draft(draft, editor):
    actions.schedule_story(story=draft, user=editor, when=timezone.now() + dt.timedelta(hours=2))
    story = actions.cancel_schedule(story=draft, user=editor)
    assert (story.status, story.scheduled_for) == (Story.Status.DRAFT, None)


def test_publish_scheduled_publishes_due_stories_only(draft, editor, demo):
    actions.schedule_story(story=draft, user=editor, when=timezone.now() + dt.timedelta(hours=1))
    call_command("publish_scheduled", stdout=io.StringIO())
    assert Story.objects.get(pk=draft.pk).status == Story.Status.SCHEDULED  # not due yet
    Story.objects.filter(pk=draft.pk).update(scheduled_for=timezone.now() - dt.timedelta(minutes=1))
    call_command("publish_scheduled", stdout=io.StringIO())
    story = Story.objects.get(pk=draft.pk)
    assert story.is_published and story.scheduled_for is None
    assert AuditEntry.objects.filter(story=story, action="publish", user=None).exists()


@pytest.mark.parametrize("change", ["cancelled", "moved later"])
def test_publish_scheduled_does_not_overrule_an_editor_who_changed_the_schedule_meanwhile(
    draft, editor, demo, monkeypatch, change
):
    """The scheduler lists the due stories, then an editor cancels (or moves) one before the
    scheduler reaches it: the editor's decision stands."""
    actions.schedule_story(story=draft, user=editor, when=timezone.now() + dt.timedelta(hours=1))
    Story.objects.filter(pk=draft.pk).update(scheduled_for=timezone.now() - dt.timedelta(minutes=1))
    real = actions.publish_story

    def editor_first(*, story, **kwargs):
        if change == "cancelled":
            actions.cancel_schedule(story=story, user=editor, reason="not today: legal review")
        else:
            Story.objects.filter(pk=story.pk).update(scheduled_for=timezone.now() + dt.timedelta(days=1))
        return real(story=story, **kwargs)

    monkeypatch.setattr(actions, "publish_story", editor_first)
    published_before = AuditEntry.objects.filter(story_id=draft.pk, action="publish").count()
    err = io.StringIO()
    call_command("publish_scheduled", stdout=io.StringIO(), stderr=err)
    story = Story.objects.get(pk=draft.pk)
    assert not story.is_published
    assert story.status == (Story.Status.DRAFT if change == "cancelled" else Story.Status.SCHEDULED)
    assert "no longer scheduled for now" in err.getvalue()
    assert AuditEntry.objects.filter(story=story, action="publish").count() == published_before


def test_publish_scheduled_sends_a_failing_story_back_to_draft(uncited_draft, editor):
    actions.schedule_story(story=uncited_draft, user=editor, when=timezone.now() + dt.timedelta(hours=1))
    Story.objects.filter(pk=uncited_draft.pk).update(scheduled_for=timezone.now() - dt.timedelta(minutes=1))
    call_command("publish_scheduled", stdout=io.StringIO(), stderr=io.StringIO())
    story = Story.objects.get(pk=uncited_draft.pk)
    assert story.status == Story.Status.DRAFT
    assert "checks failed" in AuditEntry.objects.get(story=story, action="unschedule").reason


# --------------------------------------------------------------------------- corrections


def test_record_correction_appends_bumps_and_signals(demo, editor, received):
    version = demo.version
    correction = actions.record_correction(
        story=demo, user=editor, kind="correction", text=" The task count was 52, not 50. "
    )
    assert (correction.text, correction.created_by, correction.kind) == (
        "The task count was 52, not 50.",
        editor,
        "correction",
    )
    story = Story.objects.get(pk=demo.pk)
    assert story.version == version + 1
    revision = Revision.objects.get(story=demo, version=story.version)
    assert revision.data["corrections"][-1]["text"] == "The task count was 52, not 50."
    assert [r["name"] for r in received] == ["story_corrected"]
    assert received[0]["correction"] == correction


def test_writer_cannot_record_a_correction(demo, writer):
    with pytest.raises(PermissionDenied):
        actions.record_correction(story=demo, user=writer, kind="correction", text="x")
    assert not Correction.objects.exists()


def test_corrections_only_on_published_stories_and_valid_kinds(draft, demo, editor):
    with pytest.raises(actions.ActionError):
        actions.record_correction(story=draft, user=editor, kind="correction", text="x")
    with pytest.raises(actions.ActionError):
        actions.record_correction(story=draft, user=editor, kind="erratum", text="x")
    with pytest.raises(actions.ActionError):
        actions.record_correction(story=draft, user=editor, kind="update", text="   ")


def test_a_recorded_correction_can_never_be_changed_or_deleted(demo, editor):
    correction = actions.record_correction(story=demo, user=editor, kind="update", text="Added the authors' response.")
    correction.text = "rewritten"
    with pytest.raises(AppendOnlyError):
        correction.save()
    with pytest.raises(AppendOnlyError):
        correction.delete()
    with pytest.raises(AppendOnlyError):
        Correction.objects.filter(pk=correction.pk).update(text="rewritten")
    with pytest.raises(AppendOnlyError):
        Correction.objects.all().delete()
    assert Correction.objects.get(pk=correction.pk).text == "Added the authors' response."
