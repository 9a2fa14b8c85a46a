"""The manifest provider client: fetch manifests and their claims by id and store them.

``fetch_manifests(ids)`` asks the provider (``settings.MANIFEST_PROVIDER_URL``, with the
Bearer key ``settings.MANIFEST_PROVIDER_KEY``) for each id, maps each reply with the
configured adapter (``manifests.adapters``) and upserts the manifest, its publisher and its
claims in one transaction per manifest. A failed fetch writes nothing and loses nothing.
Outcomes and retries are documented in docs/manifest-provider.md.

The key is a secret: it is sent only in the ``Authorization`` header (never to a redirect
target), never logged, and scrubbed from every message this module produces.
"""

import dataclasses
import datetime as dt
import email.utils
import functools
import http.client
import logging
import random
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from newsroom.infra.jsondoc import ID_RE, FormatError, loads

from .adapters import get_adapter
from .formats import upsert_manifest
from .models import Claim, Manifest

# Diagnostics only, at DEBUG: callers report outcomes themselves (the command's lines and
# summary, the admin's messages), so nothing is said twice or drawn across a progress bar.
logger = logging.getLogger(__name__)

FETCHED = "fetched"
UNCHANGED = "unchanged"
NOT_FOUND = "not found"
FAILED = "failed"
SKIPPED = "skipped"
OUTCOMES = (FETCHED, UNCHANGED, NOT_FOUND, FAILED, SKIPPED)

# A manifest is a few kilobytes; a reply this large is not one, and reading it all would
# only waste memory.
MAX_REPLY_BYTES = 5 * 1024 * 1024
USER_AGENT = "hangingcontext-newsroom/1 (manifest fetcher)"

# Tests replace it to see the waits without waiting.
sleep = time.sleep


@dataclasses.dataclass(frozen=True)
class Result:
    """What happened to one id. ``stubs_left``: cited claim ids still without text after a
    successful fetch (the provider's reply did not list them)."""

    manifest_id: str
    outcome: str
    message: str = ""
    stubs_left: tuple[str, ...] = ()


@dataclasses.dataclass
class Summary:
    results: list[Result] = dataclasses.field(default_factory=list)

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(OUTCOMES, 0)
        for result in self.results:
            counts[result.outcome] += 1
        return counts

    def with_outcome(self, *outcomes: str) -> list[Result]:
        return [r for r in self.results if r.outcome in outcomes]

    def line(self) -> str:
        """``3 fetched, 1 unchanged, 0 not found, 1 failed, 2 skipped``."""
        return ", ".join(f"{n} {outcome}" for outcome, n in self.counts().items())


class ProviderError(Exception):
    """A fetch that did not give a usable reply. ``stop``: later ids would fail the same
    way (the key is refused, or the provider asks us to go away for a long time)."""

    def __init__(self, outcome: str, message: str, *, stop: bool = False):
        super().__init__(message)
        self.outcome = outcome
        self.message = message
        self.stop = stop


@dataclasses.dataclass(frozen=True)
class ProviderConfig:
    """The provider settings, read once per run. The key is kept out of ``repr``."""

    url_template: str
    key: str = dataclasses.field(repr=False)
    connect_timeout: float = 5.0
    read_timeout: float = 10.0
    max_attempts: int = 3
    backoff: float = 1.0
    backoff_max: float = 30.0
    retry_after_max: float = 120.0
    fresh_hours: float = 24.0

    @classmethod
    def from_settings(cls) -> "ProviderConfig":
        return cls(
            url_template=settings.MANIFEST_PROVIDER_URL,
            key=settings.MANIFEST_PROVIDER_KEY,
            connect_timeout=settings.MANIFEST_PROVIDER_CONNECT_TIMEOUT,
            read_timeout=settings.MANIFEST_PROVIDER_READ_TIMEOUT,
            max_attempts=max(1, settings.MANIFEST_PROVIDER_MAX_ATTEMPTS),
            backoff=settings.MANIFEST_PROVIDER_BACKOFF,
            backoff_max=settings.MANIFEST_PROVIDER_BACKOFF_MAX,
            retry_after_max=settings.MANIFEST_PROVIDER_RETRY_AFTER_MAX,
            fresh_hours=settings.MANIFEST_PROVIDER_FRESH_HOURS,
        )

    def url_for(self, manifest_id: str) -> str:
        return self.url_template.format(manifest_id=urllib.parse.quote(manifest_id, safe=""))

    def redact(self, text: str) -> str:
        """The text with the key scrubbed out, should a URL or a reply have carried it."""
        if self.key:
            text = text.replace(self.key, "[redacted]").replace(urllib.parse.quote(self.key, safe=""), "[redacted]")
        return text


# --- Public entry points -------------------------------------------------------------


