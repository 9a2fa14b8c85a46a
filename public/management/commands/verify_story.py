"""``manage.py verify_story URL_OR_FILE``: is this rendering of a story what the newsroom
signed, which version is it, and was the story corrected since?

The rendering is fetched (``https://…/stories/<date>/<slug>/index.json``, the story page,
``index.md``, ``index.txt``, or an API answer) or read from a file saved with its headers
(``curl -i URL > copy.http``). Its RFC 9421 signature is checked against the keys published at
the signer's ``/.well-known/http-message-signatures-directory`` (or ``--keys local``: this
installation's own keys; ``--keys FILE_OR_URL``: a JWK Set). Exit status 1 on any failure.

Every answer is read up to ``MAX_FILE_BYTES``. A URL typed on the command line is fetched as
given (a staging site on this machine included); a URL a saved file names (its canonical
link) must be http(s) and may not name this machine or a private address: pass ``--url``.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from django.core.management.base import BaseCommand, CommandError

from newsroom.infra.signing import keyring
from newsroom.infra.signing.verify import VerificationFailed, verify

DIRECTORY_PATH = "/.well-known/http-message-signatures-directory"
TIMEOUT = 10.0
MAX_FILE_BYTES = 20 * 1024 * 1024
RENDERING_BY_TYPE = {"application/json": "index.json", "text/markdown": "index.md", "text/plain": "index.txt"}


def http_client() -> httpx.Client:
    # One place to make the client (the tests hand it the site itself).
    return httpx.Client(timeout=TIMEOUT, follow_redirects=True, headers={"Accept-Encoding": "identity"})


class Copy:
    """A rendering as received: status, lower-cased headers, body, and the URL(s) it may
    have been fetched from (a saved file does not say; its canonical link suggests)."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes, urls: list[str]):
        self.status, self.headers, self.body, self.urls = status, headers, body, urls


class TooLarge(httpx.HTTPError):
    """An answer longer than ``MAX_FILE_BYTES`` (read no further)."""


class Answer:
    def __init__(self, status: int, headers: dict[str, str], content: bytes, url: str):
        self.status_code, self.headers, self.content, self.url = status, headers, content, url

    def json(self):
        return json.loads(self.content)


def get(client: httpx.Client, url: str) -> Answer:
    """GET ``url``, reading at most ``MAX_FILE_BYTES`` of its (decoded) body: a hostile or
    broken site cannot make the command hold an endless answer in memory."""
    chunks, size = [], 0
    with client.stream("GET", url) as response:
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > MAX_FILE_BYTES:
                raise TooLarge(f"more than {MAX_FILE_BYTES} bytes")
            chunks.append(chunk)
        headers = {k.lower(): v for k, v in response.headers.items()}
        return Answer(response.status_code, headers, b"".join(chunks), str(response.url))


def fetch(client: httpx.Client, url: str) -> Copy:
    try:
        response = get(client, url)
    except TooLarge:
        raise CommandError(f"could not fetch {plain(url)}: the answer is larger than {MAX_FILE_BYTES} bytes") from None
    except httpx.HTTPError as exc:
        raise CommandError(f"could not fetch {plain(url)}: {exc.__class__.__name__}") from None
    return Copy(response.status_code, response.headers, response.content, [response.url])


def read_saved(path: Path, url: str | None) -> Copy:
    """A file as ``curl -i`` saves it: status line, headers, blank line, body."""
    try:
        data = path.read_bytes()[: MAX_FILE_BYTES + 1]
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror or exc.__class__.__name__}") from None
    if len(data) > MAX_FILE_BYTES:
        raise CommandError(f"{path} is larger than {MAX_FILE_BYTES} bytes")
    status, headers = None, {}
    while data.startswith(b"HTTP/"):
        ends = [i for i in (data.find(b"\r\n\r\n"), data.find(b"\n\n")) if i >= 0]
        if not ends:
            raise CommandError(f"{path}: the headers never end (no blank line before the body)")
        end = min(ends)
        head, data = data[:end].decode("latin-1"), data[end + (4 if data[end : end + 4] == b"\r\n\r\n" else 2) :]
        lines = head.replace("\r\n", "\n").split("\n")
        try:
            status = int(lines[0].split()[1])
        except (IndexError, ValueError):
            raise CommandError(f"{path}: not a status line: {lines[0][:60]!r}") from None
        headers = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if sep:
                name = name.strip().lower()
                headers[name] = f"{headers[name]}, {value.strip()}" if name in headers else value.strip()
    if status is None:
        raise CommandError(f"{path}: no HTTP status line and headers (save the rendering with `curl -i URL`)")
    urls = [url] if url else _guess_urls(headers)
    if not urls:
        raise CommandError(f"{path}: cannot tell which URL this was fetched from; pass --url")
    if not url and _local_host(urls[0]):
        # The copy chose this URL, not the person running the command: never let a file
        # send the command to this machine or its private network.
        raise CommandError(f"{path}: its canonical link names a local address ({plain(urls[0])}); pass --url")
    return Copy(status, headers, data, urls)


