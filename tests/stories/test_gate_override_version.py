"""An editor's override of the checks covers the version they reviewed, and no other.

The Publish and Publish-changes pages carry the version whose checks they show; an
override submitted from them is refused, with nothing written, when the story (or the
pending draft) has been saved since, and the page then shows the checks as they are now.
Publishing without an override needs no such guard: the checks run on the version stored
at publish time, whoever saved it.
"""

import re

import pytest

from stories import actions
from stories.actions import drafts, verbs
from stories.models import AuditEntry, CheckResult, Story
from tests.stories.helpers import client_for

pytestmark = pytest.mark.django_db

PAGE = "/stories/2026-10-16/agent-training-stack/"
BANANAS = "Bananas cause orbital decay, say 900 zookeepers."
REASON = "Figure confirmed."


def uncite_first_paragraph(story, user):
    story.sections.order_by("position")[0].paragraphs.order_by("position")[0].cites.all().delete()
    return actions.save_story(story=story, user=user, write=lambda: None)


def write_bananas(story, user):
    para = story.sections.order_by("position")[0].paragraphs.order_by("position")[0]
    para.markdown = BANANAS
    return actions.save_story(story=story, user=user, write=para.save)


def reviewed_version_on(response) -> int:
    """The version the publish page says the editor is reviewing (its hidden field)."""
    match = re.search(r'name="reviewed_version" value="(\d+)"', response.content.decode())
    assert match, "the publish form carries the version it shows"
    return int(match.group(1))


def written(story) -> tuple:
    """What an action would have written about ``story``: its version, rubrics, audit rows."""
    stored = Story.objects.get(pk=story.pk)
    return stored.version, stored.status, CheckResult.objects.count(), AuditEntry.objects.count()


def public_text(client) -> str:
    return client.get(PAGE).content.decode()


# --------------------------------------------------------------------------- Publish


def test_an_override_is_refused_when_a_writer_saved_after_the_editor_reviewed(draft, editor, writer, client):
    reviewed = uncite_first_paragraph(draft, editor)
    ed = client_for(editor)
    page = ed.get(f"/admin/stories/story/{draft.pk}/publish/")
    assert reviewed_version_on(page) == reviewed.version
    write_bananas(draft, writer)
    before = written(draft)

    response = ed.post(
        f"/admin/stories/story/{draft.pk}/publish/",
        {"override_reason": REASON, "reviewed_version": reviewed.version},
    )

    assert response.status_code == 200
    html = response.content.decode()
    assert "Not published: the story was saved since you reviewed it" in html
    assert f"you reviewed version {reviewed.version}; now at version {reviewed.version + 1}" in html
    # The page now shows the story as it is, for a fresh review.
    assert reviewed_version_on(response) == reviewed.version + 1
    assert f"(version {reviewed.version + 1})" in html
    assert written(draft) == before  # not even the rubric
    assert client.get(PAGE).status_code == 404 and "Bananas" not in public_text(client)


def test_the_override_from_a_page_without_the_version_takes_the_one_last_shown(draft, editor, writer, client):
    """A page rendered before the form carried its version: the version the editor was
    last shown in this session stands for it."""
    uncite_first_paragraph(draft, editor)
    ed = client_for(editor)
    ed.get(f"/admin/stories/story/{draft.pk}/publish/")
    write_bananas(draft, writer)

    response = ed.post(f"/admin/stories/story/{draft.pk}/publish/", {"override_reason": REASON})

    assert response.status_code == 200 and "saved since you reviewed it" in response.content.decode()
    assert Story.objects.get(pk=draft.pk).status == Story.Status.DRAFT
    assert "Bananas cause orbital decay" not in public_text(client)


def test_an_override_naming_no_reviewed_version_is_refused(draft, editor):
    uncite_first_paragraph(draft, editor)
    before = written(draft)
    response = client_for(editor).post(f"/admin/stories/story/{draft.pk}/publish/", {"override_reason": REASON})
    assert response.status_code == 200
    assert "this page did not say which version you reviewed" in response.content.decode()
    assert written(draft) == before


def test_the_editor_overrides_again_after_reviewing_the_new_version(draft, editor, writer, client):
    uncite_first_paragraph(draft, editor)
    ed = client_for(editor)
    first = reviewed_version_on(ed.get(f"/admin/stories/story/{draft.pk}/publish/"))
    write_bananas(draft, writer)
    refused = ed.post(
        f"/admin/stories/story/{draft.pk}/publish/", {"override_reason": REASON, "reviewed_version": first}
    )

    again = {"override_reason": REASON, "reviewed_version": reviewed_version_on(refused)}
    assert ed.post(f"/admin/stories/story/{draft.pk}/publish/", again).status_code == 302

    story = Story.objects.get(pk=draft.pk)
    entry = AuditEntry.objects.filter(story=story, action="publish").first()
    assert story.is_published and entry.reason == REASON and entry.details["overridden"] is True
    assert BANANAS in public_text(client)


