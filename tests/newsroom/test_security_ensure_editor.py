"""ensure_editor with DEBUG off (a production deploy): no default password, the validators
apply, the password is never printed, and the login is an editor, not a superuser."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import CommandError

from newsroom.management.commands.ensure_editor import Command

pytestmark = pytest.mark.django_db

STRONG = "correct-Horse-battery-37"


@pytest.fixture(autouse=True)
def production(settings, monkeypatch):
    settings.DEBUG = False
    monkeypatch.delenv("EDITOR_USERNAME", raising=False)
    monkeypatch.delenv("EDITOR_PASSWORD", raising=False)


def ensure_editor(*args) -> str:
    out = io.StringIO()
    call_command("ensure_editor", *args, stdout=out)
    return out.getvalue()


def users():
    return get_user_model().objects.count()


@pytest.mark.parametrize("password", [None, ""])
def test_without_a_password_it_refuses_and_creates_nothing(monkeypatch, password):
    if password is not None:
        monkeypatch.setenv("EDITOR_PASSWORD", password)
    with pytest.raises(CommandError, match="EDITOR_PASSWORD is not set"):
        ensure_editor()
    assert users() == 0


@pytest.mark.parametrize(
    "weak, reason",
    [
        ("editor", "too short"),
        ("password123", "too common"),
        ("83749201384", "entirely numeric"),
        ("editor-desk", "too similar"),
    ],
)
def test_a_password_the_validators_refuse_is_refused(monkeypatch, weak, reason):
    monkeypatch.setenv("EDITOR_PASSWORD", weak)
    with pytest.raises(CommandError, match=reason) as refused:
        ensure_editor()
    assert weak not in str(refused.value)
    assert users() == 0


def test_the_refusal_exits_non_zero_with_a_clear_message(monkeypatch, capsys):
    """As an operator runs it: ``manage.py ensure_editor`` exits 1 with the reason on stderr."""
    monkeypatch.setattr("django.db.connections.close_all", lambda: None)  # keep the test's transaction
    with pytest.raises(SystemExit) as exited:
        Command().run_from_argv(["manage.py", "ensure_editor"])
    assert exited.value.code == 1
    assert "EDITOR_PASSWORD is not set" in capsys.readouterr().err
    assert users() == 0


def test_a_strong_password_makes_a_staff_editor_not_a_superuser_and_is_never_printed(monkeypatch):
    Group.objects.get_or_create(name="Editor")
    monkeypatch.setenv("EDITOR_USERNAME", "ann")
    monkeypatch.setenv("EDITOR_PASSWORD", STRONG)
    out = ensure_editor()
    assert "Created editor login: ann" in out
    assert STRONG not in out
    user = get_user_model().objects.get(username="ann")
    assert user.is_staff and not user.is_superuser and user.check_password(STRONG)
    assert list(user.groups.values_list("name", flat=True)) == ["Editor"]


def test_a_superuser_only_when_asked(monkeypatch):
    monkeypatch.setenv("EDITOR_PASSWORD", STRONG)
    out = ensure_editor("--superuser")
    assert "superuser" in out and STRONG not in out
    assert get_user_model().objects.get(username="editor").is_superuser


def test_an_existing_login_is_reported_without_a_password(monkeypatch):
    get_user_model().objects.create_user("editor", password=STRONG)
    assert "Editor login exists: editor" in ensure_editor()


def test_with_debug_on_the_demo_login_is_still_made(settings):
    """`make run` (DEBUG=1) keeps its local demo login, editor / editor."""
    settings.DEBUG = True
    assert "Created editor login: editor / editor" in ensure_editor()
    user = get_user_model().objects.get(username="editor")
    assert user.check_password("editor") and user.is_staff and not user.is_superuser
