"""The desk's two roles, created by a migration."""

import pytest
from django.contrib.auth.models import Group

pytestmark = pytest.mark.django_db


def test_migration_creates_editor_and_writer_groups():
    assert set(Group.objects.filter(name__in=["Editor", "Writer"]).values_list("name", flat=True)) == {
        "Editor",
        "Writer",
    }


def test_editor_may_publish_override_and_correct(editor):
    for perm in [
        "stories.publish_story",
        "stories.override_checks",
        "stories.add_correction",
        "stories.change_story",
        "manifests.view_manifest",
    ]:
        assert editor.has_perm(perm), perm


def test_writer_edits_and_checks_but_never_publishes_or_corrects(writer):
    for perm in [
        "stories.change_story",
        "stories.add_cite",
        "stories.change_section",
        "manifests.view_manifest",
        "manifests.view_claim",
    ]:
        assert writer.has_perm(perm), perm
    for perm in [
        "stories.publish_story",
        "stories.override_checks",
        "stories.add_correction",
        "stories.change_correction",
        "stories.delete_correction",
        "stories.delete_story",
    ]:
        assert not writer.has_perm(perm), perm


def test_nobody_in_the_groups_may_change_or_delete_corrections(editor):
    assert not editor.has_perm("stories.change_correction")
    assert not editor.has_perm("stories.delete_correction")


@pytest.mark.django_db(transaction=True)
def test_the_groups_come_back_after_a_flush():
    from django.contrib.auth.models import Group
    from django.core.management import call_command

    call_command("flush", "--noinput", verbosity=0)
    editor = Group.objects.get(name="Editor")
    assert editor.permissions.filter(codename="publish_story").exists()
    assert not Group.objects.get(name="Writer").permissions.filter(codename="publish_story").exists()
