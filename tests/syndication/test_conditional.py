"""Conditional GET: ETag, Last-Modified and 304 on every read endpoint; Vary: Authorization."""

import pytest
from django.utils.http import http_date

from stories import actions

pytestmark = pytest.mark.django_db

READS = [
    "/api/v1/stories/",
    "/api/v1/stories/81/",
    "/api/v1/stories/81/ninjs",
    "/api/v1/newsrooms/",
    "/api/v1/editions/",
    "/api/v1/manifests/1792066118701135431/",
]


@pytest.mark.parametrize("url", READS)
def test_etag_last_modified_and_304(api, demo, url):
    response = api.get(url)
    assert response.status_code == 200
    etag, last_modified = response["ETag"], response["Last-Modified"]
    assert etag.startswith('"') and last_modified.endswith("GMT")
    assert "Authorization" in response["Vary"]

    again = api.get(url, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == etag
    assert "Authorization" in again["Vary"]

    assert api.get(url, HTTP_IF_MODIFIED_SINCE=last_modified).status_code == 304
    assert api.get(url, HTTP_IF_NONE_MATCH='"something-else"').status_code == 200


def test_corrections_endpoint_is_conditional(api, demo):
    actions.record_correction(story=demo, text="A date was wrong.", kind="correction")
    response = api.get("/api/v1/corrections/")
    assert api.get("/api/v1/corrections/", HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304


def test_a_correction_changes_the_story_etag_and_last_modified(api, demo):
    before = api.get("/api/v1/stories/81/")
    actions.record_correction(story=demo, text="A figure was wrong.", kind="correction")
    after = api.get("/api/v1/stories/81/", HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200
    assert after["ETag"] != before["ETag"]
    assert after.json()["corrections"][0]["text"] == "A figure was wrong."
    demo.refresh_from_db()
    assert after["Last-Modified"] == http_date(int(demo.updated_at.timestamp()))


def test_errors_are_not_cached_as_200s(api):
    response = api.get("/api/v1/stories/nope/")
    assert response.status_code == 404
    assert "ETag" not in response
    assert "Authorization" in response["Vary"]
