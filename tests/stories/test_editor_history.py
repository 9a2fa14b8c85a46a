"""Revisions in prose: compare shows the text that changed, paragraph by paragraph; any
revision is restored as a new version, through the gate for a live story."""

import pytest
from django.test import Client

from stories import actions
from stories.actions import drafts
from stories.models import Revision, Story
from tests.stories.helpers import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def as_editor(editor):
    return client_for(editor)


@pytest.fixture
def rewritten(draft, editor):
    """The draft with its first paragraph rewritten (one version later)."""
    story = Story.objects.get(pk=draft.pk)
    para = story.sections.all()[0].paragraphs.all()[0]

    def write():
        para.markdown = "<b>Rewritten</b> first paragraph."
        para.save()

    saved = actions.save_story(story=story, user=editor, write=write)
    return saved, draft.version


def test_compare_shows_the_prose_that_changed_escaped(rewritten, as_editor, django_assert_max_num_queries):
    story, before = rewritten
    url = f"/admin/stories/story/{story.pk}/revisions/compare/"
    with django_assert_max_num_queries(15):
        response = as_editor.get(url, {"a": before, "b": story.version})
    assert response.status_code == 200
    [item] = response.context["prose"]
    assert item["where"] == "Section 1, paragraph 1" and item["kind"] == "changed"
    html = response.content.decode()
    assert "<ins>&lt;b&gt;Rewritten&lt;/b&gt;" in html and "<b>Rewritten</b>" not in html
    assert f'action="/admin/stories/story/{story.pk}/revisions/{before}/restore/"' in html


def test_restore_brings_an_old_version_back_as_a_new_version(rewritten, as_editor):
    story, before = rewritten
    old_text = Revision.objects.get(story=story, version=before).data["sections"][0]["paragraphs"][0]["markdown"]
    response = as_editor.post(f"/admin/stories/story/{story.pk}/revisions/{before}/restore/")
    assert response.status_code == 302 and response["Location"].endswith(f"/{story.pk}/editor/")
    restored = Story.objects.get(pk=story.pk)
    assert restored.version == story.version + 1
    assert restored.sections.all()[0].paragraphs.all()[0].markdown == old_text
    assert Revision.objects.filter(story=story).count() == story.version + 1  # nothing lost


def test_restoring_a_live_story_makes_pending_changes_that_must_pass_the_checks(demo, editor, as_editor):
    # Version 1 of the live story is the imported text; make the live text differ, then restore.
    pending = drafts.start_changes(story=demo, user=editor)
    para = pending.sections.all()[0].paragraphs.all()[0]

    def write():
        para.markdown = "Changed while live."
        para.save()

    actions.save_story(story=pending, user=editor, write=write)
    drafts.publish_changes(draft=pending, user=editor, override_reason="for the test")
    live = Story.objects.get(pk=demo.pk)
    response = as_editor.post(f"/admin/stories/story/{demo.pk}/revisions/1/restore/")
    assert response.status_code == 302
    after = Story.objects.get(pk=demo.pk)
    assert after.version == live.version  # readers see nothing new yet
    assert after.sections.all()[0].paragraphs.all()[0].markdown == "Changed while live."
    restored = Story.objects.get(draft_of=demo)
    assert restored.sections.all()[0].paragraphs.all()[0].markdown != "Changed while live."
    # Going live is "Publish changes", through the checks.
    with pytest.raises(actions.ChecksFailed):
        para = restored.sections.all()[0].paragraphs.all()[0]
        para.cites.all().delete()
        drafts.publish_changes(draft=restored, user=editor)


def test_restore_is_a_post_and_needs_permission(rewritten, writer):
    story, before = rewritten
    url = f"/admin/stories/story/{story.pk}/revisions/{before}/restore/"
    assert client_for(writer).get(url).status_code == 405
    assert Client().post(url).status_code == 302  # to the login page
    assert Story.objects.get(pk=story.pk).version == story.version


def test_restoring_a_missing_version_says_so(draft, as_editor):
    response = as_editor.post(f"/admin/stories/story/{draft.pk}/revisions/999/restore/", follow=True)
    assert "there is no version 999" in response.content.decode()
    assert Story.objects.get(pk=draft.pk).version == draft.version
