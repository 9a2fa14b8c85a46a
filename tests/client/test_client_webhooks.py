"""Verifying webhook deliveries in one call: the site's HMAC header (signed by the site's own
code) and RFC 9421 signatures (Ed25519 over Content-Digest, keys as a JWK Set) made here with
the ``cryptography`` and ``http-message-signatures`` packages."""

import base64
import datetime as dt
import hashlib
import json
import time

import pytest
from newsroom_client import InvalidSignature, verify_webhook
from newsroom_client.webhooks import jwk_thumbprint

BODY = json.dumps(
    {"event": "story.published", "delivery_id": "d-1", "created_at": "2026-10-16T00:39:10Z", "story": {"id": "81"}},
    separators=(",", ":"),
).encode()
SECRET = "whsec_test"
URL = "https://partner.example/hook"


def hmac_headers(body=BODY, secret=SECRET, at=None):
    from syndication.webhooks import sign

    return {"X-Event": "story.published", "X-Signature": sign(secret, int(at or time.time()), body)}


def test_the_sites_hmac_signature_verifies_and_the_event_is_returned():
    delivery = verify_webhook(BODY, hmac_headers(), secret=SECRET)
    assert delivery.method == "hmac" and delivery.event["story"]["id"] == "81"


@pytest.mark.parametrize(
    ("body", "headers", "why"),
    [
        (BODY + b" ", None, "does not match"),
        (BODY, {"X-Signature": "nonsense"}, "is not t="),
        (BODY, "old", "more than 300 s off"),
        (BODY, "other secret", "does not match"),
    ],
)
def test_a_tampered_replayed_or_foreign_hmac_delivery_is_refused(body, headers, why):
    if headers is None:
        headers = hmac_headers()
    elif headers == "old":
        headers = hmac_headers(at=time.time() - 3600)
    elif headers == "other secret":
        headers = hmac_headers(secret="whsec_other")
    with pytest.raises(InvalidSignature, match=why):
        verify_webhook(body, headers, secret=SECRET)


def test_verify_needs_a_secret_or_keys_and_a_signature_it_can_check():
    with pytest.raises(ValueError, match="secret"):
        verify_webhook(BODY, hmac_headers())
    with pytest.raises(InvalidSignature, match="no signature"):
        verify_webhook(BODY, {"X-Event": "story.published"}, secret=SECRET)


# --------------------------------------------------------------------------- RFC 9421


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@pytest.fixture
def site_key():
    """A site signing key: (private key, its public JWK, keyid = its RFC 7638 thumbprint)."""
    pytest.importorskip("http_message_signatures", reason="RFC 9421 needs the [signatures] extra")
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    private = Ed25519PrivateKey.generate()
    raw = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    jwk = {"kty": "OKP", "crv": "Ed25519", "x": b64url(raw)}
    return private, jwk, jwk_thumbprint(jwk)


class Request:
    def __init__(self, body, headers):
        self.method, self.url, self.body = "POST", URL, body
        from http_message_signatures.structures import CaseInsensitiveDict

        self.headers = CaseInsensitiveDict(headers)


def signed(private, keyid, body=BODY, covered=("@method", "@target-uri", "content-digest"), created=None):
    from http_message_signatures import HTTPMessageSigner, HTTPSignatureKeyResolver, algorithms

    class Resolver(HTTPSignatureKeyResolver):
        def resolve_private_key(self, key_id):
            return private

        def resolve_public_key(self, key_id):  # pragma: no cover
            raise NotImplementedError

    digest = base64.b64encode(hashlib.sha256(body).digest()).decode()
    request = Request(body, {"Content-Type": "application/json", "Content-Digest": f"sha-256=:{digest}:"})
    HTTPMessageSigner(signature_algorithm=algorithms.ED25519, key_resolver=Resolver()).sign(
        request, key_id=keyid, covered_component_ids=covered, label="sig1", created=created, use_existing_digest=True
    )
    return dict(request.headers)


def test_an_rfc_9421_signature_verifies_with_the_sites_jwk_set(site_key):
    private, jwk, keyid = site_key
    jwks = {"keys": [{**jwk, "kid": keyid, "alg": "EdDSA", "use": "sig"}]}
    delivery = verify_webhook(BODY, signed(private, keyid), jwks=jwks, url=URL)
    assert delivery.method == "rfc9421" and delivery.keyid == keyid and delivery.event["event"] == "story.published"


def test_rfc_9421_is_preferred_when_both_signatures_and_both_keys_are_given(site_key):
    private, jwk, keyid = site_key
    headers = {**signed(private, keyid), **hmac_headers()}
    assert verify_webhook(BODY, headers, jwks={"keys": [jwk]}, secret=SECRET, url=URL).method == "rfc9421"


def test_a_tampered_body_fails_even_with_its_digest_recomputed(site_key):
    private, jwk, keyid = site_key
    headers = signed(private, keyid)
    with pytest.raises(InvalidSignature, match="Content-Digest"):
        verify_webhook(BODY.replace(b"81", b"82"), headers, jwks={"keys": [jwk]}, url=URL)
    forged = BODY.replace(b"81", b"82")
    headers["Content-Digest"] = f"sha-256=:{base64.b64encode(hashlib.sha256(forged).digest()).decode()}:"
    with pytest.raises(InvalidSignature, match="does not verify"):
        verify_webhook(forged, headers, jwks={"keys": [jwk]}, url=URL)


def test_an_unknown_key_a_wrong_url_an_old_signature_or_an_uncovered_digest_fail(site_key):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    private, jwk, keyid = site_key
    other = Ed25519PrivateKey.generate()
    cases = [
        (signed(other, keyid), URL),  # a key the site does not list, claiming the site's keyid
        (signed(private, keyid), "https://elsewhere.example/hook"),  # replayed to another endpoint
        (signed(private, keyid, created=dt.datetime.now(dt.UTC) - dt.timedelta(hours=1)), URL),
    ]
    for headers, url in cases:
        with pytest.raises(InvalidSignature):
            verify_webhook(BODY, headers, jwks={"keys": [jwk]}, url=url)
    with pytest.raises(InvalidSignature, match="content-digest"):
        verify_webhook(BODY, signed(private, keyid, covered=("@method", "@target-uri")), jwks={"keys": [jwk]}, url=URL)


def test_a_kid_in_the_set_is_not_trusted_the_thumbprint_is_recomputed(site_key):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    keyid = site_key[2]
    impostor = Ed25519PrivateKey.generate()
    # The set lists the impostor's key under the genuine keyid as its "kid".
    raw = impostor.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    jwks = {"keys": [{"kty": "OKP", "crv": "Ed25519", "x": b64url(raw), "kid": keyid}]}
    with pytest.raises(InvalidSignature):
        verify_webhook(BODY, signed(impostor, keyid), jwks=jwks, url=URL)


def test_the_rfc_7638_thumbprint_matches_the_rfc_8037_example():
    # RFC 8037 appendix A.3: the thumbprint of its Ed25519 example key.
    jwk = {"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}
    assert jwk_thumbprint(jwk) == "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"
