"""The manifests admin: search, the "Fetch from provider" action, claims inline, and cited
manifests and claims protected from deletion with a clear message."""

import json

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import timezone

from manifests.admin import ManifestAdmin
from manifests.models import Claim, Manifest
from tests.factories import ClaimFactory, ManifestFactory, PublisherFactory
from tests.manifests.helpers import Reply
from tests.seed import SEED_MANIFESTS

pytestmark = pytest.mark.django_db

SEED_ENTRIES = json.loads(SEED_MANIFESTS.read_text(encoding="utf-8"))["manifests"]
CITED_MANIFEST = SEED_ENTRIES[0]["manifest_id"]
CITED_CLAIM = SEED_ENTRIES[0]["claims"][0]["claim_id"]

CHANGELIST = reverse("admin:manifests_manifest_changelist")
CLAIMS = reverse("admin:manifests_claim_changelist")


def change_url(manifest_id):
    return reverse("admin:manifests_manifest_change", args=[manifest_id])


def messages_of(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def listed_ids(response) -> set[str]:
    return {str(obj.pk) for obj in response.context["cl"].result_list}


@pytest.fixture
def library():
    """Three manifests from two publishers; the second has a stub claim."""
    nature = PublisherFactory(name="nature-news")
    arxiv = PublisherFactory(name="arxiv-listing")
    a = ManifestFactory(id="1700000000000000001", title="Reward models under pressure", publisher=nature)
    b = ManifestFactory(id="1700000000000000002", title="Sparse attention at scale", publisher=arxiv)
    c = ManifestFactory(id="1800000000000000003", title="Benchmarks for agents", publisher=arxiv)
    ClaimFactory(manifest=a, text="Reward hacking rose by a third.")
    ClaimFactory(id="1900000000000000042", manifest=b, text="", has_text=False, self_reported=None)
    return a, b, c


# --- Finding manifests and claims -------------------------------------------------------


@pytest.mark.parametrize(
    "term, expected",
    [
        ("17000000", {"1700000000000000001", "1700000000000000002"}),
        ("sparse", {"1700000000000000002"}),
        ("arxiv", {"1700000000000000002", "1800000000000000003"}),
    ],
    ids=["by id", "by title", "by publisher"],
)
def test_manifests_are_searchable_by_id_title_and_publisher(admin_client, library, term, expected):
    response = admin_client.get(CHANGELIST, {"q": term})
    assert response.status_code == 200
    assert listed_ids(response) == expected


def test_manifests_can_be_filtered_to_those_with_stub_claims(admin_client, library):
    response = admin_client.get(CHANGELIST, {"stubs": "yes"})
    assert listed_ids(response) == {"1700000000000000002"}
    response = admin_client.get(CHANGELIST, {"stubs": "no"})
    assert listed_ids(response) == {"1700000000000000001", "1800000000000000003"}


def test_other_admins_can_autocomplete_manifests(admin_client, library):
    response = admin_client.get(
        reverse("admin:autocomplete"),
        {"app_label": "manifests", "model_name": "claim", "field_name": "manifest", "term": "benchmarks"},
    )
    assert response.status_code == 200
    assert [r["id"] for r in response.json()["results"]] == ["1800000000000000003"]


def test_claim_autocomplete_can_offer_only_one_manifests_claims(admin_client, library):
    other = ClaimFactory(text="Reward models drift.")
    query = {"app_label": "stories", "model_name": "citeclaim", "field_name": "claim", "term": "reward"}
    response = admin_client.get(reverse("admin:autocomplete"), query)
    assert {r["id"] for r in response.json()["results"]} == {other.id, library[0].claims.get().id}
    response = admin_client.get(reverse("admin:autocomplete"), {**query, "manifest": library[0].id})
    [only] = response.json()["results"]
    assert only == {"id": library[0].claims.get().id, "text": str(library[0].claims.get())}


@pytest.mark.parametrize(
    "term, expected",
    [("reward hacking", 1), ("1900000000000000042", 1), ("1700000000000000002", 1), ("nothing like it", 0)],
    ids=["by text", "by id", "by manifest id", "no match"],
)
def test_claims_are_searchable_by_id_text_and_manifest_id(admin_client, library, term, expected):
    response = admin_client.get(CLAIMS, {"q": term})
    assert response.status_code == 200
    assert len(response.context["cl"].result_list) == expected


def test_the_claim_list_shows_stub_status(admin_client, library):
    response = admin_client.get(CLAIMS, {"has_text__exact": "0"})
    assert listed_ids(response) == {"1900000000000000042"}
    assert "(stub: no text yet)" in response.content.decode()


# --- Pages and their queries ----------------------------------------------------------------


def test_the_manifest_list_takes_a_fixed_number_of_queries(admin_client, django_assert_max_num_queries):
    for _ in range(30):
        ClaimFactory.create_batch(3, manifest=ManifestFactory())
    with django_assert_max_num_queries(8):
        response = admin_client.get(CHANGELIST)
    assert response.status_code == 200
    assert len(response.context["cl"].result_list) == 30


def test_the_claim_list_takes_a_fixed_number_of_queries(admin_client, django_assert_max_num_queries):
    ClaimFactory.create_batch(40)
    with django_assert_max_num_queries(7):
        response = admin_client.get(CLAIMS)
    assert response.status_code == 200


def test_the_manifest_page_shows_claims_inline_in_a_fixed_number_of_queries(
    admin_client, library, django_assert_max_num_queries
):
    manifest = library[1]
    ClaimFactory.create_batch(20, manifest=manifest)
    with django_assert_max_num_queries(8):
        response = admin_client.get(change_url(manifest.id))
    assert response.status_code == 200
    body = response.content.decode()
    assert "stub: no text yet (fetch from provider)" in body
    [claims] = response.context["inline_admin_formsets"]
    assert len(claims.formset.forms) == 21


def test_the_claim_page_takes_a_fixed_number_of_queries(admin_client, library, django_assert_max_num_queries):
    with django_assert_max_num_queries(7):
        response = admin_client.get(reverse("admin:manifests_claim_change", args=["1900000000000000042"]))
    assert response.status_code == 200


def test_giving_a_stub_its_text_makes_it_a_claim_with_text(admin_client, library):
    url = reverse("admin:manifests_claim_change", args=["1900000000000000042"])
    data = form_data(admin_client.get(url))
    data.update({"text": "Sparse attention halves the cost.", "id": "1999999999999999999"})
    response = admin_client.post(url, data)
    assert response.status_code == 302
    claim = Claim.objects.get(id="1900000000000000042")  # the id of an existing claim is fixed
    assert (claim.text, claim.has_text) == ("Sparse attention halves the cost.", True)
    assert not Claim.objects.filter(id="1999999999999999999").exists()


# --- Fetch from provider ---------------------------------------------------------------------


def test_the_fetch_action_fills_claims_and_reports(admin_client, fake_provider, library):
    entry = dict(SEED_ENTRIES[0])
    manifest = ManifestFactory(id=entry["manifest_id"])
    ClaimFactory(id=entry["claims"][0]["claim_id"], manifest=manifest, text="", has_text=False, self_reported=None)
    fake_provider.serve_entry(entry)
    fake_provider.serve(library[0].id, Reply(status=404))
    response = admin_client.post(
        CHANGELIST, {"action": "fetch_from_provider", "_selected_action": [manifest.id, library[0].id]}
    )
    assert response.status_code == 302
    assert messages_of(response) == [
        "Fetched from the provider: 1 fetched, 0 unchanged, 1 not found, 0 failed, 0 skipped.",
        f"{library[0].id}: not found: the provider has no manifest with this id (404 Not Found)",
    ]
    assert Claim.objects.get(id=entry["claims"][0]["claim_id"]).text == entry["claims"][0]["text"]


def test_the_fetch_action_refetches_even_a_fresh_manifest(admin_client, fake_provider):
    entry = SEED_ENTRIES[1]
    ManifestFactory(id=entry["manifest_id"], fetched_at=timezone.now())
    fake_provider.serve_entry(entry)
    response = admin_client.post(
        CHANGELIST, {"action": "fetch_from_provider", "_selected_action": [entry["manifest_id"]]}
    )
    assert messages_of(response) == [
        "Fetched from the provider: 1 fetched, 0 unchanged, 0 not found, 0 failed, 0 skipped."
    ]
    assert len(fake_provider.requests_for(entry["manifest_id"])) == 1


def test_the_fetch_action_needs_the_change_permission(client, fake_provider, library):
    from django.contrib.auth.models import Permission

    from tests.factories import UserFactory

    viewer = UserFactory(is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_manifest"))
    client.force_login(viewer)
    response = client.get(CHANGELIST)
    assert "fetch_from_provider" not in response.content.decode()
    client.post(CHANGELIST, {"action": "fetch_from_provider", "_selected_action": [library[0].id]})
    assert fake_provider.requests == []


# --- Deleting what stories cite ----------------------------------------------------------------


def test_a_cited_manifest_cannot_be_deleted(admin_client, demo):
    url = reverse("admin:manifests_manifest_delete", args=[CITED_MANIFEST])
    response = admin_client.get(url)
    assert response.status_code == 200
    assert "would require deleting the following protected related objects" in response.content.decode()
    response = admin_client.post(url, {"post": "yes"})
    assert response.status_code == 200
    assert Manifest.objects.filter(id=CITED_MANIFEST).exists()
    assert Claim.objects.filter(manifest_id=CITED_MANIFEST, has_text=True).count() == len(SEED_ENTRIES[0]["claims"])


def test_a_cited_claim_cannot_be_deleted(admin_client, demo):
    url = reverse("admin:manifests_claim_delete", args=[CITED_CLAIM])
    response = admin_client.post(url, {"post": "yes"})
    assert response.status_code == 200
    assert "protected related objects" in response.content.decode()
    assert Claim.objects.filter(id=CITED_CLAIM).exists()


def test_a_cited_claim_cannot_be_deleted_inline(admin_client, demo):
    response = admin_client.get(change_url(CITED_MANIFEST))
    data = form_data(response)
    claims = response.context["inline_admin_formsets"][0].formset
    row = next(i for i, form in enumerate(claims.forms) if form.instance.id == CITED_CLAIM)
    data[f"{claims.prefix}-{row}-DELETE"] = "on"
    response = admin_client.post(change_url(CITED_MANIFEST), data)
    assert response.status_code == 200
    assert "would require deleting the following protected related objects" in response.content.decode()
    assert Claim.objects.filter(id=CITED_CLAIM).exists()


def test_cited_manifests_survive_the_delete_selected_action(admin_client, demo):
    response = admin_client.post(
        CHANGELIST, {"action": "delete_selected", "_selected_action": [CITED_MANIFEST], "post": "yes"}
    )
    assert response.status_code == 200
    assert "protected related objects" in response.content.decode()
    assert Manifest.objects.filter(id=CITED_MANIFEST).exists()


def test_a_cite_added_after_the_check_gives_a_message_not_an_error(admin_client, demo, monkeypatch):
    # As if a story cited the manifest between the confirmation page and the delete.
    monkeypatch.setattr(ManifestAdmin, "get_deleted_objects", lambda self, objs, request: ([], {}, set(), []))
    url = reverse("admin:manifests_manifest_delete", args=[CITED_MANIFEST])
    response = admin_client.post(url, {"post": "yes"})
    assert response.status_code == 302
    [message] = messages_of(response)
    assert message.startswith("Not deleted: still referenced by ")
    assert "nothing was deleted" in message
    assert Claim.objects.filter(manifest_id=CITED_MANIFEST).count() == len(SEED_ENTRIES[0]["claims"])


def test_the_same_race_in_delete_selected_gives_a_message(admin_client, demo, monkeypatch):
    monkeypatch.setattr(ManifestAdmin, "get_deleted_objects", lambda self, objs, request: ([], {}, set(), []))
    response = admin_client.post(
        CHANGELIST, {"action": "delete_selected", "_selected_action": [CITED_MANIFEST], "post": "yes"}
    )
    assert response.status_code == 302
    assert any(m.startswith("Not deleted: still referenced by ") for m in messages_of(response))
    assert Manifest.objects.filter(id=CITED_MANIFEST).exists()


def test_an_uncited_manifest_can_be_deleted(admin_client, library):
    url = reverse("admin:manifests_manifest_delete", args=[library[0].id])
    response = admin_client.post(url, {"post": "yes"})
    assert response.status_code == 302
    assert not Manifest.objects.filter(id=library[0].id).exists()


# --- Helpers ------------------------------------------------------------------------------------


def form_data(response) -> dict:
    """The POST data of an admin change page as it stands: the main form and every inline."""
    data = {}
    forms = [response.context["adminform"].form]
    for inline in response.context.get("inline_admin_formsets", []):
        formset = inline.formset
        forms.extend(formset.forms)
        data.update(
            {
                formset.management_form[name].html_name: formset.management_form[name].value()
                for name in formset.management_form.fields
            }
        )
    for form in forms:
        for name in form.fields:
            value = form[name].value()
            if value is None or value is False:
                continue
            data[form[name].html_name] = "on" if value is True and name == "DELETE" else value
    return data


def test_a_stored_manifests_id_is_not_on_its_form(admin_client):
    """Cites name a manifest by its id: the form of a stored one shows it, never edits it,
    so a save cannot make another manifest and move its claims there."""
    manifest = ManifestFactory(id="1700000000000000001")
    ClaimFactory(manifest=manifest, id="c1")
    page = admin_client.get(reverse("admin:manifests_manifest_change", args=[manifest.pk]))
    assert page.status_code == 200
    assert 'name="id"' not in page.content.decode()
    assert 'name="id"' in admin_client.get(reverse("admin:manifests_manifest_add")).content.decode()
