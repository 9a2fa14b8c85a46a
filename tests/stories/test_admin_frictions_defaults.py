"""Fewer typed ids: the slug follows the headline, the edition the hour, an edition's id its
start (the admin's "Now" works), and new claims are numbered in order."""

import datetime as dt

import pytest
from django.utils import timezone

from manifests.models import Claim
from newsroom.models import Edition
from stories.models import Story
from tests.factories import ManifestFactory
from tests.stories.helpers import client_for

pytestmark = pytest.mark.django_db


def _add_story(client, demo, **fields):
    data = {
        "headline": "Rates rise: what 900 homes pay",
        "dek": "",
        "angle": "",
        "slug": "",
        "edition": "",
        "newsroom": demo.newsroom.pk,
        "beat": "",
        "audience": "",
        "trust": "reported",
        "unresolved": "",
        "useful_for": "",
        "not_for": "",
        "compare_against": "",
        "writer_agent": "",
        "writer_run_id": "",
        **{
            f"{prefix}-{k}": v
            for prefix in ["key_facts", "sections", "images", "related_links"]
            for k, v in {
                "TOTAL_FORMS": "0",
                "INITIAL_FORMS": "0",
                "MIN_NUM_FORMS": "0",
                "MAX_NUM_FORMS": "1000",
            }.items()
        },
        **fields,
    }
    return client.post("/admin/stories/story/add/", data)


def test_a_blank_slug_is_made_from_the_headline_and_the_edition_is_this_hour(demo, writer):
    def hour() -> str:
        return timezone.now().astimezone(dt.UTC).strftime("%Y-%m-%dT%H")

    before = hour()
    response = _add_story(client_for(writer), demo)
    after = hour()  # the request may end in the next hour than it began
    assert response.status_code == 302, response.content.decode()[:2000]
    story = Story.objects.get(headline="Rates rise: what 900 homes pay")
    assert story.slug == "rates-rise-what-900-homes-pay"
    assert story.edition_id in {before, after}


def test_a_typed_slug_is_kept(demo, writer):
    assert _add_story(client_for(writer), demo, slug="my-own-address").status_code == 302
    assert Story.objects.filter(slug="my-own-address").exists()


def test_a_headline_without_letters_asks_for_a_slug(demo, writer):
    response = _add_story(client_for(writer), demo, headline="???")
    assert response.status_code == 200 and "no letters or digits" in response.content.decode()
    assert not Story.objects.filter(headline="???").exists()


def test_the_add_page_fills_the_slug_from_the_headline_in_the_browser(demo, writer):
    html = client_for(writer).get("/admin/stories/story/add/").content.decode()
    # The add page is the editing screen: its slug field follows the headline as it is typed.
    assert 'id="editor-slug"' in html and 'data-prepopulate-from="editor-headline"' in html


# --------------------------------------------------------------------------- editions


def _edition(client, **data):
    return client.post("/admin/newsroom/edition/add/", {"id": "", "starts_at_0": "", "starts_at_1": "", **data})


def test_now_in_the_edition_admin_snaps_to_the_hour_its_id_names(editor):
    from django.contrib.auth.models import Permission

    editor.user_permissions.add(*Permission.objects.filter(codename__in=["add_edition", "view_edition"]))
    response = _edition(client_for(editor), id="2026-12-01T01", starts_at_0="2026-12-01", starts_at_1="01:12:52")
    assert response.status_code == 302, response.content.decode()[:3000]
    assert Edition.objects.get(id="2026-12-01T01").starts_at == dt.datetime(2026, 12, 1, 1, tzinfo=dt.UTC)


def test_the_edition_id_follows_from_its_start(editor):
    from django.contrib.auth.models import Permission

    editor.user_permissions.add(*Permission.objects.filter(codename__in=["add_edition", "view_edition"]))
    response = _edition(client_for(editor), starts_at_0="2026-12-02", starts_at_1="07:45:00")
    assert response.status_code == 302
    assert Edition.objects.get(id="2026-12-02T07").starts_at == dt.datetime(2026, 12, 2, 7, tzinfo=dt.UTC)


def test_a_start_outside_the_named_hour_is_refused_with_the_reason(editor):
    from django.contrib.auth.models import Permission

    editor.user_permissions.add(*Permission.objects.filter(codename__in=["add_edition", "view_edition"]))
    response = _edition(client_for(editor), id="2026-12-01T01", starts_at_0="2026-12-01", starts_at_1="05:00:00")
    assert response.status_code == 200 and "is not in the hour 2026-12-01T01 names" in response.content.decode()
    assert not Edition.objects.filter(id="2026-12-01T01").exists()


# --------------------------------------------------------------------------- claims


def test_new_claims_are_numbered_in_order(admin_client):
    manifest = ManifestFactory()
    Claim.objects.filter(manifest=manifest).delete()
    url = f"/admin/manifests/manifest/{manifest.pk}/change/"
    page = admin_client.get(url)
    from tests.stories.helpers import form_data

    data = form_data(page)
    prefix = "claims"
    for n, text in enumerate(["First claim.", "Second claim.", "Third claim."]):
        data[f"{prefix}-{n}-id"] = f"{manifest.pk}-c{n}"
        data[f"{prefix}-{n}-manifest"] = manifest.pk
        data[f"{prefix}-{n}-position"] = ""
        data[f"{prefix}-{n}-text"] = text
    data[f"{prefix}-TOTAL_FORMS"] = "3"
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    rows = list(Claim.objects.filter(manifest=manifest).order_by("position").values_list("text", "position"))
    assert rows == [("First claim.", 1), ("Second claim.", 2), ("Third claim.", 3)]


def test_favicon_is_served_everywhere(client, demo):
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and response["Content-Type"] == "image/x-icon"
    assert response.content[:4] == b"\x00\x00\x01\x00"
    assert 'rel="icon"' in client.get("/").content.decode()
    assert client.post("/favicon.ico").status_code == 405


def test_the_admin_links_the_favicon(editor):
    assert 'rel="icon"' in client_for(editor).get("/admin/").content.decode()
