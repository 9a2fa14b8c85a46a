"""The import publishes a batch of new stories with ``publish_written``: each checked, its
rubric recorded and, when it passes, published, with the rows of the whole batch written
together; it publishes nothing but drafts the bulk writer has just written, and only for
someone who may publish."""

import datetime as dt
import io

import pytest
from django.core.exceptions import PermissionDenied
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from stories import desk
from stories.actions import ActionError, imports
from stories.actions.commit import written_in_bulk
from stories.actions.verbs import publish_written
from stories.models import AuditEntry, CheckResult, Revision, Story
from syndication.models import Partner, WebhookDelivery, WebhookEndpoint
from tests.seed import SEED_MANIFESTS
from tests.stories.test_gate_imports_batch import write

pytestmark = pytest.mark.django_db


def import_file(path):
    call_command("import_stories", str(path), stdout=io.StringIO(), stderr=io.StringIO())


def matching(queries, start: str) -> list[str]:
    return [q for q in queries if q.startswith(start)]


def test_a_batch_is_published_with_one_write_per_table(tmp_path, story_doc):
    call_command("import_manifests", str(SEED_MANIFESTS), stdout=io.StringIO())
    partner = Partner.objects.create(name="Wire Co", slug="wire-co", contact="ops@wire.example")
    WebhookEndpoint.objects.create(partner=partner, url="https://wire.example/hook", events=["story.published"])
    docs = [story_doc(id=str(960 + i), slug=f"p-{i}", newsroom=f"desk-{i}") for i in range(5)]
    refused = story_doc(id="969", slug="uncited", newsroom="desk-9")
    refused["sections"][1]["paragraphs"][0]["cites"] = []
    with CaptureQueriesContext(connection) as ctx, pytest.raises(CommandError, match="the checks failed"):
        import_file(write(tmp_path, [*docs, refused]))
    queries = [q["sql"] for q in ctx.captured_queries]
    published = Story.objects.filter(status=Story.Status.PUBLISHED, id__in=[d["id"] for d in docs])
    assert published.count() == 5
    assert len(matching(queries, 'UPDATE "stories_story"')) == 1
    assert len(matching(queries, 'INSERT INTO "stories_checkresult"')) == 1
    assert len(matching(queries, 'INSERT INTO "stories_revision"')) == 2  # version 1 as written, then the published
    assert len(matching(queries, 'SELECT "syndication_webhookendpoint"')) == 1
    if connection.features.has_select_for_update:
        assert len([q for q in queries if q.startswith('SELECT "stories_story"') and "FOR UPDATE" in q]) == 1
    # every story still has its own rubric, revision, audit row and delivery
    for doc in docs:
        assert CheckResult.objects.get(story_id=doc["id"], version=1).passed
        assert Revision.objects.filter(story_id=doc["id"], version=2).exists()
        assert AuditEntry.objects.get(story_id=doc["id"], version=2).action == "publish"
        assert WebhookDelivery.objects.filter(story_id=doc["id"], event="story.published").count() == 1
    assert not CheckResult.objects.get(story_id="969").passed
    assert Story.objects.get(pk="969").status == Story.Status.DRAFT
    assert not AuditEntry.objects.filter(story_id="969", action="publish").exists()


def test_the_endpoints_read_for_a_batch_are_not_kept_for_the_next_one(tmp_path, story_doc):
    call_command("import_manifests", str(SEED_MANIFESTS), stdout=io.StringIO())
    partner = Partner.objects.create(name="Wire Co", slug="wire-co", contact="ops@wire.example")
    import_file(write(tmp_path, [story_doc(id="970", slug="e-0", newsroom="desk-0")]))
    WebhookEndpoint.objects.create(partner=partner, url="https://wire.example/hook", events=["story.published"])
    import_file(write(tmp_path, [story_doc(id="971", slug="e-1", newsroom="desk-1")]))
    assert list(WebhookDelivery.objects.values_list("story_id", flat=True)) == ["971"]


def written_story(story_doc, pk: str):
    doc = desk.validate({**story_doc(id=pk, slug=f"w-{pk}", newsroom=f"desk-{pk}"), "published_at": None})
    stories, written = imports.write_new(
        [(1, doc)], desk.resolve_batch_references([(1, doc)]), user=None, action="import"
    )
    return stories[0], written


def test_only_a_draft_just_written_is_published(story_doc):
    call_command("import_manifests", str(SEED_MANIFESTS), stdout=io.StringIO())
    with transaction.atomic():
        story, written = written_story(story_doc, "980")
        Story.objects.filter(pk="980").update(
            status=Story.Status.SCHEDULED, scheduled_for=timezone.now() + dt.timedelta(days=1)
        )
        with written_in_bulk(written), pytest.raises(ActionError, match="not a draft the bulk writer has just written"):
            publish_written([(story, None)])
    assert not CheckResult.objects.filter(story_id="980").exists()
    assert not Revision.objects.filter(story_id="980", version=2).exists()


def test_a_story_not_written_in_bulk_is_refused(story_doc):
    call_command("import_manifests", str(SEED_MANIFESTS), stdout=io.StringIO())
    with transaction.atomic():
        story, _ = written_story(story_doc, "981")
        with pytest.raises(ValueError, match="not written by the bulk writer"):
            publish_written([(story, None)])  # outside written_in_bulk: its revision is not known
    assert Story.objects.get(pk="981").status == Story.Status.DRAFT


def test_publishing_a_batch_needs_the_publish_permission(story_doc, django_user_model):
    call_command("import_manifests", str(SEED_MANIFESTS), stdout=io.StringIO())
    writer = django_user_model.objects.create_user("writer", "w@example.com", "pw")
    with transaction.atomic():
        story, written = written_story(story_doc, "982")
        with written_in_bulk(written), pytest.raises(PermissionDenied):
            publish_written([(story, None)], user=writer)
    assert not CheckResult.objects.filter(story_id="982").exists()
    assert Story.objects.get(pk="982").status == Story.Status.DRAFT
