"""Verifying a webhook delivery in one call: ``verify_webhook(body, headers, ...)``.

Two signatures, whichever the delivery carries and you hold the key for:

- ``X-Signature: t=<unix time>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`` with the
  endpoint's secret (``whsec_…``);
- RFC 9421 HTTP Message Signatures (``Signature-Input`` / ``Signature``), Ed25519 over a
  ``Content-Digest`` (RFC 9530, ``sha-256``) of the body, ``keyid`` the RFC 7638 JWK
  thumbprint of one of the site's public keys (its JWK Set at
  ``/.well-known/http-message-signatures-directory``: ``Client.signature_keys()``).
  Needs ``pip install 'newsroom-client[signatures]'``.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import InvalidSignature
from .types import WebhookEvent

DEFAULT_TOLERANCE = 300


@dataclass(frozen=True)
class VerifiedDelivery:
    """A delivery whose signature verified: its parsed ``event``, how (``"hmac"`` or
    ``"rfc9421"``), the ``keyid`` for an RFC 9421 signature, and the signing time."""

    event: WebhookEvent
    method: str
    created: int
    keyid: str | None = None


def _headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items()}


def verify_hmac(
    secret: str, header: str, body: bytes, *, tolerance: int = DEFAULT_TOLERANCE, now: float | None = None
) -> int:
    """Check an ``X-Signature`` header against the raw body; the signing time, or
    ``InvalidSignature`` (bad header, wrong MAC, or a time more than ``tolerance`` s off)."""
    try:
        fields = dict(part.split("=", 1) for part in header.split(","))
        timestamp = int(fields["t"])
    except (KeyError, ValueError):
        raise InvalidSignature("X-Signature is not t=<time>,v1=<hex>") from None
    if abs((now if now is not None else time.time()) - timestamp) > tolerance:
        raise InvalidSignature(f"X-Signature's time is more than {tolerance} s off: a replay, or a wrong clock")
    expected = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, fields.get("v1", "")):
        raise InvalidSignature("X-Signature does not match the body and the secret")
    return timestamp


# --------------------------------------------------------------------------- RFC 9421


def _b64url(data: str) -> bytes:
    return base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))


def jwk_thumbprint(jwk: Mapping[str, Any]) -> str:
    """The RFC 7638 thumbprint (SHA-256, base64url) of an Ed25519 public JWK."""
    canonical = json.dumps({"crv": jwk["crv"], "kty": jwk["kty"], "x": jwk["x"]}, separators=(",", ":"), sort_keys=True)
    return base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()).rstrip(b"=").decode()


def ed25519_keys(jwks: Mapping[str, Any]) -> dict[str, Any]:
    """The Ed25519 public keys of a JWK Set, by their computed thumbprint (a ``kid`` the set
    states is not trusted: the thumbprint is recomputed from the key)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    keys = {}
    for jwk in jwks.get("keys", []):
        if not isinstance(jwk, Mapping) or jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519" or "x" not in jwk:
            continue
        try:
            keys[jwk_thumbprint(jwk)] = Ed25519PublicKey.from_public_bytes(_b64url(jwk["x"]))
        except ValueError:
            continue
    return keys


class _Message:
    """What the verifier reads of the request the partner received."""

    def __init__(self, method: str, url: str, headers: Mapping[str, str]):
        from http_message_signatures.structures import CaseInsensitiveDict

        self.method, self.url = method, url
        self.headers = CaseInsensitiveDict(dict(headers))


def verify_rfc9421(
    body: bytes,
    headers: Mapping[str, str],
    jwks: Mapping[str, Any],
    *,
    url: str,
    method: str = "POST",
    tolerance: int = DEFAULT_TOLERANCE,
) -> tuple[str, int]:
    """Verify an RFC 9421 signature of a request (``url``: the partner's endpoint as
    delivered to): Ed25519 with a key of ``jwks``, covering ``content-digest``, which must
    be the body's digest, made at most ``tolerance`` s ago. Returns (keyid, created) or
    raises ``InvalidSignature``."""
    from http_message_signatures import HTTPMessageVerifier, MappingKeyResolver, algorithms
    from http_message_signatures.exceptions import HTTPMessageSignaturesException

    resolver = MappingKeyResolver(public_keys=ed25519_keys(jwks), private_keys={})
    verifier = HTTPMessageVerifier(signature_algorithm=algorithms.ED25519, key_resolver=resolver)
    try:
        # ``body``: the package checks the signed Content-Digest against the bytes received.
        results = verifier.verify(
            _Message(method, url, headers),
            max_age=dt.timedelta(seconds=tolerance),
            require_components=("content-digest",),
            body=body,
        )
    except (HTTPMessageSignaturesException, KeyError, ValueError) as exc:
        raise InvalidSignature(f"RFC 9421 signature does not verify: {exc}") from None
    if not results:
        raise InvalidSignature("RFC 9421: no signature to verify")
    return str(results[0].parameters.get("keyid")), int(results[0].parameters.get("created", 0))


def verify_webhook(
    body: bytes,
    headers: Mapping[str, str],
    *,
    secret: str | None = None,
    jwks: Mapping[str, Any] | None = None,
    url: str | None = None,
    tolerance: int = DEFAULT_TOLERANCE,
    now: float | None = None,
) -> VerifiedDelivery:
    """Verify a webhook delivery and return its parsed body, or raise ``InvalidSignature``.

    ``body`` is the raw body as received (before any JSON parsing), ``headers`` the request's
    headers. With ``jwks`` (the site's JWK Set) and ``url`` (your endpoint's URL as
    delivered to), an RFC 9421 signature is verified when the delivery has one; with
    ``secret`` the ``X-Signature`` HMAC. What you hold keys for must verify: a delivery
    carrying neither signature you can check is refused."""
    h = _headers(headers)
    if jwks is not None and "signature-input" in h and "signature" in h:
        if url is None:
            raise ValueError("url: the RFC 9421 signature covers the target URI; pass your endpoint's URL")
        keyid, created = verify_rfc9421(body, headers, jwks, url=url, tolerance=tolerance)
        return VerifiedDelivery(_event(body), "rfc9421", created, keyid)
    if secret is not None and "x-signature" in h:
        created = verify_hmac(secret, h["x-signature"], body, tolerance=tolerance, now=now)
        return VerifiedDelivery(_event(body), "hmac", created)
    if secret is None and jwks is None:
        raise ValueError("pass secret (the endpoint's whsec_… secret) or jwks (the site's public keys)")
    raise InvalidSignature("the delivery carries no signature that the given secret or keys can check")


def _event(body: bytes) -> WebhookEvent:
    try:
        event = json.loads(body)
    except ValueError:
        raise InvalidSignature("the signed body is not JSON") from None
    if not isinstance(event, dict):
        raise InvalidSignature("the signed body is not a JSON object")
    return event  # type: ignore[return-value]
