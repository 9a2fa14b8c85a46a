"""The editing screen's save: one version per save, whatever changed, through the actions;
a new story; a live story's edits as pending changes; who may; bad and hostile input."""

import json

import pytest
from django.test import Client

from stories.desk.working import editable, stored_document
from stories.models import AuditEntry, Autosave, Revision, Story
from tests.factories import UserFactory
from tests.stories.helpers import client_for

pytestmark = pytest.mark.django_db

SAVE = "/admin/stories/story/editor/save/"


@pytest.fixture
def as_editor(editor):
    return client_for(editor)


@pytest.fixture
def as_writer(writer):
    return client_for(writer)


def fields_of(story) -> dict:
    return editable(stored_document(Story.objects.with_everything().get(pk=story.pk)))


def post(client, body, url=SAVE):
    return client.post(url, json.dumps(body), content_type="application/json")


def test_the_editing_screen_shows_the_whole_story(draft, as_editor, django_assert_max_num_queries):
    as_editor.get(f"/admin/stories/story/{draft.pk}/editor/")
    with django_assert_max_num_queries(25):
        response = as_editor.get(f"/admin/stories/story/{draft.pk}/editor/")
    assert response.status_code == 200
    state = response.context["state"]
    assert state["story"] == fields_of(draft) and state["version"] == draft.version
    html = response.content.decode()
    assert 'src="/static/admin-desk/editor.js"' in html and "<script>" not in html
    # Every cited claim's text is on the screen's data, for the cites to show it.
    assert all(info["text"] for info in state["claims"].values())


def test_add_story_lands_on_the_editing_screen(db, as_editor):
    response = as_editor.get("/admin/stories/story/add/")
    assert response.status_code == 200 and response.context["is_new"]


def test_one_save_of_many_changes_is_one_version(draft, as_editor, django_assert_max_num_queries):
    fields = fields_of(draft)
    fields["headline"] = "A new headline"
    fields["key_facts"][0]["text"] = fields["key_facts"][0]["text"] + " Indeed."
    fields["sections"].reverse()
    fields["sections"][0]["paragraphs"].append(
        {"markdown": "A new paragraph.", "cites": fields["sections"][1]["paragraphs"][0]["cites"]}
    )
    revisions, audits = Revision.objects.filter(story=draft).count(), AuditEntry.objects.filter(story=draft).count()
    with django_assert_max_num_queries(80):
        response = post(as_editor, {"id": draft.pk, "base_version": draft.version, "story": fields})
    assert response.status_code == 200, response.content
    assert response.json()["outcome"] == "saved" and response.json()["version"] == draft.version + 1
    assert Revision.objects.filter(story=draft).count() == revisions + 1
    assert AuditEntry.objects.filter(story=draft).count() == audits + 1
    assert fields_of(draft) == fields


def test_an_unchanged_save_writes_nothing(draft, as_editor):
    response = post(as_editor, {"id": draft.pk, "base_version": draft.version, "story": fields_of(draft)})
    assert response.json()["outcome"] == "unchanged"
    assert Story.objects.get(pk=draft.pk).version == draft.version


def test_a_new_story_is_created_as_a_draft_with_its_slug_from_the_headline(demo, as_editor, editor):
    cite = fields_of(demo)["sections"][0]["paragraphs"][0]["cites"]
    story = {
        "newsroom": demo.newsroom.slug,
        "headline": "Small models learn to plan",
        "dek": "",
        "key_facts": [],
        "sections": [{"heading": "What happened", "paragraphs": [{"markdown": "Text.", "cites": cite}]}],
    }
    response = post(as_editor, {"id": None, "story": story})
    assert response.status_code == 201, response.content
    created = Story.objects.get(pk=response.json()["id"])
    assert created.slug == "small-models-learn-to-plan" and created.status == "draft" and created.version == 1
    assert created.created_by == editor and created.edition_id
    assert response.json()["urls"]["editor"] == f"/admin/stories/story/{created.pk}/editor/"


def test_a_new_story_with_a_taken_slug_is_refused_naming_the_slug(demo, as_editor):
    story = {"newsroom": demo.newsroom.slug, "slug": demo.slug, "edition": demo.edition_id, "headline": "x"}
    response = post(as_editor, {"id": None, "story": {**story, "sections": []}})
    assert response.status_code == 400
    assert response.json()["error"]["path"] == "slug" and "already used" in response.json()["error"]["message"]


def test_a_live_storys_edits_become_its_pending_changes(demo, as_editor):
    fields = fields_of(demo)
    fields["headline"] = "Edited while live"
    response = post(as_editor, {"id": demo.pk, "base_version": demo.version, "story": fields})
    assert response.status_code == 200, response.content
    live = Story.objects.get(pk=demo.pk)
    assert live.headline == demo.headline and live.version == demo.version  # readers see nothing new
    pending = Story.objects.get(draft_of=demo)
    assert response.json()["id"] == pending.pk and pending.headline == "Edited while live"
    # The screen of the live story now opens its pending changes.
    assert as_editor.get(f"/admin/stories/story/{demo.pk}/editor/")["Location"].endswith(f"/{pending.pk}/editor/")