def test_publish_story_refuses_an_override_of_a_version_not_reviewed(draft, editor, writer):
    reviewed = uncite_first_paragraph(draft, editor)
    write_bananas(draft, writer)
    before = written(draft)
    with pytest.raises(verbs.ReviewedVersionChanged) as refused:
        actions.publish_story(story=draft, user=editor, override_reason=REASON, reviewed_version=reviewed.version)
    assert refused.value.reviewed_version == reviewed.version
    assert refused.value.story.version == reviewed.version + 1
    assert written(draft) == before


def test_publish_story_takes_an_override_of_the_version_reviewed(draft, editor):
    reviewed = uncite_first_paragraph(draft, editor)
    story = actions.publish_story(story=draft, user=editor, override_reason=REASON, reviewed_version=reviewed.version)
    assert story.is_published and story.version == reviewed.version + 1


def test_without_an_override_the_checks_decide_on_the_version_stored_now(draft, editor, writer):
    """No override, no guard: a version saved since the editor's review is checked itself."""
    reviewed = draft.version
    actions.save_story(story=draft, user=writer, write=lambda: None)  # a new version the checks pass
    story = actions.publish_story(story=draft, user=editor, reviewed_version=reviewed)
    assert story.is_published and story.version == reviewed + 2

    failing = actions.unpublish_story(story=story, user=editor)
    seen = failing.version
    uncite_first_paragraph(failing, writer)
    with pytest.raises(actions.ChecksFailed):
        actions.publish_story(story=failing, user=editor, reviewed_version=seen)
    assert Story.objects.get(pk=draft.pk).status == Story.Status.DRAFT


# --------------------------------------------------------------------------- Publish changes


@pytest.fixture
def failing_changes(demo, editor):
    """The demo story's pending changes, its first paragraph stripped of its cites."""
    draft = drafts.start_changes(story=demo, user=editor)
    return uncite_first_paragraph(draft, editor)


def test_an_override_of_changes_is_refused_when_they_were_saved_after_review(
    failing_changes, demo, editor, writer, client
):
    ed = client_for(editor)
    url = f"/admin/stories/story/{failing_changes.pk}/publish-changes/"
    reviewed = reviewed_version_on(ed.get(url))
    assert reviewed == failing_changes.version
    write_bananas(failing_changes, writer)
    live_before, draft_before = written(demo), written(failing_changes)

    response = ed.post(url, {"override_reason": REASON, "reviewed_version": reviewed, "note_kind": "none"})

    assert response.status_code == 200
    html = response.content.decode()
    assert "Not published: the pending changes were saved since you reviewed them" in html
    assert reviewed_version_on(response) == reviewed + 1
    assert "Bananas cause orbital decay" in html  # the changes as they are now
    assert written(demo) == live_before and written(failing_changes) == draft_before
    assert "Bananas" not in public_text(client)


def test_the_changes_page_without_the_version_takes_the_one_last_shown(failing_changes, editor, writer, client):
    ed = client_for(editor)
    url = f"/admin/stories/story/{failing_changes.pk}/publish-changes/"
    ed.get(url)
    write_bananas(failing_changes, writer)
    response = ed.post(url, {"override_reason": REASON, "note_kind": "none"})
    assert response.status_code == 200 and "saved since you reviewed them" in response.content.decode()
    assert Story.objects.filter(pk=failing_changes.pk).exists()
    assert "Bananas" not in public_text(client)


def test_the_changes_are_published_over_the_checks_once_reviewed_again(failing_changes, demo, editor, writer, client):
    ed = client_for(editor)
    url = f"/admin/stories/story/{failing_changes.pk}/publish-changes/"
    first = reviewed_version_on(ed.get(url))
    write_bananas(failing_changes, writer)
    refused = ed.post(url, {"override_reason": REASON, "reviewed_version": first, "note_kind": "none"})
    again = {"override_reason": REASON, "reviewed_version": reviewed_version_on(refused), "note_kind": "none"}
    assert ed.post(url, again).status_code == 302
    assert not Story.objects.filter(pk=failing_changes.pk).exists()
    assert BANANAS in public_text(client)


def test_publish_changes_refuses_an_override_of_a_version_not_reviewed(failing_changes, demo, editor, writer):
    reviewed = failing_changes.version
    write_bananas(failing_changes, writer)
    live_before, draft_before = written(demo), written(failing_changes)
    with pytest.raises(verbs.ReviewedVersionChanged):
        drafts.publish_changes(draft=failing_changes, user=editor, override_reason=REASON, reviewed_version=reviewed)
    assert written(demo) == live_before and written(failing_changes) == draft_before
    live = drafts.publish_changes(
        draft=failing_changes, user=editor, override_reason=REASON, reviewed_version=reviewed + 1
    )
    assert live.version == demo.version + 1
