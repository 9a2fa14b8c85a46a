"""The desk's roles in the admin: membership of Writer or Editor is the login; a writer
sees only the actions they may take; a refused action answers with the admin's own page."""

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from stories.models import Story
from tests.factories import UserFactory
from tests.stories.helpers import change_url, client_for

pytestmark = pytest.mark.django_db

PASSWORD = "pw-for-tests-only"


def _user(username, *groups, **fields):
    user = UserFactory(username=username, **fields)
    user.set_password(PASSWORD)
    user.save()
    for name in groups:
        user.groups.add(Group.objects.get(name=name))
    return user


def _login(username) -> tuple[Client, object]:
    client = Client()
    response = client.post("/admin/login/?next=/admin/", {"username": username, "password": PASSWORD})
    return client, response


# --------------------------------------------------------------------------- login


@pytest.mark.parametrize("group", ["Writer", "Editor"])
def test_a_member_of_a_desk_group_logs_in_without_staff_status(group):
    _user("gina", group, is_staff=False)
    client, response = _login("gina")
    assert response.status_code == 302 and response["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200
    assert client.get("/admin/stories/story/").status_code == 200


def test_a_user_in_no_group_and_not_staff_is_refused_at_login():
    _user("nobody")
    client, response = _login("nobody")
    assert response.status_code == 200 and b"errornote" in response.content
    assert client.get("/admin/").status_code == 302  # back to the login page


def test_leaving_the_groups_takes_the_admin_away():
    user = _user("gina", "Writer")
    client, _ = _login("gina")
    assert client.get("/admin/").status_code == 200
    user.groups.clear()
    assert client.get("/admin/").status_code == 302
    assert _login("gina")[1].status_code == 200  # the login form again, with its error


def test_a_deactivated_member_cannot_log_in():
    _user("gina", "Editor", is_active=False)
    client, response = _login("gina")
    assert response.status_code == 200 and client.get("/admin/").status_code == 302


def test_a_deactivated_member_with_a_session_is_shown_the_door():
    user = _user("gina", "Editor")
    client = client_for(user)
    assert client.get("/admin/").status_code == 200
    user.is_active = False
    user.save()
    assert client.get("/admin/").status_code == 302


def test_anonymous_is_sent_to_the_login_page(draft):
    response = Client().get(change_url(draft))
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")


def test_the_login_form_posts_with_csrf(db):
    _user("gina", "Writer")
    client = Client(enforce_csrf_checks=True)
    response = client.post("/admin/login/", {"username": "gina", "password": PASSWORD})
    assert response.status_code == 403


def test_the_admin_carries_the_site_name(draft, editor, settings):
    settings.SITE_NAME = "The Daily <Example>"
    html = client_for(editor).get("/admin/").content.decode()
    assert "The Daily &lt;Example&gt; desk" in html and "Django administration" not in html
    assert "<title>" in html and "The Daily &lt;Example&gt; desk</title>" in html


# --------------------------------------------------------------------------- what a writer sees


def test_a_writer_sees_no_add_cite_on_a_published_story(demo):
    writer = _user("walt", "Writer")
    html = client_for(writer).get(change_url(demo)).content.decode()
    assert "Add cite" not in html
    for verb in ["desk-publish", "desk-correct", "/unpublish/", "/schedule/", "/unschedule/"]:
        assert verb not in html, verb


def test_a_writer_sees_add_cite_on_a_draft(draft):
    writer = _user("walt", "Writer")
    html = client_for(writer).get(change_url(draft)).content.decode()
    assert "Add cite" in html
    assert 'id="desk-publish"' not in html and "/schedule/" not in html


def test_the_section_page_of_a_published_story_offers_no_add_cite_to_a_writer(demo):
    writer = _user("walt", "Writer")
    section = demo.sections.first()
    html = client_for(writer).get(f"/admin/stories/section/{section.pk}/change/").content.decode()
    assert "Add cite" not in html


def test_an_editor_sees_add_cite_and_the_verbs_on_a_draft(draft, editor):
    html = client_for(editor).get(change_url(draft)).content.decode()
    assert "Add cite" in html and 'id="desk-publish"' in html and "/schedule/" in html


def test_no_also_open_by_notice_to_a_read_only_user(demo, editor):
    client_for(editor).get(change_url(demo))  # an editor has it open
    readonly = _user("rita", is_staff=True)
    readonly.user_permissions.add(*Group.objects.get(name="Writer").permissions.filter(codename="view_story"))
    html = client_for(readonly).get(change_url(demo)).content.decode()
    assert "Also open by" not in html
    writer = _user("walt", "Writer")
    assert "Also open by" not in client_for(writer).get(change_url(demo)).content.decode()


def test_a_read_only_visit_does_not_show_up_as_open_to_an_editor(draft, editor):
    readonly = _user("rita", is_staff=True)
    readonly.user_permissions.add(*Group.objects.get(name="Writer").permissions.filter(codename="view_story"))
    client_for(readonly).get(change_url(draft))
    assert "Also open by" not in client_for(editor).get(change_url(draft)).content.decode()


# --------------------------------------------------------------------------- refused actions


@pytest.mark.parametrize("verb", ["publish", "unpublish", "schedule", "unschedule", "correct"])
def test_a_refused_verb_shows_the_admin_page_that_says_why(demo, verb):
    writer = _user("walt", "Writer")
    client = client_for(writer)
    for response in (
        client.get(f"/admin/stories/story/{demo.pk}/{verb}/"),
        client.post(f"/admin/stories/story/{demo.pk}/{verb}/", {"reason": "x", "kind": "correction", "text": "x"}),
    ):
        assert response.status_code == 403
        html = response.content.decode()
        assert 'id="desk-forbidden"' in html and 'id="site-name"' in html  # the admin's page, styled
        assert "editor" in html
    assert Story.objects.get(pk=demo.pk).status == Story.Status.PUBLISHED


def test_a_writer_saving_a_published_story_gets_the_admin_refusal(demo):
    writer = _user("walt", "Writer")
    response = client_for(writer).post(change_url(demo), {"headline": "Rewritten"})
    assert response.status_code == 403
    assert b'id="desk-forbidden"' in response.content and b"<!DOCTYPE html>" in response.content
    assert Story.objects.get(pk=demo.pk).headline == demo.headline


def test_a_refused_page_escapes_what_it_shows(demo):
    writer = _user("<script>walt</script>", "Writer")
    html = client_for(writer).get(f"/admin/stories/story/{demo.pk}/correct/").content.decode()
    assert "<script>walt" not in html
