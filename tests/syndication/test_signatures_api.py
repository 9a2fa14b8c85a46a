"""The API's story and ninjs answers are signed like the renderings, verified with the
independent package; other API answers are not."""

import pytest

from newsroom.infra.signing import messages
from tests.signatures import InvalidSignature, verify_response

pytestmark = pytest.mark.django_db


@pytest.fixture
def jwks(client):
    return client.get("/.well-known/http-message-signatures-directory").json()


@pytest.mark.parametrize("suffix", ["", "ninjs"])
def test_story_and_ninjs_answers_verify(api, demo, jwks, suffix):
    url = f"/api/v1/stories/{demo.id}/{suffix}"
    response = api.get(url)
    assert response.status_code == 200
    [result] = verify_response(response, "http://testserver" + url, jwks)
    assert result.body == response.content


@pytest.mark.parametrize("suffix", ["", "ninjs"])
def test_a_tampered_api_answer_fails(api, demo, jwks, suffix):
    url = f"/api/v1/stories/{demo.id}/{suffix}"
    response = api.get(url)
    with pytest.raises(InvalidSignature):
        verify_response(response, "http://testserver" + url, jwks, body=response.content.replace(b"8", b"9", 1))


def test_an_indented_answer_is_signed_over_its_own_bytes(api, demo, jwks):
    url = f"/api/v1/stories/{demo.id}/"
    response = api.get(url, HTTP_ACCEPT="application/json; indent=2")
    assert b"\n  " in response.content
    verify_response(response, "http://testserver" + url, jwks)


def test_a_revalidated_answer_is_a_bare_304_and_the_warm_answer_costs_no_signing(
    api, demo, jwks, monkeypatch, django_assert_num_queries
):
    url = f"/api/v1/stories/{demo.id}/"
    first = api.get(url)
    signings = []
    real = messages._sign
    monkeypatch.setattr(messages, "_sign", lambda *a, **k: signings.append(1) or real(*a, **k))
    again = api.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and "Signature" not in again
    # The warm answer costs no query (tests/syndication/test_api_cache.py), signed or not:
    # the signature lives in the cache, not the database.
    with django_assert_num_queries(0):
        warm = api.get(url)
    assert warm["Signature"] == first["Signature"] and warm["ETag"] == first["ETag"]
    assert signings == []


def test_errors_and_other_endpoints_are_not_signed(api, client, demo):
    assert "Signature" not in client.get(f"/api/v1/stories/{demo.id}/")  # 401, no key
    assert "Signature" not in api.get("/api/v1/stories/nope/")
    assert "Signature" not in api.get("/api/v1/stories/")
