"""ensure_editor: the local editor login of `make run` (DEBUG on; production: test_security_ensure_editor.py)."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def local(settings):
    settings.DEBUG = True  # as `make run` runs it


def ensure_editor() -> str:
    out = io.StringIO()
    call_command("ensure_editor", stdout=out)
    return out.getvalue()


def test_creates_a_staff_editor_with_the_demo_password(monkeypatch):
    monkeypatch.delenv("EDITOR_USERNAME", raising=False)
    monkeypatch.delenv("EDITOR_PASSWORD", raising=False)
    out = ensure_editor()
    assert "Created editor login: editor / editor" in out
    user = get_user_model().objects.get(username="editor")
    assert user.is_staff and not user.is_superuser and user.check_password("editor")


def test_reports_the_login_that_exists_and_leaves_it_alone(monkeypatch):
    monkeypatch.delenv("EDITOR_USERNAME", raising=False)
    monkeypatch.setenv("EDITOR_PASSWORD", "first-password")
    ensure_editor()
    monkeypatch.setenv("EDITOR_PASSWORD", "second-password")
    out = ensure_editor()
    assert "Editor login exists: editor" in out
    assert "second-password" not in out
    assert get_user_model().objects.filter(username="editor").count() == 1
    assert get_user_model().objects.get(username="editor").check_password("first-password")


def test_name_and_password_from_the_environment(monkeypatch):
    monkeypatch.setenv("EDITOR_USERNAME", "desk")
    monkeypatch.setenv("EDITOR_PASSWORD", "s3cret-enough")
    out = ensure_editor()
    assert "Created editor login: desk" in out and "s3cret-enough" not in out  # never printed
    assert get_user_model().objects.get(username="desk").check_password("s3cret-enough")


def test_joins_the_editor_group_when_it_exists(monkeypatch):
    monkeypatch.delenv("EDITOR_USERNAME", raising=False)
    group, _ = Group.objects.get_or_create(name="Editor")
    ensure_editor()
    assert group in get_user_model().objects.get(username="editor").groups.all()
