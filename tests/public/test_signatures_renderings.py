"""Every public rendering of a published story is signed (RFC 9421, Ed25519, over an RFC 9530
Content-Digest and the target URI), verified here with the independent package."""

from urllib.parse import urlsplit

import pytest

from newsroom.infra import pagecache
from newsroom.infra.signing import messages
from public.views import copies
from tests.signatures import InvalidSignature, verify_response

pytestmark = pytest.mark.django_db

RENDERINGS = ["", "index.json", "index.md", "index.txt"]


@pytest.fixture(autouse=True)
def fresh_state():
    copies.clear()
    pagecache._recent.clear()
    messages._local.clear()
    yield
    copies.clear()
    messages._local.clear()


@pytest.fixture
def path(demo):
    return urlsplit(demo.url).path


@pytest.fixture
def jwks(client):
    return client.get("/.well-known/http-message-signatures-directory").json()


@pytest.mark.parametrize("rendering", RENDERINGS)
def test_each_rendering_verifies_against_the_published_keys(client, path, jwks, rendering):
    url = path + rendering
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Digest"].startswith("sha-256=:")
    [result] = verify_response(response, "http://testserver" + url, jwks)
    assert result.parameters["keyid"] == jwks["keys"][0]["kid"]
    assert result.parameters["alg"] == "ed25519"
    assert isinstance(result.parameters["created"], int)
    assert result.body == response.content


@pytest.mark.parametrize("rendering", RENDERINGS)
def test_a_tampered_body_fails(client, path, jwks, rendering):
    url = path + rendering
    response = client.get(url)
    tampered = response.content.replace(b"the", b"teh", 1)
    assert tampered != response.content
    with pytest.raises(InvalidSignature):
        verify_response(response, "http://testserver" + url, jwks, body=tampered)


def test_a_rendering_copied_to_another_url_fails(client, path, jwks):
    response = client.get(path + "index.json")
    with pytest.raises(InvalidSignature):
        verify_response(response, "http://testserver" + path + "index.txt", jwks)


def test_a_signature_checked_against_other_keys_fails(client, path):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from newsroom.infra.signing.keys import PublicKey

    response = client.get(path + "index.json")
    stranger = {"keys": [PublicKey.of(Ed25519PrivateKey.generate().public_key()).jwk()]}
    with pytest.raises(InvalidSignature, match="Unable to resolve"):
        verify_response(response, "http://testserver" + path + "index.json", stranger)


def test_a_warm_page_is_served_signed_without_a_query_or_a_new_signature(
    client, path, jwks, monkeypatch, django_assert_num_queries
):
    first = client.get(path)
    signings = []
    real = messages._sign
    monkeypatch.setattr(messages, "_sign", lambda *a, **k: signings.append(1) or real(*a, **k))
    with django_assert_num_queries(0):
        second = client.get(path)
    messages._local.clear()  # another worker: the signature comes from the shared cache
    third = client.get(path)
    assert signings == []
    for response in (second, third):
        assert response["Signature"] == first["Signature"]
        assert response["ETag"] == first["ETag"]
        verify_response(response, "http://testserver" + path, jwks)


def test_a_304_carries_no_signature_and_the_200_it_revalidates_does(client, path, jwks):
    first = client.get(path + "index.md")
    again = client.get(path + "index.md", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    assert "Signature" not in again and "Content-Digest" not in again
    assert first["Cache-Control"] == again["Cache-Control"]
    verify_response(first, "http://testserver" + path + "index.md", jwks)


def test_a_changed_story_gets_a_new_signature(client, path, jwks, seed_doc):
    from stories import actions, desk

    old = client.get(path + "index.json")
    actions.import_story(desk.validate(dict(seed_doc, headline="A headline nobody has seen")), restore=True)
    new = client.get(path + "index.json")
    assert new["Signature"] != old["Signature"]
    verify_response(new, "http://testserver" + path + "index.json", jwks)


def test_a_query_string_is_signed_but_not_stored(client, path, jwks):
    url = path + "index.txt?utm_source=x"
    response = client.get(url)
    verify_response(response, "http://testserver" + url, jwks)
    with pytest.raises(InvalidSignature):
        verify_response(response, "http://testserver" + path + "index.txt", jwks)


def test_head_is_signed_over_the_body_a_get_returns(client, path, jwks):
    get = client.get(path + "index.txt")
    head = client.head(path + "index.txt")
    assert head["Content-Digest"] == get["Content-Digest"]
    assert head["Signature"] == get["Signature"]


def test_a_missing_story_is_not_signed(client):
    response = client.get("/stories/2026-10-16/no-such-story/index.json")
    assert response.status_code == 404
    assert "Signature" not in response


@pytest.mark.parametrize(
    "name", ["story-detail", "story-json", "story-markdown", "story-text", "api-story", "api-story-ninjs"]
)
def test_every_signed_route_keeps_its_signing(name):
    from django.urls import resolve, reverse

    args = [81] if name.startswith("api") else ["2026-10-16", "a-story"]
    assert getattr(resolve(reverse(name, args=args)).func, "signed", False), name


def test_the_partner_guide_snippet_verifies_a_real_http_response(demo, settings):
    """docs/api.md's few lines, with an httpx client talking to this site in process."""
    import base64

    import httpx
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from http_message_signatures import HTTPMessageVerifier, MappingKeyResolver, algorithms

    from tests.signatures import in_process_site

    site = "http://testserver"
    with httpx.Client(transport=httpx.WSGITransport(app=in_process_site)) as http:
        jwks = http.get(site + "/.well-known/http-message-signatures-directory").json()
        keys = {
            k["kid"]: Ed25519PublicKey.from_public_bytes(base64.urlsafe_b64decode(k["x"] + "=")) for k in jwks["keys"]
        }
        verifier = HTTPMessageVerifier(
            signature_algorithm=algorithms.ED25519, key_resolver=MappingKeyResolver(public_keys=keys, private_keys={})
        )
        response = http.get(site + urlsplit(demo.url).path + "index.json")
    [result] = verifier.verify(
        response,
        body=response.content,
        max_age=None,
        require_components=('"@target-uri";req', "content-type", "content-digest"),
    )
    assert result.parameters["keyid"] == jwks["keys"][0]["kid"]
