"""The part pages of the admin (sections, cites) change a story only as an edit of that
story: the parts of a live story are never deleted from its readers, one at a time or in
bulk, and a draft's parts are deleted one at a time, each deletion a new version of the
story with its revision and audit row."""

import pytest
from django.contrib.admin.sites import site
from django.core.exceptions import PermissionDenied
from django.test import RequestFactory

from stories.actions.drafts import start_changes
from stories.models import AuditEntry, Cite, Revision, Section, Story
from tests.stories.helpers import client_for

pytestmark = pytest.mark.django_db

PART_PAGES = {"section": Section, "cite": Cite}


def a_part(story, model_name):
    """The first section, or the first cite of the first section, of ``story``."""
    section = story.sections.order_by("position", "id")[0]
    if model_name == "section":
        return section
    return Cite.objects.filter(paragraph__section=section).order_by("pk")[0]


def footprint(story) -> tuple:
    """What an edit of ``story`` leaves behind: its version, revisions and audit rows."""
    return (
        Story.objects.get(pk=story.pk).version,
        Revision.objects.filter(story=story).count(),
        AuditEntry.objects.filter(story=story).count(),
    )


def bulk_delete(user, model_name, part):
    return client_for(user).post(
        f"/admin/stories/{model_name}/",
        {"action": "delete_selected", "_selected_action": [part.pk], "post": "yes"},
    )


def admin_request(user):
    request = RequestFactory().post("/admin/")
    request.user = user
    return request


# --------------------------------------------------------------------------- a live story


@pytest.fixture
def pending(demo, editor):
    """The live demo story's pending changes: a draft with the same sections and cites."""
    return start_changes(story=demo, user=editor)


@pytest.mark.parametrize("model_name", PART_PAGES)
@pytest.mark.parametrize("role", ["editor", "writer"])
def test_the_bulk_delete_action_leaves_a_live_storys_parts_and_the_story_untouched(demo, role, model_name, request):
    user = request.getfixturevalue(role)
    part = a_part(demo, model_name)
    before = footprint(demo)
    bulk_delete(user, model_name, part)
    assert PART_PAGES[model_name].objects.filter(pk=part.pk).exists()
    assert footprint(demo) == before


@pytest.mark.parametrize("model_name", PART_PAGES)
def test_the_single_delete_page_refuses_a_live_storys_part_to_an_editor(demo, editor, model_name):
    part = a_part(demo, model_name)
    response = client_for(editor).post(f"/admin/stories/{model_name}/{part.pk}/delete/", {"post": "yes"})
    assert response.status_code == 403
    assert PART_PAGES[model_name].objects.filter(pk=part.pk).exists()


@pytest.mark.parametrize("model_name", PART_PAGES)
def test_a_live_storys_part_page_offers_no_delete_link(demo, editor, model_name):
    part = a_part(demo, model_name)
    page = client_for(editor).get(f"/admin/stories/{model_name}/{part.pk}/change/")
    assert page.status_code == 200
    assert f"/admin/stories/{model_name}/{part.pk}/delete/" not in page.content.decode()


@pytest.mark.parametrize("model_name", PART_PAGES)
@pytest.mark.parametrize("role", ["editor", "writer"])
def test_no_one_on_the_desk_may_delete_a_live_storys_part(demo, role, model_name, request):
    user = request.getfixturevalue(role)
    model_admin = site.get_model_admin(PART_PAGES[model_name])
    assert not model_admin.has_delete_permission(admin_request(user), a_part(demo, model_name))


@pytest.mark.parametrize("model_name", PART_PAGES)
def test_deleting_a_selection_that_includes_a_live_storys_part_is_refused_and_deletes_nothing(
    demo, pending, editor, model_name
):
    model = PART_PAGES[model_name]
    live_part, draft_part = a_part(demo, model_name), a_part(pending, model_name)
    model_admin = site.get_model_admin(model)
    with pytest.raises(PermissionDenied):
        model_admin.delete_queryset(admin_request(editor), model.objects.filter(pk__in=[live_part.pk, draft_part.pk]))
    assert model.objects.filter(pk__in=[live_part.pk, draft_part.pk]).count() == 2


# --------------------------------------------------------------------------- a draft


@pytest.mark.parametrize("model_name", PART_PAGES)
@pytest.mark.parametrize("role", ["editor", "writer"])
def test_the_part_pages_offer_no_bulk_delete(draft, role, model_name, request):
    user = request.getfixturevalue(role)
    page = client_for(user).get(f"/admin/stories/{model_name}/")
    assert page.status_code == 200
    assert "delete_selected" not in page.content.decode()


@pytest.mark.parametrize("model_name", PART_PAGES)
def test_a_drafts_part_is_not_deleted_in_bulk_past_its_story(draft, editor, model_name):
    part = a_part(draft, model_name)
    before = footprint(draft)
    bulk_delete(editor, model_name, part)
    assert PART_PAGES[model_name].objects.filter(pk=part.pk).exists()
    assert footprint(draft) == before


@pytest.mark.parametrize("model_name", PART_PAGES)
@pytest.mark.parametrize("role", ["editor", "writer"])
def test_the_single_delete_page_deletes_a_drafts_part_as_an_edit_of_the_story(draft, role, model_name, request):
    user = request.getfixturevalue(role)
    part = a_part(draft, model_name)
    version, revisions, audits = footprint(draft)
    response = client_for(user).post(f"/admin/stories/{model_name}/{part.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not PART_PAGES[model_name].objects.filter(pk=part.pk).exists()
    assert footprint(draft) == (version + 1, revisions + 1, audits + 1)


@pytest.mark.parametrize("model_name", PART_PAGES)
def test_deleting_a_selection_of_a_drafts_parts_is_one_edit_of_the_story_per_part(draft, editor, model_name):
    model = PART_PAGES[model_name]
    parts = list(model.objects.filter(pk=a_part(draft, model_name).pk))
    parts.append(
        draft.sections.order_by("position", "id")[1]
        if model_name == "section"
        else Cite.objects.filter(paragraph__section__story=draft).exclude(pk=parts[0].pk).order_by("pk")[0]
    )
    version, revisions, audits = footprint(draft)
    site.get_model_admin(model).delete_queryset(
        admin_request(editor), model.objects.filter(pk__in=[p.pk for p in parts])
    )
    assert not model.objects.filter(pk__in=[p.pk for p in parts]).exists()
    assert footprint(draft) == (version + 2, revisions + 2, audits + 2)


def test_a_live_storys_pending_changes_lose_a_section_through_the_single_delete_page(demo, pending, editor):
    section = a_part(pending, "section")
    response = client_for(editor).post(f"/admin/stories/section/{section.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Section.objects.filter(pk=section.pk).exists()
    assert Section.objects.filter(story=pending).count() == Section.objects.filter(story=demo).count() - 1
