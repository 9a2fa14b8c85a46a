"""Checking a signed message against a set of public keys: what ``manage.py verify_story``
does with a rendering. (The tests check the site's signatures with an independent package;
this is the site's own reader, with messages that name what is wrong.)"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import hashlib
import re
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from .keys import ALGORITHM
from .messages import LABEL


class VerificationFailed(Exception):
    """The message does not verify; the text says why, for a person."""


@dataclass(frozen=True)
class Verified:
    keyid: str
    created: dt.datetime | None
    components: tuple[str, ...]


# --------------------------------------------------------------------------- RFC 8941, the part signatures use

_KEY = re.compile(r"[a-z*][a-z0-9_.*-]*")
_TOKEN = re.compile(r"[A-Za-z*][!#$%&'*+\-.^_`|~:/0-9A-Za-z]*")
_INTEGER = re.compile(r"-?[0-9]{1,15}")


class _Parser:
    def __init__(self, text: str):
        self.text, self.i = text, 0

    def fail(self, what: str):
        raise ValueError(f"{what} at character {self.i}")

    def peek(self) -> str:
        return self.text[self.i : self.i + 1]

    def spaces(self):
        while self.peek() in (" ", "\t") and self.peek():
            self.i += 1

    def match(self, pattern: re.Pattern) -> str:
        m = pattern.match(self.text, self.i)
        if not m:
            self.fail("unexpected text")
        self.i = m.end()
        return m.group()

    def bare_item(self):
        c = self.peek()
        if c == '"':
            self.i += 1
            out = []
            while True:
                c = self.peek()
                if not c:
                    self.fail("unterminated string")
                self.i += 1
                if c == "\\":
                    out.append(self.peek())
                    self.i += 1
                elif c == '"':
                    return "".join(out)
                else:
                    out.append(c)
        if c == ":":
            end = self.text.find(":", self.i + 1)
            if end < 0:
                self.fail("unterminated byte sequence")
            raw, self.i = self.text[self.i + 1 : end], end + 1
            try:
                return base64.b64decode(raw, validate=True)
            except binascii.Error:
                self.fail("bad base64")
        if c == "?":
            value = self.text[self.i + 1 : self.i + 2]
            if value not in ("0", "1"):
                self.fail("bad boolean")
            self.i += 2
            return value == "1"
        if c == "-" or c.isdigit():
            return int(self.match(_INTEGER))
        return self.match(_TOKEN)

    def params(self) -> dict:
        out = {}
        while self.peek() == ";":
            self.i += 1
            self.spaces()
            name = self.match(_KEY)
            value = True
            if self.peek() == "=":
                self.i += 1
                value = self.bare_item()
            out[name] = value
        return out

    def member(self):
        if self.peek() == "(":
            self.i += 1
            items = []
            while True:
                self.spaces()
                if self.peek() == ")":
                    self.i += 1
                    break
                start = self.i
                self.bare_item()
                self.params()
                items.append(self.text[start : self.i])
            return items, self.params()
        return self.bare_item(), self.params()

    def dictionary(self) -> dict:
        out = {}
        self.spaces()
        while self.i < len(self.text):
            name = self.match(_KEY)
            if self.peek() != "=":
                self.fail("expected '='")
            self.i += 1
            out[name] = self.member()
            self.spaces()
            if self.i < len(self.text):
                if self.peek() != ",":
                    self.fail("expected ','")
                self.i += 1
                self.spaces()
        return out


def _serialize_params(params: dict) -> str:
    out = []
    for name, value in params.items():
        if value is True:
            out.append(f";{name}")
        elif isinstance(value, int) and not isinstance(value, bool):
            out.append(f";{name}={value}")
        else:
            text = str(value).replace("\\", "\\\\").replace('"', '\\"')
            out.append(f';{name}="{text}"')
    return "".join(out)


# --------------------------------------------------------------------------- verification


def _digest_ok(header: str, body: bytes) -> bool:
    try:
        members = _Parser(header).dictionary()
    except ValueError:
        raise VerificationFailed("malformed Content-Digest header") from None
    value = members.get("sha-256", (None, {}))[0]
    if not isinstance(value, bytes):
        raise VerificationFailed("the Content-Digest has no sha-256 digest")
    return value == hashlib.sha256(body).digest()


def verify(
    *,
    headers: dict[str, str],
    body: bytes,
    target_uri: str,
    keys: dict[str, Ed25519PublicKey],
    method: str | None = None,
) -> Verified:
    """Verify a response (``method`` None) or a request, whose lower-cased ``headers`` and
    ``body`` are as received from ``target_uri``. Raises ``VerificationFailed``."""
    if "signature-input" not in headers or "signature" not in headers:
        raise VerificationFailed("missing signature: no Signature-Input and Signature headers")
    try:
        inputs = _Parser(headers["signature-input"]).dictionary()
        signatures = _Parser(headers["signature"]).dictionary()
    except ValueError as exc:
        raise VerificationFailed(f"malformed signature headers ({exc})") from None
    label = LABEL if LABEL in inputs else next(iter(inputs), None)
    if label is None or label not in signatures:
        raise VerificationFailed("missing signature: the Signature header has no entry for the Signature-Input")
    components, params = inputs[label]
    signature = signatures[label][0]
    if not isinstance(components, list) or not isinstance(signature, bytes):
        raise VerificationFailed("malformed signature headers")
    target = '"@target-uri";req' if method is None else '"@target-uri"'
    for needed in (target, '"content-digest"'):
        if needed not in components:
            raise VerificationFailed(f"the signature does not cover {needed}")
    if "content-digest" not in headers:
        raise VerificationFailed("missing Content-Digest header")
    if not _digest_ok(headers["content-digest"], body):
        raise VerificationFailed("tampered body: its SHA-256 does not match the signed Content-Digest")
    keyid = params.get("keyid")
    if params.get("alg", ALGORITHM) != ALGORITHM:
        raise VerificationFailed(f"unsupported algorithm {params.get('alg')!r} (expected {ALGORITHM})")
    if keyid not in keys:
        raise VerificationFailed(f"unknown key: keyid {keyid!r} is not among the published keys")
    lines = []
    for component in components:
        if component == '"@target-uri";req' or component == '"@target-uri"':
            value = target_uri
        elif component == '"@method"' and method is not None:
            value = method
        elif component.startswith('"') and component.endswith('"') and not component.startswith('"@'):
            name = component[1:-1]
            if name not in headers:
                raise VerificationFailed(f"the signed header {name} is missing")
            value = headers[name]
        else:
            raise VerificationFailed(f"unsupported signed component {component}")
        lines.append(f"{component}: {value}")
    lines.append(f'"@signature-params": ({" ".join(components)}){_serialize_params(params)}')
    try:
        keys[keyid].verify(signature, "\n".join(lines).encode())
    except (InvalidSignature, UnicodeEncodeError):
        raise VerificationFailed(
            "bad signature: the signature does not match this body, URL and headers under key " + keyid
        ) from None
    created = params.get("created")
    when = dt.datetime.fromtimestamp(created, tz=dt.UTC) if isinstance(created, int) else None
    return Verified(keyid, when, tuple(components))
