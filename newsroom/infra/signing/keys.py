"""The newsroom's Ed25519 signing keys: the current private key and the public keys of
retired ones, as JWKs named by their RFC 7638 thumbprint.

Settings (``docs/deploy.md``):

- ``SIGNING_KEY``: the private key itself, PEM (PKCS#8) or the 32-byte seed as base64url;
- ``SIGNING_KEY_FILE``: a file holding the same (read when ``SIGNING_KEY`` is empty);
- ``SIGNING_RETIRED_KEYS``: public keys of earlier private keys, still listed so old copies
  verify. Each entry is the key's JWK ``x`` (base64url of the 32-byte public key) or a path
  to a PEM file holding the old public or private key.

With ``DEBUG`` on (as the settings load: ``SIGNING_DEVELOPMENT_KEY``) and no key set, a
development key is derived from ``SECRET_KEY``: stable for a checkout, public in effect (the
development ``SECRET_KEY`` is in the code), never used with ``DEBUG`` off. With ``DEBUG`` off
and no key set, the site refuses to start (``require_key``, called when the project loads).
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed

ALGORITHM = "ed25519"  # RFC 9421's name for EdDSA over Ed25519
DEV_KEY_CONTEXT = b"newsroom development signing key\x00"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    text = text.strip()
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def raw_public(public: Ed25519PublicKey) -> bytes:
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


@dataclass(frozen=True)
class PublicKey:
    key: Ed25519PublicKey
    kid: str  # the RFC 7638 JWK thumbprint
    retired: bool = False

    @classmethod
    def of(cls, key: Ed25519PublicKey, *, retired: bool = False) -> PublicKey:
        return cls(key, thumbprint(key), retired)

    def jwk(self) -> dict:
        return {
            "kty": "OKP",
            "crv": "Ed25519",
            "x": b64url(raw_public(self.key)),
            "kid": self.kid,
            "alg": "EdDSA",
            "use": "sig",
        }


def thumbprint(key: Ed25519PublicKey) -> str:
    """RFC 7638: SHA-256 of the required members, sorted, without whitespace; base64url."""
    members = {"crv": "Ed25519", "kty": "OKP", "x": b64url(raw_public(key))}
    canonical = json.dumps(members, sort_keys=True, separators=(",", ":")).encode()
    return b64url(hashlib.sha256(canonical).digest())


@dataclass(frozen=True)
class Keyring:
    private: Ed25519PrivateKey
    current: PublicKey
    retired: tuple[PublicKey, ...]
    development: bool

    @property
    def keyid(self) -> str:
        return self.current.kid

    def public_keys(self) -> list[PublicKey]:
        return [self.current, *self.retired]

    def find(self, kid: str) -> PublicKey | None:
        return next((k for k in self.public_keys() if k.kid == kid), None)

    def jwks(self) -> dict:
        return {"keys": [k.jwk() for k in self.public_keys()]}


def parse_private(text: str, *, origin: str) -> Ed25519PrivateKey:
    """A private key from PEM or a base64url seed; ``origin`` names the setting in errors
    (the key itself is never shown)."""
    text = text.strip()
    if text.startswith("-----BEGIN"):
        try:
            key = serialization.load_pem_private_key(text.encode(), password=None)
        except (ValueError, TypeError) as exc:
            raise ImproperlyConfigured(f"{origin}: not a readable unencrypted PEM private key ({exc})") from None
        if not isinstance(key, Ed25519PrivateKey):
            raise ImproperlyConfigured(f"{origin}: the PEM key is not an Ed25519 key")
        return key
    try:
        seed = b64url_decode(text)
    except (binascii.Error, ValueError):
        seed = b""
    if len(seed) != 32:
        raise ImproperlyConfigured(f"{origin}: expected a PEM Ed25519 private key or 32 bytes as base64url")
    return Ed25519PrivateKey.from_private_bytes(seed)


def parse_retired(entry: str, *, origin: str) -> Ed25519PublicKey:
    entry = entry.strip()
    if "/" in entry or entry.endswith(".pem"):
        try:
            text = Path(entry).read_text(encoding="ascii")
        except (OSError, UnicodeDecodeError) as exc:
            raise ImproperlyConfigured(f"{origin}: cannot read {entry} ({exc.__class__.__name__})") from None
        if "PRIVATE KEY" in text:
            return parse_private(text, origin=f"{origin} {entry}").public_key()
        try:
            key = serialization.load_pem_public_key(text.encode())
        except ValueError as exc:
            raise ImproperlyConfigured(f"{origin}: {entry} is not a PEM public key ({exc})") from None
        if not isinstance(key, Ed25519PublicKey):
            raise ImproperlyConfigured(f"{origin}: {entry} is not an Ed25519 key")
        return key
    try:
        raw = b64url_decode(entry)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != 32:
        raise ImproperlyConfigured(f"{origin}: {entry[:12]}... is neither a file path nor a base64url public key")
    return Ed25519PublicKey.from_public_bytes(raw)


def _configured_private() -> tuple[Ed25519PrivateKey | None, bool]:
    inline = getattr(settings, "SIGNING_KEY", "") or ""
    path = getattr(settings, "SIGNING_KEY_FILE", "") or ""
    if inline.strip():
        return parse_private(inline, origin="SIGNING_KEY"), False
    if path:
        try:
            text = Path(path).read_text(encoding="ascii")
        except (OSError, UnicodeDecodeError) as exc:
            raise ImproperlyConfigured(f"SIGNING_KEY_FILE: cannot read {path} ({exc.__class__.__name__})") from None
        return parse_private(text, origin=f"SIGNING_KEY_FILE {path}"), False
    if getattr(settings, "SIGNING_DEVELOPMENT_KEY", False):
        seed = hashlib.sha256(DEV_KEY_CONTEXT + settings.SECRET_KEY.encode()).digest()
        return Ed25519PrivateKey.from_private_bytes(seed), True
    return None, False


@functools.cache
def keyring() -> Keyring:
    """The keys in use, loaded once per process (and again when a test changes the settings)."""
    private, development = _configured_private()
    if private is None:
        raise ImproperlyConfigured(
            "No signing key: set SIGNING_KEY (a PEM Ed25519 private key or 32 random bytes as base64url) "
            "or SIGNING_KEY_FILE (a file holding one). Stories and webhooks are signed with it; see docs/deploy.md."
        )
    current = PublicKey.of(private.public_key())
    retired = []
    for entry in getattr(settings, "SIGNING_RETIRED_KEYS", []) or []:
        key = PublicKey.of(parse_retired(entry, origin="SIGNING_RETIRED_KEYS"), retired=True)
        if key.kid != current.kid and all(k.kid != key.kid for k in retired):
            retired.append(key)
    return Keyring(private, current, tuple(retired), development)


def require_key() -> None:
    """Refuse to start without a usable key when ``DEBUG`` is off (a bad key always)."""
    keyring()


def _reset(*, setting, **kwargs):
    if setting in {"SIGNING_KEY", "SIGNING_KEY_FILE", "SIGNING_RETIRED_KEYS", "SIGNING_DEVELOPMENT_KEY", "SECRET_KEY"}:
        keyring.cache_clear()


setting_changed.connect(_reset)
