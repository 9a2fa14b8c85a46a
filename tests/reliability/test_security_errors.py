"""Two requests that answered a server error: a Writer opening a claim in the admin, and an
API time filter past the year 9999 once in UTC (PostgreSQL's DataError, an HTML 500)."""

import pytest
from django.test import Client

from manifests.models import Claim
from tests.syndication.helpers import client_for

pytestmark = pytest.mark.django_db


def test_a_writer_sees_a_claim_read_only(manifests_loaded, writer):
    claim = Claim.objects.filter(has_text=True).first()
    client = Client()
    client.force_login(writer)
    response = client.get(f"/admin/manifests/claim/{claim.pk}/change/")
    assert response.status_code == 200
    page = response.content.decode()
    assert claim.id in page
    assert 'name="text"' not in page  # read-only: no field to edit
    assert 'name="_save"' not in page
    # and may not change it by posting
    before = (claim.text, claim.has_text)
    client.post(f"/admin/manifests/claim/{claim.pk}/change/", {"text": "", "position": 0})
    claim.refresh_from_db()
    assert (claim.text, claim.has_text) == before


OUT_OF_RANGE = ["9999-12-31T23:59:59-23:59", "9999-12-31T23:00:00-01:00", "0001-01-01T00:00:00+00:01"]


@pytest.mark.parametrize("parameter", ["published_after", "updated_since"])
@pytest.mark.parametrize("value", OUT_OF_RANGE)
def test_an_out_of_range_time_is_a_400_naming_the_parameter(read_key, parameter, value):
    response = client_for(read_key[1]).get("/api/v1/stories/", {parameter: value})
    assert response.status_code == 400, response.content[:300]
    error = response.json()["error"]
    assert error["parameter"] == parameter
    assert "out of range" in error["message"]


@pytest.mark.parametrize("parameter", ["published_after", "updated_since"])
def test_the_last_representable_times_still_filter(read_key, parameter):
    for value in ["9999-12-31T23:59:59Z", "9999-12-31T23:59:59+01:00", "0001-01-01T00:00:00Z"]:
        response = client_for(read_key[1]).get("/api/v1/stories/", {parameter: value})
        assert response.status_code == 200, (value, response.content[:300])


def test_any_other_server_error_under_the_api_answers_json(read_key, monkeypatch, settings):
    from syndication import views

    def boom(*args, **kwargs):
        raise RuntimeError("something unforeseen")

    monkeypatch.setattr(views, "filter_stories", boom)
    settings.DEBUG = False
    client = client_for(read_key[1])
    client.raise_request_exception = False
    response = client.get("/api/v1/stories/")
    assert response.status_code == 500
    assert response["Content-Type"].startswith("application/json")
    assert response.json() == {"error": {"code": "server_error", "message": "A server error occurred."}}


def test_a_server_error_elsewhere_keeps_the_html_page(rf):
    from syndication.errors import server_error

    response = server_error(rf.get("/stories/"))
    assert response.status_code == 500
    assert response["Content-Type"].startswith("text/html")


def test_a_nul_in_an_api_url_is_a_json_400(client):
    """Refused before any view, as on the site, but in the API's own error body."""
    response = client.get("/api/v1/stories/?q%00=1")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == "bad_request"
    assert client.get("/search/?q=%00")["Content-Type"].startswith("text/plain")
