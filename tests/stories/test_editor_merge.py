"""No lost work on the editing screen: a concurrent save of other fields merges, a real
clash shows both texts and writes nothing; autosaves are kept apart from the revisions."""

import json

import pytest

from stories import actions
from stories.desk.working import editable, merge, stored_document
from stories.models import Autosave, Revision, Story
from tests.stories.helpers import client_for

pytestmark = pytest.mark.django_db

SAVE = "/admin/stories/story/editor/save/"
AUTOSAVE = "/admin/stories/story/editor/autosave/"


@pytest.fixture
def as_editor(editor):
    return client_for(editor)


def fields_of(story) -> dict:
    return editable(stored_document(Story.objects.with_everything().get(pk=story.pk)))


def post(client, body, url=SAVE):
    return client.post(url, json.dumps(body), content_type="application/json")


@pytest.fixture
def saved_meanwhile(draft, writer):
    """Someone else saves the dek and the first paragraph after the editor opened the story
    (at ``draft.version``)."""
    opened = draft.version
    story = Story.objects.get(pk=draft.pk)
    story.dek = "A dek written meanwhile"

    def write():
        story.save()
        para = story.sections.all()[0].paragraphs.all()[0]
        para.markdown = "A first paragraph rewritten meanwhile."
        para.save()

    actions.save_story(story=story, user=writer, write=write)
    return draft, opened


def test_edits_of_different_fields_merge(saved_meanwhile, as_editor):
    draft, opened = saved_meanwhile
    mine = editable(Revision.objects.get(story=draft, version=opened).data)
    mine["headline"] = "My headline"
    mine["sections"][1]["paragraphs"][0]["markdown"] = "My second section's paragraph."
    response = post(as_editor, {"id": draft.pk, "base_version": opened, "story": mine})
    assert response.status_code == 200, response.content
    assert response.json()["outcome"] == "merged"
    now = fields_of(draft)
    assert now["headline"] == "My headline" and now["dek"] == "A dek written meanwhile"
    assert now["sections"][0]["paragraphs"][0]["markdown"] == "A first paragraph rewritten meanwhile."
    assert now["sections"][1]["paragraphs"][0]["markdown"] == "My second section's paragraph."
    assert Story.objects.get(pk=draft.pk).version == opened + 2  # theirs, then one for the merge


def test_a_clash_of_the_same_paragraph_shows_both_texts_and_writes_nothing(saved_meanwhile, as_editor):
    draft, opened = saved_meanwhile
    version = Story.objects.get(pk=draft.pk).version
    mine = editable(Revision.objects.get(story=draft, version=opened).data)
    mine["sections"][0]["paragraphs"][0]["markdown"] = "My own first paragraph."
    response = post(as_editor, {"id": draft.pk, "base_version": opened, "story": mine})
    assert response.status_code == 409
    clash = response.json()["clashes"]
    assert clash == [
        {
            "where": "Section 1, paragraph 1",
            "mine": clash[0]["mine"],
            "theirs": clash[0]["theirs"],
        }
    ]
    assert clash[0]["mine"].startswith("My own first paragraph.")
    assert clash[0]["theirs"].startswith("A first paragraph rewritten meanwhile.")
    assert response.json()["version"] == version
    assert Story.objects.get(pk=draft.pk).version == version


def test_merge_takes_the_one_side_that_changed_a_list():
    base = {"headline": "h", "dek": "", "key_facts": [{"text": "a", "cites": []}], "sections": []}
    mine = {**base, "key_facts": [{"text": "a", "cites": []}, {"text": "b", "cites": []}]}
    theirs = {**base, "headline": "H"}
    merged, clashes = merge(base, mine, theirs)
    assert clashes == [] and merged["headline"] == "H" and len(merged["key_facts"]) == 2
    both = {**base, "key_facts": []}
    _, clashes = merge(base, mine, both)
    assert [c["where"] for c in clashes] == ["Key facts"]


def test_autosave_keeps_a_working_copy_without_a_revision(draft, as_editor, editor, django_assert_max_num_queries):
    fields = fields_of(draft)
    fields["headline"] = ""  # half-written: an autosave need not be valid
    revisions = Revision.objects.filter(story=draft).count()
    for _ in range(3):
        with django_assert_max_num_queries(10):
            response = post(as_editor, {"id": draft.pk, "base_version": draft.version, "story": fields}, AUTOSAVE)
        assert response.status_code == 200
    assert Revision.objects.filter(story=draft).count() == revisions
    assert Story.objects.get(pk=draft.pk).version == draft.version
    assert Autosave.objects.get(user=editor, key=draft.pk).data["story"]["headline"] == ""
    # Reopening offers it; saving clears it.
    state = as_editor.get(f"/admin/stories/story/{draft.pk}/editor/").context["state"]
    assert state["autosave"]["story"]["headline"] == ""
    fields["headline"] = "Saved at last"
    assert post(as_editor, {"id": draft.pk, "base_version": draft.version, "story": fields}).status_code == 200
    assert not Autosave.objects.filter(user=editor).exists()


def test_a_new_storys_autosave_is_offered_on_the_add_page(demo, as_editor):
    story = {"newsroom": demo.newsroom.slug, "headline": "Half", "key_facts": [], "sections": []}
    assert post(as_editor, {"id": None, "story": story}, AUTOSAVE).status_code == 200
    state = as_editor.get("/admin/stories/story/add/").context["state"]
    assert state["autosave"]["story"]["headline"] == "Half"


def test_autosave_refuses_what_is_not_a_story(draft, as_editor):
    response = post(as_editor, {"id": draft.pk, "story": {"sections": "x"}}, AUTOSAVE)
    assert response.status_code == 400 and not Autosave.objects.exists()
