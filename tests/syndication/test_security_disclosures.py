"""What a partner's key cannot learn or cause: the id of a story it may not see, whether an
unannounced newsroom or beat exists, a server error from a forged cursor, an HTML answer
from the API, and deliveries to a partner the desk has turned off."""

import base64
import json

import pytest

from stories import actions, desk
from stories.models import Story
from syndication import webhooks
from syndication.models import WebhookDelivery, WebhookEndpoint
from tests.syndication.helpers import client_for

pytestmark = pytest.mark.django_db


def test_a_slug_taken_by_a_hidden_story_does_not_name_it(manifests_loaded, story_doc, writer_key):
    """A fresh id with the slug of an editor's draft: refused, without the draft's id."""
    hidden = actions.import_story(
        desk.validate(story_doc(id=None, slug="ceo-to-resign", headline="CEO to resign", published_at=None))
    ).story
    before = Story.objects.count()
    response = client_for(writer_key[1]).post(
        "/api/v1/submissions/", story_doc(id="9999999999", slug="ceo-to-resign", published_at=None), format="json"
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["path"] == "slug" and "another story" in error["message"]
    assert hidden.pk not in response.content.decode()
    assert Story.objects.count() == before


def test_a_slug_taken_by_a_published_story_names_it(demo, story_doc, writer_key):
    response = client_for(writer_key[1]).post(
        "/api/v1/submissions/",
        story_doc(id="9999999999", slug=demo.slug, edition=demo.edition_id, published_at=None),
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["message"] == f"slug {demo.slug!r} is already used on 2026-10-16 by story {demo.pk}"


def _cursor(moment, pk) -> str:
    return base64.urlsafe_b64encode(json.dumps([moment, pk]).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "url, pk", [("/api/v1/stories/", "81"), ("/api/v1/editions/", "2026-10-16T00"), ("/api/v1/corrections/", 1)]
)
def test_a_cursor_past_the_last_representable_time_is_a_400(demo, read_key, url, pk):
    response = client_for(read_key[1]).get(url, {"cursor": _cursor("9999-12-31T23:59:59-23:59", pk)})
    assert response.status_code == 400
    assert response.json()["error"]["parameter"] == "cursor"


@pytest.mark.parametrize("url", ["/api/v1/stories/", "/api/v1/editions/"])
@pytest.mark.parametrize("pk", ["81\u0000x", "81 x", "a" * 65, "81\n"])
def test_a_cursor_whose_id_is_no_id_is_a_400(demo, read_key, url, pk):
    """The whole id is read as one (a NUL after valid characters reached PostgreSQL: 500)."""
    response = client_for(read_key[1]).get(url, {"cursor": _cursor("2026-01-01T00:00:00+00:00", pk)})
    assert response.status_code == 400
    assert response.json()["error"]["parameter"] == "cursor"


def test_a_newsroom_or_beat_with_nothing_published_is_not_confirmed(manifests_loaded, story_doc, read_key):
    actions.import_story(
        desk.validate(story_doc(id=None, slug="s", newsroom="secret-launch", beat="merger-talks", published_at=None))
    )
    key = client_for(read_key[1])
    for params in ({"newsroom": "secret-launch"}, {"beat": "merger-talks"}, {"newsroom": "no-such-room"}):
        response = key.get("/api/v1/stories/", params)
        assert response.status_code == 400, params
        assert response.json()["error"]["parameter"] == next(iter(params))


def test_a_published_newsrooms_stories_are_listed_by_it(demo, read_key):
    response = client_for(read_key[1]).get("/api/v1/stories/", {"newsroom": demo.newsroom.slug})
    assert response.status_code == 200 and response.json()["results"]


@pytest.mark.parametrize("url", ["/api/v1/manifests/", "/api/v1/checks/", "/api/v1/submissions/"])
def test_a_body_over_the_upload_limit_is_a_json_413(writer_key, settings, url):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    response = client_for(writer_key[1]).post(url, '{"x": "' + "a" * 20_000 + '"}', content_type="application/json")
    assert response.status_code == 413
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"] == {
        "code": "too_large",
        "message": "the request body is over 10000 bytes",
        "path": "$",
    }


def test_a_turned_off_partner_gets_no_deliveries(partner, make_story, receiver, settings):
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1"]
    settings.WEBHOOK_ALLOW_HTTP = True
    WebhookEndpoint.objects.create(partner=partner, url=receiver.url, events=["story.unpublished"])
    story = make_story()
    actions.unpublish_story(story=story)  # queued while the partner is on
    assert WebhookDelivery.objects.count() == 1
    partner.active = False
    partner.save()
    actions.unpublish_story(story=make_story())  # not queued: the partner is off
    assert WebhookDelivery.objects.count() == 1
    webhooks.deliver_due()
    assert receiver.requests == []
    assert [d.status for d in WebhookDelivery.objects.all()] == [WebhookDelivery.Status.GONE]
