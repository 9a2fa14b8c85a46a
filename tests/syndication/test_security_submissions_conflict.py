"""The 409 of a submission tells a writer key only what it may know: it names the story it
clashes with when that story is published or the partner's own; of any other story (an
editor's, another partner's draft, a scheduled story) it says only that the ``slug`` (or the
``id``) is taken, with ``path`` naming that field, and nothing is written."""

import datetime as dt

import pytest
from django.utils import timezone

from stories import actions, desk
from stories.models import Story
from syndication.models import ApiKey, Partner
from tests.syndication.helpers import client_for

pytestmark = pytest.mark.django_db

URL = "/api/v1/submissions/"


@pytest.fixture
def rival_key(db):
    rival = Partner.objects.create(name="Rival Wire", slug="rival-wire")
    return ApiKey.issue(partner=rival, scope="writer")[1]


def stored(story_doc, **fields) -> Story:
    return actions.import_story(desk.validate(story_doc(id=None, published_at=None, **fields))).story


def assert_taken(response, story: Story, field: str) -> None:
    assert response.status_code == 409, response.content
    error = response.json()["error"]
    assert error["code"] == "conflict" and error["path"] == field and "is taken" in error["message"]
    assert "story" not in error
    body = response.content.decode()
    for secret in (story.pk, story.path, story.headline, "scheduled", "not submitted by this partner"):
        assert secret not in body, secret


def test_a_scheduled_story_is_not_confirmed_to_a_writer_key(manifests_loaded, story_doc, writer_key):
    s = stored(story_doc, slug="ceo-to-resign", headline="CEO to resign")
    actions.schedule_story(story=s, when=timezone.now() + dt.timedelta(days=2))
    before = Story.objects.count()
    response = client_for(writer_key[1]).post(URL, story_doc(id=None, slug="ceo-to-resign"), format="json")
    assert_taken(response, s, "slug")
    assert "'ceo-to-resign' is taken for this edition" in response.json()["error"]["message"]
    assert Story.objects.count() == before


def test_an_editors_draft_is_not_confirmed(manifests_loaded, story_doc, writer_key):
    s = stored(story_doc, slug="embargoed", headline="Embargoed until Monday")
    assert_taken(client_for(writer_key[1]).post(URL, story_doc(id=None, slug="embargoed"), format="json"), s, "slug")


def test_another_partners_draft_is_not_confirmed_by_slug_or_by_id(manifests_loaded, story_doc, writer_key, rival_key):
    doc = story_doc(id=None, slug="rival-scoop", headline="The rival's scoop", corrections=[])
    response = client_for(rival_key).post(URL, doc, format="json")
    assert response.status_code == 201, response.content
    rival = Story.objects.get(pk=response.json()["id"])
    mine = client_for(writer_key[1])
    assert_taken(mine.post(URL, story_doc(id=None, slug="rival-scoop"), format="json"), rival, "slug")
    by_id = mine.post(URL, story_doc(id=rival.pk, slug="something-else"), format="json")
    assert by_id.status_code == 409 and by_id.json()["error"]["path"] == "id" and "story" not in by_id.json()["error"]
    assert Story.objects.get(pk=rival.pk).headline == "The rival's scoop"


def test_a_published_story_is_still_named(demo, story_doc, writer_key):
    response = client_for(writer_key[1]).post(URL, story_doc(id=None), format="json")
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["story"]["id"] == demo.pk and demo.url in error["message"] and "is published" in error["message"]


def test_the_partners_own_scheduled_story_is_still_named(manifests_loaded, story_doc, writer_key, partner):
    s = stored(story_doc, slug="ours")
    Story.objects.filter(pk=s.pk).update(created_by_partner=partner.slug)
    actions.schedule_story(story=Story.objects.get(pk=s.pk), when=timezone.now() + dt.timedelta(days=2))
    response = client_for(writer_key[1]).post(URL, story_doc(id=None, slug="ours"), format="json")
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["story"]["id"] == s.pk and "is scheduled" in error["message"]
