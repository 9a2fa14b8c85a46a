"""A story taken down stops being named by the stories whose public record names it (a
near-duplicate found by ``not_a_repeat``), even for a page of one of them read while the
take-down commits: a rendering made in that moment is not kept."""

import pytest

from public.views import copies
from stories import actions, desk
from stories import cache as story_cache
from stories.models import Story

pytestmark = pytest.mark.django_db


@pytest.fixture
def repeat(demo, seed_doc, editor):
    """A near-duplicate of the demo story, published with an override: its record names the demo."""
    doc = dict(seed_doc, id="900", slug="the-same-again", published_at=None, headline="A rewrite of the same story")
    draft = actions.import_story(desk.validate(doc)).story
    return actions.publish_story(
        story=draft,
        user=editor,
        override_reason="Confirmed by phone",
        reviewed_version=Story.objects.get(pk="900").version,
    )


def test_a_record_read_while_a_take_down_commits_does_not_keep_naming_the_story(
    client, demo, repeat, editor, django_capture_on_commit_callbacks, monkeypatch
):
    url = f"/stories/{repeat.edition_id[:10]}/{repeat.slug}/checks.json"  # the public record of its checks
    assert demo.headline in client.get(url).content.decode()  # named while published
    naming = story_cache.naming_story_ids

    def a_reader_meanwhile(story_id):
        client.get(url)  # after the commit moved the lists, before the naming stories are refreshed
        return naming(story_id)

    monkeypatch.setattr(story_cache, "naming_story_ids", a_reader_meanwhile)
    with django_capture_on_commit_callbacks(execute=True):
        actions.unpublish_story(story=demo, user=editor, reason="Legal: withdrawn.")
    for _ in range(2):  # this worker's copy, then any worker's (the shared entries)
        body = client.get(url).content.decode()
        assert f"story {demo.pk}" not in body and demo.headline not in body
        copies.clear()
