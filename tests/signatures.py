"""Verifying the site's signatures with the independent ``http-message-signatures`` package
(not the site's own code): what a partner does with a rendering, an API answer or a webhook."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from http_message_signatures import HTTPMessageVerifier, InvalidSignature, MappingKeyResolver, algorithms

__all__ = [
    "InvalidSignature",
    "in_process_site",
    "jwks_resolver",
    "pem_of",
    "seed_of",
    "verify_request",
    "verify_response",
    "x_of",
]


def _b64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def jwks_resolver(jwks: dict) -> MappingKeyResolver:
    keys = {
        k["kid"]: Ed25519PublicKey.from_public_bytes(_b64url(k["x"]))
        for k in jwks["keys"]
        if k.get("kty") == "OKP" and k.get("crv") == "Ed25519"
    }
    return MappingKeyResolver(public_keys=keys, private_keys={})


@dataclass
class Request:
    method: str
    url: str
    headers: dict = field(default_factory=dict)


@dataclass
class Response:
    status_code: int
    headers: dict
    request: Request


def _verifier(jwks: dict) -> HTTPMessageVerifier:
    return HTTPMessageVerifier(signature_algorithm=algorithms.ED25519, key_resolver=jwks_resolver(jwks))


def verify_response(response, url: str, jwks: dict, *, body: bytes | None = None, method: str = "GET"):
    """Verify a Django test response fetched from ``url`` (its body, or ``body`` instead)."""
    headers = dict(response.items())
    message = Response(response.status_code, headers, Request(method, url))
    return _verifier(jwks).verify(
        message,
        max_age=None,
        body=response.content if body is None else body,
        require_components=('"@target-uri";req', "content-digest", "content-type"),
    )


def verify_request(*, method: str, url: str, headers: dict, body: bytes, jwks: dict):
    """Verify a request as a receiver got it (a webhook delivery)."""
    return _verifier(jwks).verify(
        Request(method, url, headers),
        max_age=None,
        body=body,
        require_components=("@method", "@target-uri", "content-digest", "content-type"),
    )


# Key material for tests that set SIGNING_KEY / SIGNING_RETIRED_KEYS.


def seed_of(key: Ed25519PrivateKey) -> str:
    raw = key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def x_of(key: Ed25519PrivateKey) -> str:
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def pem_of(key: Ed25519PrivateKey) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def in_process_site(environ, start_response):
    """This site as a WSGI app that, as Django's test client does, leaves the test's database
    connection open (a real request closes it at its start and end)."""
    from django.core.handlers.wsgi import WSGIHandler
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        result = WSGIHandler()(environ, start_response)
        body = list(result)
        result.close()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    return body
