"""HTTP Message Signatures (RFC 9421) with Ed25519 over a ``Content-Digest`` (RFC 9530).

A response (a story rendering, an API answer) is signed over

    ("@target-uri";req "content-type" "content-digest");created=…;keyid="…";alg="ed25519"

and a request (a webhook delivery) over

    ("@method" "@target-uri" "content-type" "content-digest");created=…;keyid="…";alg="ed25519"

under the label ``sig1``; ``keyid`` is the key's JWK thumbprint, listed at
``/.well-known/http-message-signatures-directory``.

A response's signature is made once per body: it is kept in the cache (and in a small
per-process table) under the target URI, content type, body digest and key id, so a warm
page costs a SHA-256 of its body and a dictionary look-up, not an Ed25519 signing.
"""

from __future__ import annotations

import base64
import hashlib
import threading
import time
from collections import OrderedDict

from django.core.cache import cache

from .keys import ALGORITHM, keyring

LABEL = "sig1"
RESPONSE_COMPONENTS = ('"@target-uri";req', '"content-type"', '"content-digest"')
REQUEST_COMPONENTS = ('"@method"', '"@target-uri"', '"content-type"', '"content-digest"')
SIGNATURE_TTL = 30 * 24 * 3600
LOCAL_SIGNATURES = 512


def now() -> int:
    """The ``created`` time of a new signature."""
    return int(time.time())


def content_digest(body: bytes) -> str:
    """RFC 9530 ``Content-Digest`` with SHA-256."""
    return "sha-256=:" + base64.b64encode(hashlib.sha256(body).digest()).decode("ascii") + ":"


def _params(components: tuple[str, ...], created: int, keyid: str) -> str:
    return f'({" ".join(components)});created={created};keyid="{keyid}";alg="{ALGORITHM}"'


def signature_base(values: dict[str, str], params: str) -> bytes:
    """RFC 9421 section 2.5: one line per covered component, then the parameters."""
    for name, value in values.items():
        if not value.isascii() or "\n" in value or "\r" in value:
            raise ValueError(f"{name} cannot be signed: not plain ASCII on one line")
    lines = [f"{name}: {value}" for name, value in values.items()]
    lines.append(f'"@signature-params": {params}')
    return "\n".join(lines).encode("ascii")


def _sign(values: dict[str, str], components: tuple[str, ...], created: int) -> dict[str, str]:
    ring = keyring()
    params = _params(components, created, ring.keyid)
    signature = ring.private.sign(signature_base(values, params))
    return {
        "Signature-Input": f"{LABEL}={params}",
        "Signature": f"{LABEL}=:{base64.b64encode(signature).decode('ascii')}:",
    }


def sign_request(*, method: str, target_uri: str, content_type: str, body: bytes, created: int | None = None) -> dict:
    """The ``Content-Digest``, ``Signature-Input`` and ``Signature`` headers of a request
    (a webhook POST), created now: each attempt is signed afresh."""
    digest = content_digest(body)
    values = {
        '"@method"': method.upper(),
        '"@target-uri"': target_uri,
        '"content-type"': content_type,
        '"content-digest"': digest,
    }
    created = now() if created is None else created
    return {"Content-Digest": digest, **_sign(values, REQUEST_COMPONENTS, created)}


_local: OrderedDict[str, dict] = OrderedDict()
_local_lock = threading.Lock()  # gthread workers share the table


def response_headers(*, target_uri: str, content_type: str, body: bytes, cacheable: bool = True) -> dict[str, str]:
    """The ``Content-Digest``, ``Signature-Input`` and ``Signature`` headers of a response
    body served at ``target_uri``: the stored signature when this body was signed before."""
    digest = content_digest(body)
    ring = keyring()
    key = "sig:" + hashlib.sha256(f"{ring.keyid}\x1f{target_uri}\x1f{content_type}\x1f{digest}".encode()).hexdigest()
    if cacheable:
        headers = _local.get(key)
        if headers is None:
            headers = cache.get(key)
            if headers is not None:
                _remember(key, headers)
        if headers is not None:
            return headers
    values = {'"@target-uri";req': target_uri, '"content-type"': content_type, '"content-digest"': digest}
    headers = {"Content-Digest": digest, **_sign(values, RESPONSE_COMPONENTS, now())}
    if cacheable:
        cache.set(key, headers, SIGNATURE_TTL)
        _remember(key, headers)
    return headers


def _remember(key: str, headers: dict) -> None:
    with _local_lock:
        _local[key] = headers
        _local.move_to_end(key)
        while len(_local) > LOCAL_SIGNATURES:
            _local.popitem(last=False)
