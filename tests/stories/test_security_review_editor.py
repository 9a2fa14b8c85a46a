"""The editing screen's doors under hostile use: nested JSON, another user's autosave,
another story's revision, out-of-range revision numbers, hostile autosave values."""

import json

import pytest

from stories import actions
from stories.desk.working import editable, stored_document
from stories.models import Autosave, Revision, Story
from tests.factories import UserFactory
from tests.public.helpers import import_seed_story
from tests.stories.helpers import client_for

pytestmark = pytest.mark.django_db

EDITOR = "/admin/stories/story/editor/"
ENDPOINTS = [EDITOR + "save/", EDITOR + "checks/", EDITOR + "autosave/"]


def fields_of(story) -> dict:
    return editable(stored_document(Story.objects.with_everything().get(pk=story.pk)))


@pytest.mark.parametrize("url", ENDPOINTS)
def test_deeply_nested_json_is_refused_as_bad_input(draft, editor, url):
    client = client_for(editor)
    body = json.dumps({"id": draft.pk, "story": 0}).replace("0}", "[" * 200_000 + "]" * 200_000 + "}")
    response = client.post(url, body, content_type="application/json")
    assert response.status_code == 400
    assert "nested" in response.json()["error"]["message"]
    assert Story.objects.get(pk=draft.pk).version == draft.version
    assert not Autosave.objects.exists()


def test_autosave_is_only_offered_to_the_user_who_wrote_it(draft, editor):
    other = UserFactory(username="other-editor", is_staff=True)
    other.groups.set(editor.groups.all())
    other.user_permissions.set(editor.user_permissions.all())
    other.is_superuser = editor.is_superuser
    other.save()
    fields = fields_of(draft)
    fields["headline"] = "A secret working headline"
    mine = client_for(editor).post(
        EDITOR + "autosave/", json.dumps({"id": draft.pk, "story": fields}), content_type="application/json"
    )
    assert mine.status_code == 200
    page = client_for(other).get(f"/admin/stories/story/{draft.pk}/editor/")
    assert page.status_code == 200
    assert b"A secret working headline" not in page.content
    assert b"A secret working headline" in client_for(editor).get(f"/admin/stories/story/{draft.pk}/editor/").content


def test_autosave_keeps_only_text_where_the_screen_has_text(draft, editor):
    fields = fields_of(draft)
    fields["headline"] = {"nested": [1, 2, {"x": "<script>alert(1)</script>"}]}
    response = client_for(editor).post(
        EDITOR + "autosave/", json.dumps({"id": draft.pk, "story": fields}), content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["path"] == "headline"
    assert not Autosave.objects.exists()


def test_restoring_another_storys_revision_is_refused(draft, editor, seed_doc):
    """Version numbers are a story's own: a version only another story has is refused, and
    nothing of the other story comes over."""
    other = import_seed_story(seed_doc, id="931", slug="another-story", published_at=None, edition="2026-10-20T10")
    revision = Revision.objects.filter(story=other).order_by("-version").first()
    version = Revision.objects.filter(story=draft).order_by("-version").first().version + 5
    revision.pk, revision.version = None, version
    revision.data = {**revision.data, "headline": "Another story's headline"}
    revision.save()
    response = client_for(editor).post(f"/admin/stories/story/{draft.pk}/revisions/{version}/restore/")
    assert response.status_code == 302
    after = Story.objects.get(pk=draft.pk)
    assert (after.version, after.headline) == (draft.version, draft.headline)


@pytest.mark.parametrize("base", [2**40, -1, 0, True])
def test_an_out_of_range_base_version_is_refused_or_ignored(draft, editor, base):
    fields = fields_of(draft)
    fields["headline"] = "Changed"
    client = client_for(editor)
    body = json.dumps({"id": draft.pk, "base_version": base, "story": fields})
    response = client.post(EDITOR + "save/", body, content_type="application/json")
    assert response.status_code == 400 and response.json()["error"]["path"] == "base_version"
    assert Story.objects.get(pk=draft.pk).version == draft.version
    assert client.post(EDITOR + "autosave/", body, content_type="application/json").status_code == 200
    assert Autosave.objects.get().base_version is None


@pytest.mark.parametrize("number", ["99999999999999999999", "-99999999999999999999", str(2**63)])
def test_out_of_range_revision_numbers_are_not_found(draft, editor, number):
    client = client_for(editor)
    response = client.get(f"/admin/stories/story/{draft.pk}/revisions/compare/?a=1&b={number}")
    assert response.status_code in (302, 404)
    response = client.post(f"/admin/stories/story/{draft.pk}/revisions/{number}/restore/")
    assert response.status_code in (302, 404)
    assert Story.objects.get(pk=draft.pk).version == draft.version


def test_a_writer_restoring_a_live_story_writes_only_its_pending_changes(demo, writer, editor):
    live = Story.objects.get(pk=demo.pk)
    first = Revision.objects.filter(story=live).order_by("version").first().version
    client_for(writer).post(f"/admin/stories/story/{live.pk}/revisions/{first}/restore/")
    after = Story.objects.get(pk=live.pk)
    assert (after.version, after.headline, after.status) == (live.version, live.headline, live.status)
    assert actions.can_edit(writer, None)


@pytest.mark.parametrize("story_id", ["abc", "9" * 40, "-1", "1 OR 1=1", ""])
def test_a_story_id_that_is_not_one_is_not_found(draft, editor, story_id):
    client = client_for(editor)
    for url in ENDPOINTS:
        body = json.dumps({"id": story_id, "story": fields_of(draft)})
        response = client.post(url, body, content_type="application/json")
        assert response.status_code in (400, 404), (url, response.status_code)
    assert Story.objects.get(pk=draft.pk).version == draft.version
