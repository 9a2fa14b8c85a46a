"""The admin pages of the app, and the OpenAPI schema and its docs page."""

import pytest
from django.contrib.messages import get_messages
from django.core.management import call_command

from syndication.models import ApiKey, WebhookDelivery, WebhookEndpoint, hash_secret
from tests.factories import UserFactory
from tests.syndication.helpers import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client_(client):
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    return client


def test_key_made_in_the_admin_is_shown_once_and_works(admin_client_, partner):
    response = admin_client_.post(
        "/admin/syndication/apikey/add/", {"partner": partner.pk, "name": "poller", "scope": "read"}
    )
    assert response.status_code == 302
    [message] = [str(m) for m in get_messages(response.wsgi_request) if "new key" in str(m)]
    plaintext = message.rsplit(" ", 1)[1]
    key = ApiKey.objects.get()
    assert key.hashed_secret == hash_secret(plaintext)
    assert client_for(plaintext).get("/api/v1/newsrooms/").status_code == 200
    # Shown on the page after the save, then never again.
    assert plaintext in admin_client_.get(f"/admin/syndication/apikey/{key.pk}/change/").content.decode()
    assert plaintext not in admin_client_.get(f"/admin/syndication/apikey/{key.pk}/change/").content.decode()


def test_revoke_action(admin_client_, read_key):
    key, plaintext = read_key
    admin_client_.post("/admin/syndication/apikey/", {"action": "revoke_keys", "_selected_action": [key.pk]})
    key.refresh_from_db()
    assert key.revoked_at is not None
    assert client_for(plaintext).get("/api/v1/newsrooms/").status_code == 401


def test_admin_pages_render(admin_client_, partner, read_key, make_story, django_assert_max_num_queries):
    from stories import actions

    endpoint = WebhookEndpoint.objects.create(partner=partner, url="http://127.0.0.1:9/", events=["story.corrected"])
    actions.record_correction(story=make_story(), text="A fix.", kind="correction")
    delivery = WebhookDelivery.objects.get()
    for url in [
        "/admin/syndication/partner/",
        f"/admin/syndication/partner/{partner.pk}/change/",
        "/admin/syndication/apikey/",
        f"/admin/syndication/apikey/{read_key[0].pk}/change/",
        "/admin/syndication/webhookendpoint/",
        f"/admin/syndication/webhookendpoint/{endpoint.pk}/change/",
        "/admin/syndication/webhookdelivery/",
        f"/admin/syndication/webhookdelivery/{delivery.pk}/change/",
    ]:
        with django_assert_max_num_queries(20):
            assert admin_client_.get(url).status_code == 200, url


def test_schema_is_public_and_documents_errors(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    story_list = schema["paths"]["/api/v1/stories/"]["get"]
    assert {"200", "400", "401", "429"} <= set(story_list["responses"])
    assert "Error" in schema["components"]["schemas"]
    assert schema["components"]["securitySchemes"]["partnerKey"] == {
        "type": "http",
        "scheme": "bearer",
        "description": schema["components"]["securitySchemes"]["partnerKey"]["description"],
    }
    assert {p["name"] for p in story_list["parameters"]} >= {
        "newsroom",
        "beat",
        "edition",
        "published_after",
        "updated_since",
        "cursor",
        "page_size",
    }


def test_schema_validates_without_warnings(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yml"))
    assert (tmp_path / "schema.yml").read_text().startswith("openapi: 3")


def test_docs_page_is_served_with_local_assets(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "cdn.jsdelivr.net" not in html and "/static/drf_spectacular_sidecar/" in html
    # No inline script (a strict CSP holds): the page's own script is a separate response.
    assert '<script src="/api/docs/?script="></script>' in html
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200 and "/api/schema/" in script.content.decode()


def test_endpoint_events_must_be_known(admin_client_, partner):
    data = {"partner": partner.pk, "url": "https://partner.example/hook", "secret": "whsec_x", "active": "on"}
    response = admin_client_.post("/admin/syndication/webhookendpoint/add/", {**data, "events": '["story.deleted"]'})
    assert response.status_code == 200 and not WebhookEndpoint.objects.exists()
    response = admin_client_.post("/admin/syndication/webhookendpoint/add/", {**data, "events": '["story.published"]'})
    assert response.status_code == 302
    assert WebhookEndpoint.objects.get().events == ["story.published"]


def test_the_schema_is_generated_once_however_often_it_is_asked(client, monkeypatch):
    from drf_spectacular.generators import SchemaGenerator

    from syndication import schema

    monkeypatch.setattr(schema, "_SCHEMAS", {})
    generated = []
    real = SchemaGenerator.get_schema

    def counted(self, *args, **kwargs):
        generated.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(SchemaGenerator, "get_schema", counted)
    json_type = "application/vnd.oai.openapi+json"
    first = client.get("/api/schema/", HTTP_ACCEPT=json_type)
    again = [client.get("/api/schema/", HTTP_ACCEPT=json_type) for _ in range(3)]
    made_up = [client.get(f"/api/schema/?lang=zz-{n}", HTTP_ACCEPT=json_type) for n in range(3)]
    assert first.status_code == 200 and "/api/v1/stories/" in first.json()["paths"]
    assert all(r.content == first.content for r in again + made_up)  # a language with no catalogue is the default's
    assert len(generated) == 1 and len(schema._SCHEMAS) == 1


def test_staff_who_may_only_view_keys_cannot_revoke_them(client, read_key):
    from django.contrib.auth.models import Permission, User

    key, _ = read_key
    viewer = User.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_apikey"))
    client.force_login(viewer)
    page = client.get("/admin/syndication/apikey/")
    assert page.status_code == 200 and "revoke_keys" not in page.content.decode()  # not offered
    client.post("/admin/syndication/apikey/", {"action": "revoke_keys", "_selected_action": [key.pk]})
    key.refresh_from_db()
    assert key.revoked_at is None
