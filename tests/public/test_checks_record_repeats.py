"""A story published over a failing ``not_a_repeat`` has a public record that names the
story it repeats: only while that story is published. Once it is pulled, the record says
"a story not published now", without its id, headline or edition."""

import json

import pytest

from stories import actions, desk
from stories.models import Story

pytestmark = pytest.mark.django_db


@pytest.fixture
def repeat(demo, seed_doc, editor):
    doc = dict(seed_doc, id="900", slug="the-same-again", published_at=None, headline="A rewrite of the same story")
    draft = actions.import_story(desk.validate(doc)).story
    assert draft.status == Story.Status.DRAFT  # refused by not_a_repeat
    return actions.publish_story(
        story=draft,
        user=editor,
        override_reason="Confirmed by phone",
        reviewed_version=Story.objects.get(pk="900").version,
    )


def repeat_findings(client, story) -> list[dict]:
    response = client.get(f"/stories/{story.edition_id[:10]}/{story.slug}/checks.json")
    assert response.status_code == 200
    criteria = json.loads(response.content)["rubric"]["criteria"]
    return next(c for c in criteria if c["name"] == "not_a_repeat")["findings"]


def test_the_record_names_a_published_story_it_repeats(client, demo, repeat):
    [found] = repeat_findings(client, repeat)
    assert found["story_id"] == demo.pk and found["headline"] == demo.headline
    assert demo.headline in found["message"]


def test_the_record_no_longer_names_a_story_that_was_pulled(client, demo, repeat, editor):
    actions.unpublish_story(story=demo, user=editor, reason="Legal: withdrawn.")
    assert client.get(demo.path).status_code == 404
    [found] = repeat_findings(client, repeat)
    assert not {"story_id", "headline", "edition"} & set(found)
    assert found["message"].startswith("a story not published now is a near-duplicate: text similarity")
    page = client.get(f"/stories/{repeat.edition_id[:10]}/{repeat.slug}/checks.json").content.decode()
    assert demo.headline not in page and f"story {demo.pk}" not in page
    story_page = client.get(repeat.path).content.decode()
    assert demo.headline not in story_page


def test_a_record_rendered_before_the_story_was_pulled_is_made_again(
    client, demo, repeat, editor, django_capture_on_commit_callbacks
):
    """The record was rendered (and kept) while the repeated story was published: pulling
    that story moves the generation of every rendering that names it."""
    url = f"/stories/{repeat.edition_id[:10]}/{repeat.slug}/checks.json"
    assert demo.headline in client.get(url).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        actions.unpublish_story(story=demo, user=editor, reason="Legal: withdrawn.")
    body = client.get(url).content.decode()
    assert demo.headline not in body and f"story {demo.pk}" not in body
    assert client.get(repeat.path).status_code == 200


def test_a_headline_that_reads_like_the_message_leaves_nothing_of_itself():
    from public.presenters import public_rubric

    headline = "Minister X is a near-duplicate of nothing: secret settlement with Y"
    finding = {
        "severity": "error",
        "message": f"story 424242 ({headline!r}, edition 2026-10-16T00) is a near-duplicate: text similarity 0.98",
        "story_id": "424242",
        "headline": headline,
        "edition": "2026-10-16T00",
    }
    shown = public_rubric({"criteria": [{"name": "not_a_repeat", "passed": False, "findings": [finding]}]})
    [found] = shown["criteria"][0]["findings"]
    assert found["message"] == "a story not published now is a near-duplicate: text similarity 0.98"
