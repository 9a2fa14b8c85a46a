"""The site profile's admin form: trust.txt lines and policies are edited there, and a
line that is not a URL is refused with a message naming it, saving nothing."""

import json

import pytest
from django.contrib import admin
from django.test import RequestFactory

from newsroom.models import SiteProfile

pytestmark = pytest.mark.django_db


def _form(editor, **changes):
    profile = SiteProfile.load()
    model_admin = admin.site._registry[SiteProfile]
    request = RequestFactory().post("/")
    request.user = editor
    form_class = model_admin.get_form(request, profile)
    data = {}
    for name in form_class.base_fields:
        value = getattr(profile, name)
        data[name] = json.dumps(value) if isinstance(value, (dict, list)) else value
    data.update(changes)
    return form_class(data, instance=profile)


def test_the_admin_page_shows_the_new_fields(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("admin", "a@example.org", "x"))
    profile = SiteProfile.load()
    html = client.get(f"/admin/newsroom/siteprofile/{profile.pk}/change/").content.decode()
    for name in ("trust_member", "trust_contact", "trust_datatrainingallowed", "masthead", "default_image_url"):
        assert f'name="{name}"' in html


def test_one_url_a_line_is_saved(editor):
    form = _form(editor, trust_member="https://a.example\r\nhttps://b.example", masthead="Editor: A. Person")
    assert form.is_valid(), form.errors
    form.save()
    assert SiteProfile.load().trust_member.splitlines() == ["https://a.example", "https://b.example"]


def test_a_hostile_line_is_refused_by_name_and_nothing_is_saved(editor):
    form = _form(editor, trust_member="https://a.example\njavascript:alert(1)", masthead="changed")
    assert not form.is_valid()
    assert "javascript:alert(1)" in str(form.errors["trust_member"])
    assert SiteProfile.load().trust_member == "" and SiteProfile.load().masthead == ""


def test_writers_and_editors_cannot_change_the_site_profile(client, writer, editor):
    profile = SiteProfile.load()
    for user in (writer, editor):
        client.force_login(user)
        url = f"/admin/newsroom/siteprofile/{profile.pk}/change/"
        assert client.get(url).status_code == 403
        assert client.post(url, {"trust_member": "https://evil.example"}).status_code == 403
    assert SiteProfile.load().trust_member == ""
