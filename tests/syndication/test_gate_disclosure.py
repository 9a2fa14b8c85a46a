"""The API tells partners what readers are told: a story published over failing checks
says which failed, why and who overrode them, in its desk/1 document and its ninjs."""

import datetime as dt

import pytest
from django.contrib.auth.models import Group

from stories import actions, desk
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

REASON = "Claim confirmed by phone with the lab"
STORY_ID = "1792200000000000010"


@pytest.fixture
def overridden(demo, story_doc):
    """A repeat of the published seed (``not_a_repeat`` fails), published over the check."""
    editor = UserFactory(username="edna", first_name="Edna", last_name="Krabappel", is_staff=True)
    editor.groups.add(Group.objects.get(name="Editor"))
    doc = story_doc(id=STORY_ID, slug="agent-training-again", edition="2026-10-16T02", published_at=None)
    story = actions.import_story(desk.validate(doc)).story
    return actions.publish_story(story=story, user=editor, override_reason=REASON)


def test_the_story_document_discloses_the_override(api, overridden):
    disclosure = api.get(f"/api/v1/stories/{STORY_ID}/").json()["disclosure"]
    assert "Edna Krabappel took editorial responsibility and published it although server-side checks failed" in (
        disclosure
    )
    assert "not_a_repeat" in disclosure and f"“{REASON}”" in disclosure


def test_ninjs_carries_the_disclosure_and_links_the_record(api, overridden):
    item = api.get(f"/api/v1/stories/{STORY_ID}/ninjs").json()
    disclosure = next(i for i in item["trustIndicators"] if i["role"].endswith("/trust/disclosure"))
    assert "not_a_repeat" in disclosure["title"] and REASON in disclosure["title"]
    assert disclosure["href"] == "https://hangingcontext.com/stories/2026-10-16/agent-training-again/checks.json"


def test_ninjs_version_created_is_the_revision_time(api, demo):
    demo.revised_at = dt.datetime(2026, 10, 17, 9, 30, tzinfo=dt.UTC)
    demo.save()
    item = api.get("/api/v1/stories/81/ninjs").json()
    assert item["firstCreated"] == "2026-10-16T00:39:10Z"
    assert item["versionCreated"] == "2026-10-17T09:30:00Z"