def fetch_manifests(
    ids, *, force: bool = False, config: ProviderConfig | None = None, progress=None, time_limit: float | None = None
) -> Summary:
    """Fetch each id (duplicates once) and store what the provider replies. An id fetched
    within ``fresh_hours`` is skipped unless ``force``. ``progress(done, total, result)`` is
    called after each id. With ``time_limit`` (seconds), ids not begun by then are not
    attempted (for callers inside a web request)."""
    config = config or ProviderConfig.from_settings()
    adapter = get_adapter()
    ids = list(dict.fromkeys(ids))
    fresh = set() if force else _recently_fetched(ids, config.fresh_hours)
    deadline = None if time_limit is None else time.monotonic() + time_limit
    summary = Summary()
    stopped = ""
    for done, manifest_id in enumerate(ids, start=1):
        if not stopped and deadline is not None and time.monotonic() >= deadline:
            stopped = f"out of time ({time_limit:g} s); run `manage.py fetch_manifests` for the rest"
        if manifest_id in fresh:
            result = Result(manifest_id, SKIPPED, f"fetched in the last {config.fresh_hours:g} hours (use --force)")
        elif stopped:
            result = Result(manifest_id, FAILED, f"not attempted: {stopped}")
        else:
            result, stop = _fetch_one(manifest_id, config, adapter)
            stopped = result.message if stop else ""
        summary.results.append(result)
        if progress is not None:
            progress(done, len(ids), result)
    return summary


def missing_manifest_ids() -> list[str]:
    """Manifests whose claims include stubs (known by id only). Stubs exist only because a
    stored story cites them, so these are the cited manifests still lacking claim texts."""
    return list(Manifest.objects.filter(claims__has_text=False).order_by("id").values_list("id", flat=True).distinct())


def stub_claims_for(manifest_ids, *, claim_ids=None) -> list[Claim]:
    """The stub claims (no text yet) of these manifests, optionally only those among
    ``claim_ids``: for a notice on a story page listing cited claims still without text."""
    claims = Claim.objects.stubs().filter(manifest_id__in=list(manifest_ids))
    if claim_ids is not None:
        claims = claims.filter(id__in=list(claim_ids))
    return list(claims.select_related("manifest").order_by("manifest_id", "id"))


# --- One manifest ----------------------------------------------------------------------


def _recently_fetched(ids: list[str], hours: float) -> set[str]:
    since = timezone.now() - dt.timedelta(hours=hours)
    return set(Manifest.objects.filter(id__in=ids, fetched_at__gte=since).values_list("id", flat=True))


def _fetch_one(manifest_id: str, config: ProviderConfig, adapter) -> tuple[Result, bool]:
    """Fetch, map and store one manifest. Returns its result and whether to stop the run."""
    if not ID_RE.fullmatch(manifest_id):
        return Result(
            manifest_id, FAILED, f"{manifest_id[:80]!r} is not a valid manifest id (letters, digits, - and _)"
        ), False
    try:
        outcome = _store(adapter(_parse(fetch_reply(manifest_id, config)), manifest_id=manifest_id), manifest_id)
    except ProviderError as exc:
        result = Result(manifest_id, exc.outcome, config.redact(exc.message))
        logger.debug("manifest %s: %s", manifest_id, result.message)
        return result, exc.stop
    except FormatError as exc:
        result = Result(manifest_id, FAILED, config.redact(f"the reply does not map: {exc} (nothing stored)"))
        logger.debug("manifest %s: %s", manifest_id, result.message)
        return result, False
    stubs = tuple(Claim.objects.stubs().filter(manifest_id=manifest_id).order_by("id").values_list("id", flat=True))
    message = (
        f"{len(stubs)} cited claim(s) not in the provider's reply, still without text: {', '.join(stubs)}"
        if stubs
        else ""
    )
    return Result(manifest_id, FETCHED if outcome in ("created", "updated") else UNCHANGED, message, stubs), False


def _parse(body: bytes) -> object:
    try:
        return loads(body)
    except FormatError as exc:
        raise FormatError("reply", exc.message) from None


def _store(entry: dict, manifest_id: str) -> str:
    """One transaction: the manifest, its publisher, its claims and ``fetched_at`` are all
    written, or none is."""
    with transaction.atomic():
        outcome = upsert_manifest(entry, with_claims=True, via="provider")
        Manifest.objects.filter(id=manifest_id).update(fetched_at=timezone.now())
    return outcome


# --- HTTP ----------------------------------------------------------------------------------


def fetch_reply(manifest_id: str, config: ProviderConfig) -> bytes:
    """The body of the provider's 2xx reply for this id, after retrying 429, 5xx, timeouts
    and dropped connections with exponential backoff (or the ``Retry-After`` they give).
    Raises ProviderError with a message fit for an editor."""
    url = config.url_for(manifest_id)
    problem = ""
    for attempt in range(1, config.max_attempts + 1):
        try:
            status, headers, body = _get(url, config)
        except (OSError, http.client.HTTPException) as exc:
            problem, delay = _describe_transport_error(exc, config), _backoff(attempt, config)
        else:
            if 200 <= status < 300:
                return body
            problem = f"{status} {http.client.responses.get(status, '')}".strip()
            if status != 429 and status < 500:
                raise _final_error(status, problem, config)
            delay = _retry_delay(headers, attempt, problem, config)
        if attempt < config.max_attempts:
            logger.debug(
                "manifest %s: %s; retrying in %.1f s (attempt %d of %d)",
                manifest_id,
                config.redact(problem),
                delay,
                attempt,
                config.max_attempts,
            )
            sleep(delay)
    raise ProviderError(FAILED, f"{problem} (gave up after {config.max_attempts} attempts)")