def _local_host(url: str) -> bool:
    """Whether ``url`` names this machine or a private, link-local or reserved address."""
    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    if host == "localhost" or host.endswith((".localhost", ".local", ".internal")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return not address.is_global


def _canonical(headers: dict) -> str | None:
    m = re.search(r'<([^>]+)>\s*;\s*rel="?canonical"?', headers.get("link", ""))
    return m.group(1) if m else None


def _guess_urls(headers: dict) -> list[str]:
    page = _canonical(headers)
    if page is None or not re.match(r"https?://", page):
        return []  # a file:, data: or relative link names no place to fetch the keys from
    kind = headers.get("content-type", "").split(";")[0].strip()
    return [page + RENDERING_BY_TYPE[kind]] if kind in RENDERING_BY_TYPE else [page]


def plain(value) -> str:
    """Text from the copy or the site, safe to print: control characters (terminal escapes,
    line breaks) shown as U+FFFD, length capped."""
    text = str(value)[:500]
    return "".join(c if c.isprintable() else "\ufffd" for c in text)


def _b64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def keys_from_jwks(document, origin: str) -> dict[str, Ed25519PublicKey]:
    keys = {}
    try:
        for jwk in document["keys"]:
            if jwk.get("kty") == "OKP" and jwk.get("crv") == "Ed25519" and "kid" in jwk:
                keys[jwk["kid"]] = Ed25519PublicKey.from_public_bytes(_b64url(jwk["x"]))
    except (KeyError, TypeError, ValueError, binascii.Error):
        raise CommandError(f"{origin} is not a JWK Set of Ed25519 keys") from None
    if not keys:
        raise CommandError(f"{origin} lists no Ed25519 keys")
    return keys


class Command(BaseCommand):
    help = "Check a story rendering's signature against the published keys; say which version it is."

    def add_arguments(self, parser):
        parser.add_argument("source", metavar="URL_OR_FILE", help="a rendering's URL, or a file saved by curl -i")
        parser.add_argument("--url", help="the URL a saved file was fetched from (default: from its Link header)")
        parser.add_argument(
            "--keys",
            help="'local' (this installation's keys), or a JWK Set URL or file "
            "(default: the signer's /.well-known/http-message-signatures-directory)",
        )

    def handle(self, *args, source, url=None, keys=None, **options):
        with http_client() as client:
            if re.match(r"https?://", source):
                copy = fetch(client, source)
            else:
                copy = read_saved(Path(source), url)
            if copy.status != 200:
                raise CommandError(f"the rendering answered HTTP {copy.status}, not 200: nothing signed to check")
            if "signature" not in copy.headers or "signature-input" not in copy.headers:
                raise CommandError("NOT VERIFIED: missing signature: no Signature-Input and Signature headers")
            public_keys, current = self.load_keys(client, keys, copy.urls[0])
            target, verified, failure = None, None, None
            for candidate in copy.urls:
                try:
                    verified = verify(headers=copy.headers, body=copy.body, target_uri=candidate, keys=public_keys)
                    target = candidate
                    break
                except VerificationFailed as exc:
                    failure = exc
            if verified is None:
                raise CommandError(f"NOT VERIFIED: {plain(failure)}")
            which = "the current key" if verified.keyid == current else "a retired key, still published"
            when = verified.created.strftime("%Y-%m-%dT%H:%M:%SZ") if verified.created else "an unknown time"
            self.stdout.write(f"Signature valid: {plain(target)}")
            self.stdout.write(f"  signed with {which} ({verified.keyid}) at {when}")
            self.report_story(client, copy, target, verified)

    def load_keys(self, client, keys: str | None, target: str) -> tuple[dict, str | None]:
        if keys == "local":
            ring = keyring()
            return {k.kid: k.key for k in ring.public_keys()}, ring.keyid
        if keys and not re.match(r"https?://", keys):
            try:
                document = json.loads(Path(keys).read_text(encoding="utf-8"))
            except (OSError, ValueError, RecursionError) as exc:
                raise CommandError(f"cannot read the key set {keys}: {exc.__class__.__name__}") from None
            found = keys_from_jwks(document, keys)
            return found, next(iter(found))
        parts = urlsplit(target)
        location = keys or f"{parts.scheme}://{parts.netloc}{DIRECTORY_PATH}"
        try:
            response = get(client, location)
            if response.status_code != 200:
                raise httpx.HTTPError(f"HTTP {response.status_code}")
            document = response.json()
        except (httpx.HTTPError, ValueError, RecursionError) as exc:
            raise CommandError(f"could not read the published keys at {location}: {exc.__class__.__name__}") from None
        found = keys_from_jwks(document, location)
        return found, next(iter(found))  # the directory lists the current key first

    def report_story(self, client, copy: Copy, target: str, verified) -> None:
        """Which story and version this is, and what changed since (from the public index.json)."""
        story_url = self.story_url(copy, target)
        if story_url is None:
            self.stdout.write("  (not a story rendering: no story to look up)")
            return
        origin = urlsplit(target)
        lookup = f"{origin.scheme}://{origin.netloc}{urlsplit(story_url).path}index.json"
        try:
            response = get(client, lookup)
            current = response.json() if response.status_code == 200 else None
        except (httpx.HTTPError, ValueError, RecursionError):
            current = None
        if not isinstance(current, dict):
            self.stdout.write(f"  story {plain(story_url)}: could not look up its current version at {plain(lookup)}")
            return
        self.stdout.write(f"  story {plain(current.get('id'))}: {plain(current.get('headline'))} ({plain(story_url)})")
        self.report_version(client, copy, target, verified, current)

    def story_url(self, copy: Copy, target: str) -> str | None:
        link = _canonical(copy.headers)
        if link:
            return link
        try:
            body = json.loads(copy.body)
        except (ValueError, RecursionError):
            return None
        if isinstance(body, dict):
            url = body.get("url") or body.get("uri")
            return url if isinstance(url, str) and "/stories/" in url else None
        return None

    def report_version(self, client, copy: Copy, target: str, verified, current: dict) -> None:
        corrections = [c for c in current.get("corrections") or [] if isinstance(c, dict)]
        signed_at = verified.created.strftime("%Y-%m-%dT%H:%M:%SZ") if verified.created else None
        if "/api/" not in urlsplit(target).path:
            try:
                now = get(client, target)
                same = now.status_code == 200 and now.headers.get("content-digest") == copy.headers["content-digest"]
            except httpx.HTTPError:
                same = None
        else:
            same = None
        try:
            body = json.loads(copy.body)
        except (ValueError, RecursionError):
            body = None
        if isinstance(body, dict) and body.get("version"):
            created = plain(body.get("versionCreated") or "")
            self.stdout.write(f"  version {plain(body['version'])} (ninjs), {created}".rstrip(", "))
        if same:
            self.stdout.write(f"  this is the current version of the story ({len(corrections)} correction(s) in all)")
        elif same is False:
            self.stdout.write("  this is an earlier version: the story has changed since this copy was signed")
        since = [c for c in corrections if signed_at and str(c.get("corrected_at", "")) > signed_at]
        if not since:
            self.stdout.write("  corrected since: no")
            return
        self.stdout.write(f"  corrected since: yes, {len(since)} time(s)")
        for c in since:
            kind, text = plain(c.get("kind", "correction")), plain(c.get("text", ""))
            self.stdout.write(f"    {plain(c.get('corrected_at'))} {kind}: {text}")
