"""A publisher's name is the source name of every manifest it publishes: renaming it in the
admin changes what a published story citing those manifests shows its readers. Like any
change to a cited source, it is audited on each citing published story, with the old and
new names, and that story is re-checked; a cited publisher is never deleted."""

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from manifests.admin import PublisherAdmin
from manifests.models import Manifest, Publisher
from stories.models import AuditEntry, CheckResult, Cite, Story
from tests.factories import ManifestFactory, PublisherFactory
from tests.manifests.test_admin import form_data
from tests.stories.helpers import client_for

pytestmark = pytest.mark.django_db

SHARED_PUBLISHER = "huggingface-daily-papers"  # publishes three of the demo story's manifests
ALONE_PUBLISHER = "invisible-technologies-blog"  # publishes one
ALONE_MANIFEST = "1792067182956183080"


def rename(user, publisher, name):
    url = reverse("admin:manifests_publisher_change", args=[publisher.pk])
    return client_for(user).post(url, {"name": name})


def source_audits(story_id="81"):
    return list(
        AuditEntry.objects.filter(story_id=story_id, action=AuditEntry.Action.SOURCE_CHANGED).order_by("details")
    )


def cited_manifest_ids(publisher, story_id="81") -> list[str]:
    ids = Cite.objects.citing().filter(manifest__publisher=publisher, story_id=story_id).values_list("manifest_id")
    return sorted({mid for (mid,) in ids})


def test_renaming_a_cited_publisher_is_audited_on_the_citing_story_for_each_cited_manifest(demo, editor):
    publisher = Publisher.objects.get(name=SHARED_PUBLISHER)
    manifests = cited_manifest_ids(publisher)
    assert len(manifests) > 1
    response = rename(editor, publisher, "hf-papers")
    assert response.status_code == 302, response.content
    assert Publisher.objects.get(pk=publisher.pk).name == "hf-papers"
    audits = source_audits()
    assert [a.details for a in audits] == [
        {
            "manifest_id": manifest_id,
            "publisher_id": publisher.pk,
            "changes": {"publisher": {"old": SHARED_PUBLISHER, "new": "hf-papers"}},
        }
        for manifest_id in manifests
    ]
    assert {a.user for a in audits} == {editor}
    assert {a.version for a in audits} == {Story.objects.get(id="81").version}


def test_renaming_a_cited_publisher_rechecks_the_citing_story_once(demo, editor):
    checks = CheckResult.objects.filter(story_id="81").count()
    rename(editor, Publisher.objects.get(name=SHARED_PUBLISHER), "hf-papers")
    assert CheckResult.objects.filter(story_id="81").count() == checks + 1


def test_the_desk_flags_a_renamed_publisher_on_the_citing_story(demo, editor):
    rename(editor, Publisher.objects.get(name=ALONE_PUBLISHER), "invisible-blog")
    page = client_for(editor).get(reverse("admin:stories_story_change", args=["81"])).content.decode()
    assert "A cited source changed since publication" in page
    assert f"manifest {ALONE_MANIFEST} (publisher)" in page


def test_saving_a_cited_publisher_unchanged_leaves_no_audit_and_no_check(demo, editor):
    checks = CheckResult.objects.count()
    assert rename(editor, Publisher.objects.get(name=SHARED_PUBLISHER), SHARED_PUBLISHER).status_code == 302
    assert not source_audits()
    assert CheckResult.objects.count() == checks


def test_renaming_an_uncited_publisher_leaves_no_audit(demo, editor):
    publisher = PublisherFactory(name="nobody-cites-me")
    ManifestFactory(publisher=publisher)
    checks = CheckResult.objects.count()
    assert rename(editor, publisher, "still-uncited").status_code == 302
    assert not AuditEntry.objects.filter(action=AuditEntry.Action.SOURCE_CHANGED).exists()
    assert CheckResult.objects.count() == checks


def test_renaming_a_publisher_cited_only_by_a_draft_leaves_no_audit(demo, editor):
    Story.objects.filter(id="81").update(status=Story.Status.DRAFT)
    assert rename(editor, Publisher.objects.get(name=SHARED_PUBLISHER), "hf-papers").status_code == 302
    assert not source_audits()


def test_a_writer_may_not_rename_a_publisher(demo, writer):
    publisher = Publisher.objects.get(name=SHARED_PUBLISHER)
    assert rename(writer, publisher, "hf-papers").status_code == 403
    assert Publisher.objects.get(pk=publisher.pk).name == SHARED_PUBLISHER


def test_moving_a_cited_manifest_to_another_publisher_is_audited(demo, admin_client):
    other = PublisherFactory(name="another-wire")
    url = reverse("admin:manifests_manifest_change", args=[ALONE_MANIFEST])
    data = form_data(admin_client.get(url))
    manifest = Manifest.objects.get(id=ALONE_MANIFEST)
    for i, claim in enumerate(manifest.claims.all()):
        data[f"claims-{i}-self_reported"] = {True: "true", False: "false", None: "unknown"}[claim.self_reported]
    data["publisher"] = other.pk
    assert admin_client.post(url, data).status_code == 302
    [audit] = source_audits()
    assert audit.details == {
        "manifest_id": ALONE_MANIFEST,
        "changes": {"publisher": {"old": ALONE_PUBLISHER, "new": "another-wire"}},
    }


def test_a_cited_publisher_cannot_be_deleted(demo, admin_client):
    publisher = Publisher.objects.get(name=SHARED_PUBLISHER)
    url = reverse("admin:manifests_publisher_delete", args=[publisher.pk])
    response = admin_client.post(url, {"post": "yes"})
    assert response.status_code == 200
    assert "protected related objects" in response.content.decode()
    assert Publisher.objects.filter(pk=publisher.pk).exists()


def test_a_publisher_cited_meanwhile_is_not_deleted_in_bulk_and_the_editor_is_told_why(demo, admin_client, monkeypatch):
    # As if a manifest were added between the confirmation page and the delete.
    monkeypatch.setattr(PublisherAdmin, "get_deleted_objects", lambda self, objs, request: ([], {}, set(), []))
    publisher = Publisher.objects.get(name=SHARED_PUBLISHER)
    response = admin_client.post(
        reverse("admin:manifests_publisher_changelist"),
        {"action": "delete_selected", "_selected_action": [publisher.pk], "post": "yes"},
    )
    assert response.status_code == 302
    assert any(str(m).startswith("Not deleted: still referenced by ") for m in get_messages(response.wsgi_request))
    assert Publisher.objects.filter(pk=publisher.pk).exists()