def _final_error(status: int, problem: str, config: ProviderConfig) -> ProviderError:
    if status == 401:
        hint = "check MANIFEST_PROVIDER_KEY" if config.key else "MANIFEST_PROVIDER_KEY is not set"
        return ProviderError(FAILED, f"the provider refused the key ({problem}): {hint}", stop=True)
    if status == 403:
        return ProviderError(FAILED, f"the key may not read this manifest ({problem})")
    if status in (404, 410):
        return ProviderError(NOT_FOUND, f"the provider has no manifest with this id ({problem})")
    return ProviderError(FAILED, f"unexpected reply from the provider ({problem})")


def _retry_delay(headers, attempt: int, problem: str, config: ProviderConfig) -> float:
    """The wait before the next attempt: the provider's ``Retry-After`` when it gives one
    (refusing to wait longer than ``retry_after_max``), else exponential backoff."""
    retry_after = parse_retry_after(headers.get("Retry-After"))
    if retry_after is None:
        return _backoff(attempt, config)
    if retry_after > config.retry_after_max:
        raise ProviderError(
            FAILED,
            f"{problem}: the provider asks to wait {retry_after:.0f} s before retrying, "
            f"longer than MANIFEST_PROVIDER_RETRY_AFTER_MAX ({config.retry_after_max:g} s)",
            stop=True,
        )
    return retry_after


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delay-seconds or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return max(0.0, (when - dt.datetime.now(dt.UTC)).total_seconds())


def _backoff(attempt: int, config: ProviderConfig) -> float:
    """Exponential backoff with jitter, so that many clients do not retry in step."""
    delay = min(config.backoff_max, config.backoff * 2 ** (attempt - 1))
    return delay / 2 + random.uniform(0, delay / 2)


def _describe_transport_error(exc: Exception, config: ProviderConfig) -> str:
    if isinstance(exc, urllib.error.URLError):
        if isinstance(exc.reason, TimeoutError):
            return f"no connection within {config.connect_timeout:g} s"
        return f"cannot reach the provider: {exc.reason}"
    if isinstance(exc, TimeoutError):
        return f"no reply within the read timeout of {config.read_timeout:g} s"
    return f"the connection failed: {exc.__class__.__name__} {exc}".strip()


def _get(url: str, config: ProviderConfig) -> tuple[int, object, bytes]:
    """One GET: (status, headers, body). Error statuses come back as statuses, not raised."""
    request = urllib.request.Request(url, headers={"Accept": "application/json", "User-Agent": USER_AGENT})
    if config.key:
        # Unredirected: urllib would otherwise copy the key to wherever a redirect points.
        request.add_unredirected_header("Authorization", f"Bearer {config.key}")
    try:
        with _opener(config.read_timeout).open(request, timeout=config.connect_timeout) as response:
            body = response.read(MAX_REPLY_BYTES + 1)
            if len(body) > MAX_REPLY_BYTES:
                raise ProviderError(FAILED, f"the reply is larger than {MAX_REPLY_BYTES} bytes: not a manifest")
            return response.status, response.headers, body
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, exc.headers, b""


# urllib has one timeout for connecting and reading; these connections switch the socket to
# the read timeout once connected (and, for HTTPS, once the TLS handshake is done).
class _ReadTimeoutMixin:
    def __init__(self, *args, read_timeout: float, **kwargs):
        super().__init__(*args, **kwargs)
        self.read_timeout = read_timeout

    def connect(self):
        super().connect()
        self.sock.settimeout(self.read_timeout)


class _HTTPConnection(_ReadTimeoutMixin, http.client.HTTPConnection):
    pass


class _HTTPSConnection(_ReadTimeoutMixin, http.client.HTTPSConnection):
    pass


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, read_timeout: float):
        super().__init__()
        self.read_timeout = read_timeout

    def http_open(self, req):
        return self.do_open(functools.partial(_HTTPConnection, read_timeout=self.read_timeout), req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, read_timeout: float):
        super().__init__(context=ssl.create_default_context())
        self.read_timeout = read_timeout

    def https_open(self, req):
        return self.do_open(
            functools.partial(_HTTPSConnection, read_timeout=self.read_timeout), req, context=self._context
        )


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or ""), parts.port or {"http": 80, "https": 443}.get(scheme)


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Redirects are followed within the provider's own origin (scheme, host and port) only:
    a reply that points elsewhere (another host, a local address, HTTPS to HTTP) is not a
    manifest the configured provider serves, and following it would make the newsroom's
    server fetch whatever the redirect names."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if _origin(newurl) != _origin(req.full_url):
            fp.close()
            scheme, host, port = _origin(newurl)
            raise ProviderError(
                FAILED, f"the provider redirected to another origin ({scheme}://{host}:{port}), which is not followed"
            )
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _opener(read_timeout: float) -> urllib.request.OpenerDirector:
    return urllib.request.build_opener(_HTTPHandler(read_timeout), _HTTPSHandler(read_timeout), _SameOriginRedirects)
