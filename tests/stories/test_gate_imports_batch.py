"""New stories of an import file published after their batch is written: the published
revision is rendered from the written document (no reload of the story's graph) and equals
what the story exports as; the audit, the publication record, the fingerprint, the webhook
payload and the rubric are those of a story published on its own."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from stories import desk
from stories.actions import publish_story
from stories.checks import run_checks
from stories.fingerprints import fingerprint_of
from stories.models import AuditEntry, CheckResult, Revision, Story, StoryFingerprint
from syndication.models import Partner, WebhookDelivery, WebhookEndpoint
from syndication.webhooks import story_summary
from tests.seed import SEED_MANIFESTS

pytestmark = pytest.mark.django_db


def write(tmp_path, docs):
    path = tmp_path / "stories.jsonl"
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
    return path


def docs_for(story_doc):
    # Each in a newsroom of its own, so none is a repeat of another; the last is refused.
    docs = [story_doc(id=str(900 + i), slug=f"story-{i}", newsroom=f"desk-{i}") for i in range(3)]
    docs[1]["beat"] = None
    refused = story_doc(id="950", slug="uncited", newsroom="desk-9")
    refused["sections"][1]["paragraphs"][0]["cites"] = []
    return [*docs, refused]


def summary(payload: str) -> dict:
    return json.loads(payload)["story"]


def test_published_revision_equals_the_export(tmp_path, story_doc):
    call_command("import_manifests", str(SEED_MANIFESTS), stdout=io.StringIO())
    partner = Partner.objects.create(name="Wire Co", slug="wire-co", contact="ops@wire.example")
    WebhookEndpoint.objects.create(partner=partner, url="https://wire.example/hook", events=["story.published"])
    with pytest.raises(CommandError, match="the checks failed"):
        call_command(
            "import_stories", str(write(tmp_path, docs_for(story_doc))), stdout=io.StringIO(), stderr=io.StringIO()
        )
    for pk in ("900", "901", "902"):
        story = Story.objects.with_everything().get(pk=pk)
        assert (story.status, story.version) == (Story.Status.PUBLISHED, 2)
        exported = desk.export_story(story)
        assert Revision.objects.get(story=story, version=2).data == exported
        assert Revision.objects.get(story=story, version=1).data["published_at"] is None
        audit = AuditEntry.objects.get(story=story, version=2)
        assert audit.action == "publish" and audit.details["passed"] is True
        checked = CheckResult.objects.get(story=story, version=1)
        assert checked.rubric == run_checks(desk.validate({**exported, "published_at": None}), exclude_story_id=pk)
        fp = StoryFingerprint.objects.get(story=story)
        assert [fp.minhash, fp.claim_ids] == list(fingerprint_of(desk.validate(exported)))
        delivery = WebhookDelivery.objects.get(story_id=pk, event="story.published")
        assert summary(delivery.payload) == story_summary(story)
    refused = Story.objects.get(pk="950")
    assert (refused.status, refused.version) == (Story.Status.DRAFT, 1)
    assert not WebhookDelivery.objects.filter(story_id="950").exists()


def test_the_same_as_publishing_one_by_one(tmp_path, story_doc):
    """The bulk path's published revision equals the one ``publish_story`` stores for the
    same document imported as a draft and published through the desk's path."""
    call_command("import_manifests", str(SEED_MANIFESTS), stdout=io.StringIO())
    docs = docs_for(story_doc)[:3]
    call_command("import_stories", str(write(tmp_path, docs)), stdout=io.StringIO(), stderr=io.StringIO())
    bulk = {pk: Revision.objects.get(story_id=pk, version=2).data for pk in ("900", "901", "902")}
    Story.objects.all().delete()
    for doc in docs:
        call_command(
            "import_stories",
            str(write(tmp_path, [{**doc, "published_at": None}])),
            stdout=io.StringIO(),
            stderr=io.StringIO(),
        )
        story = Story.objects.get(pk=doc["id"])
        story.published_at = None
        publish_story(story=story, at=desk.validate(doc)["published_at"])
    for pk, data in bulk.items():
        assert Revision.objects.get(story_id=pk, version=2).data == data