def test_a_writer_cannot_change_a_live_story_in_place(demo, as_writer):
    fields = fields_of(demo)
    fields["headline"] = "Rewritten by a writer"
    response = post(as_writer, {"id": demo.pk, "base_version": demo.version, "story": fields})
    live = Story.objects.get(pk=demo.pk)
    assert live.headline == demo.headline and live.version == demo.version
    # What the writer wrote waits in the pending changes, which only an editor publishes.
    assert response.status_code == 200 and Story.objects.get(draft_of=demo).headline == "Rewritten by a writer"
    assert post(as_writer, {}, f"/admin/stories/story/{response.json()['id']}/publish-changes/").status_code == 403


@pytest.fixture
def read_only(db):
    from django.contrib.auth.models import Permission

    user = UserFactory(username="reader", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_story"))
    return client_for(user)


@pytest.mark.parametrize("url", [SAVE, "/admin/stories/story/editor/checks/", "/admin/stories/story/editor/autosave/"])
def test_who_may_not_write_gets_nothing_written(draft, read_only, url):
    fields = fields_of(draft)
    fields["headline"] = "Not allowed"
    anonymous = post(Client(), {"id": draft.pk, "story": fields}, url)
    assert anonymous.status_code == 302 and "/admin/login/" in anonymous["Location"]
    assert post(read_only, {"id": draft.pk, "base_version": draft.version, "story": fields}, url).status_code == 403
    assert Story.objects.get(pk=draft.pk).headline == draft.headline
    assert not Autosave.objects.exists()


def test_read_only_staff_cannot_open_the_screen_or_search(draft, read_only):
    assert read_only.get(f"/admin/stories/story/{draft.pk}/editor/").status_code == 403
    assert read_only.get("/admin/stories/story/editor/claims/?q=model").status_code == 403


def test_posts_need_the_csrf_token(draft, editor):
    client = Client(enforce_csrf_checks=True)
    client.force_login(editor)
    fields = fields_of(draft)
    fields["headline"] = "Forged"
    for url in (SAVE, "/admin/stories/story/editor/autosave/", "/admin/stories/story/editor/checks/"):
        assert post(client, {"id": draft.pk, "base_version": draft.version, "story": fields}, url).status_code == 403
    assert client.post(f"/admin/stories/story/{draft.pk}/revisions/1/restore/").status_code == 403
    assert Story.objects.get(pk=draft.pk).headline == draft.headline


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ("not json", "$"),
        ("[]", "$"),
        ('{"id": 5, "story": {}}', "id"),
        ('{"id": null, "story": "x"}', "story"),
        ('{"id": null, "story": {"sections": {}}}', "sections"),
    ],
)
def test_bad_input_is_refused_naming_the_problem(db, as_editor, body, path):
    response = as_editor.post(SAVE, body, content_type="application/json")
    assert response.status_code == 400 and response.json()["error"]["path"] == path
    assert not Story.objects.exists()


def test_hostile_text_is_stored_as_text_and_escaped_on_the_screen(draft, as_editor):
    fields = fields_of(draft)
    fields["headline"] = "</script><script>alert(1)</script>"
    fields["sections"][0]["paragraphs"][0]["markdown"] = "<img src=x onerror=alert(1)> " * 3
    assert post(as_editor, {"id": draft.pk, "base_version": draft.version, "story": fields}).status_code == 200
    html = as_editor.get(f"/admin/stories/story/{draft.pk}/editor/").content.decode()
    assert "<script>alert(1)" not in html and "<img src=x" not in html


def test_a_cite_of_a_claim_under_another_manifest_is_refused(draft, as_editor):
    fields = fields_of(draft)
    fields["sections"][0]["paragraphs"][0]["cites"][0]["manifest_id"] = "1"
    response = post(as_editor, {"id": draft.pk, "base_version": draft.version, "story": fields})
    assert response.status_code == 400 and "belongs to manifest" in response.json()["error"]["message"]
    assert response.json()["error"]["where"] == "Section 1, paragraph 1"
    assert Story.objects.get(pk=draft.pk).version == draft.version


def test_a_too_long_story_is_refused(draft, as_editor):
    fields = fields_of(draft)
    fields["sections"][0]["paragraphs"][0]["markdown"] = "word " * 40_000
    response = post(as_editor, {"id": draft.pk, "base_version": draft.version, "story": fields})
    assert response.status_code == 400
    assert Story.objects.get(pk=draft.pk).version == draft.version
