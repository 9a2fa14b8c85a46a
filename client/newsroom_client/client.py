"""``Client`` (and ``AsyncClient`` for concurrent checks): the partner API with timeouts,
retries and conditional GETs.

    client = Client("https://hangingcontext.com", key="hc_…")
    for item in client.iter_stories(updated_since="2026-10-16T00:00:00Z"):
        ...
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from .errors import ClientError, error_from
from .retry import RETRY_STATUSES, ETagCache, RetryPolicy, parse_retry_after
from .types import ChecksRecord, Rubric, StoryItem, Submission

API_PREFIX = "/api/v1/"
SIGNATURE_DIRECTORY = "/.well-known/http-message-signatures-directory"
USER_AGENT = "newsroom-client/1.0"
DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=5.0)


@dataclass
class Stats:
    """What the client has spent: ``requests`` sent (retries included), ``not_modified``
    (answered ``304`` from the ETag cache), ``retries``."""

    requests: int = 0
    not_modified: int = 0
    retries: int = 0


@dataclass
class _Call:
    method: str
    url: str
    params: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    authenticated: bool = True
    # Only requests that change nothing (or would change the same thing again) are retried
    # after a 5xx or a timeout; any request is retried after a 429 or a refused connection.
    idempotent: bool = True
    conditional: bool = False


def _time_param(name: str, value: str | dt.datetime) -> str:
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            raise ValueError(f"{name}: a datetime needs a time zone (e.g. datetime.now(UTC))")
        return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
    return str(value)


def _json_body(document: Mapping[str, Any] | str | bytes) -> bytes:
    if isinstance(document, bytes):
        return document
    if isinstance(document, str):
        return document.encode()
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()


class _Base:
    def __init__(
        self,
        base_url: str,
        key: str | None = None,
        *,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        cache: ETagCache | None = None,
    ):
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"base_url: {base_url!r} is not an http(s) URL of the site")
        self.base_url = f"{parts.scheme}://{parts.netloc}"
        self.key = key
        self.timeout = timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)
        self.retry = retry or RetryPolicy()
        self.cache = cache if cache is not None else ETagCache()
        self.stats = Stats()

    def _url(self, path: str) -> str:
        return urljoin(self.base_url, path)

    def _headers(self, call: _Call, url: str) -> dict[str, str]:
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        if call.body is not None:
            headers["Content-Type"] = "application/json"
        if call.authenticated and self.key:
            headers["Authorization"] = f"Bearer {self.key}"
        if call.conditional and (cached := self.cache.get(url)):
            headers["If-None-Match"] = cached[0]
        return headers

    @staticmethod
    def _cache_key(call: _Call) -> str:
        return str(httpx.URL(call.url, params=call.params or None))

    def _should_retry(self, call: _Call, status: int) -> bool:
        return status in RETRY_STATUSES and (call.idempotent or status in (429, 503))

    def _outcome(self, call: _Call, response: httpx.Response) -> Any:
        """The parsed JSON of a final answer, from the cache on a 304; raises ``ApiError``."""
        key = self._cache_key(call)
        if response.status_code == 304 and (cached := self.cache.get(key)):
            self.stats.not_modified += 1
            return json.loads(cached[1])
        try:
            data = response.json() if response.content else None
        except ValueError:
            data = None
        if not 200 <= response.status_code < 300:
            raise error_from(
                response.status_code, data, retry_after=parse_retry_after(response.headers.get("Retry-After"))
            )
        if call.conditional and (etag := response.headers.get("ETag")):
            self.cache.put(key, etag, response.content)
        if data is None:
            raise ClientError(f"{call.method} {key}: the answer is not JSON")
        return data

    # ------------------------------------------------------------------ request shapes

    def _stories_call(self, cursor: str | None, page_size: int, filters: dict[str, str]) -> _Call:
        params = dict(filters, page_size=str(page_size))
        if cursor:
            params["cursor"] = cursor
        return _Call("GET", self._url(API_PREFIX + "stories/"), params=params, conditional=True)

    def _story_call(self, story_id: str, suffix: str = "/") -> _Call:
        if not story_id or not all(c.isalnum() or c in "_-" for c in str(story_id)):
            raise ValueError(f"story_id: {story_id!r} is not a story id")
        return _Call("GET", self._url(f"{API_PREFIX}stories/{story_id}{suffix}"), conditional=True)

    def _check_call(self, document: Mapping[str, Any] | str | bytes) -> _Call:
        return _Call("POST", self._url(API_PREFIX + "checks/"), body=_json_body(document))

    def _submit_call(self, document: Mapping[str, Any] | str | bytes) -> _Call:
        return _Call("POST", self._url(API_PREFIX + "submissions/"), body=_json_body(document), idempotent=False)


class Client(_Base):
    """A synchronous client of one site's partner API, with one key.

    ``base_url`` is the site (``https://hangingcontext.com``); ``key`` the partner key
    (``hc_…``). Every request has ``timeout``; 429 and 5xx answers and connection failures
    are retried by ``retry`` (``RetryPolicy``); GETs of the API are conditional (``ETag`` /
    ``If-None-Match``) against ``cache``, so an unchanged page or story costs a 304.
    ``transport`` replaces httpx's (tests pass ``httpx.MockTransport``)."""

    def __init__(
        self,
        base_url: str,
        key: str | None = None,
        *,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        cache: ETagCache | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        super().__init__(base_url, key, timeout=timeout, retry=retry, cache=cache)
        self._sleep = sleep
        self._http = httpx.Client(timeout=self.timeout, transport=transport, follow_redirects=False)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _send(self, call: _Call) -> Any:
        url = self._cache_key(call)
        for attempt in range(1, self.retry.attempts + 1):
            last = attempt == self.retry.attempts
            self.stats.requests += 1
            try:
                response = self._http.request(
                    call.method,
                    call.url,
                    params=call.params or None,
                    content=call.body,
                    headers=self._headers(call, url),
                )
            except httpx.TransportError as exc:
                retryable = call.idempotent or isinstance(exc, httpx.ConnectError)
                if last or not retryable:
                    raise ClientError(f"{call.method} {url}: {type(exc).__name__}: {exc}") from exc
                self.stats.retries += 1
                self._sleep(self.retry.delay(attempt, None) or 0)
                continue
            if not last and self._should_retry(call, response.status_code):
                wait = self.retry.delay(attempt, parse_retry_after(response.headers.get("Retry-After")))
                if wait is not None:
                    self.stats.retries += 1
                    self._sleep(wait)
                    continue
            return self._outcome(call, response)
        raise AssertionError("unreachable")  # pragma: no cover

    # ------------------------------------------------------------------ reading

    def iter_stories(
        self,
        *,
        updated_since: str | dt.datetime | None = None,
        cursor: str | None = None,
        page_size: int = 100,
        newsroom: str | None = None,
        beat: str | None = None,
        edition: str | None = None,
        published_after: str | dt.datetime | None = None,
    ) -> StoryWalk:
        """Every published story changed at or after ``updated_since`` (or after ``cursor``),
        oldest change first, following the API's cursor to the end. The returned iterator's
        ``cursor`` is where to resume next time (keep it between polls)."""
        if not 1 <= page_size <= 100:
            raise ValueError("page_size: a whole number from 1 to 100")
        filters: dict[str, str] = {}
        if updated_since is not None:
            filters["updated_since"] = _time_param("updated_since", updated_since)
        if published_after is not None:
            filters["published_after"] = _time_param("published_after", published_after)
        for name, value in (("newsroom", newsroom), ("beat", beat), ("edition", edition)):
            if value is not None:
                filters[name] = value
        return StoryWalk(self, filters, cursor, page_size)

    def get_story(self, story_id: str) -> dict[str, Any]:
        """One published story as its desk/1 document (``ApiError`` 404 when not published)."""
        return self._send(self._story_call(story_id))

    def get_ninjs(self, story_id: str) -> dict[str, Any]:
        """One published story as IPTC ninjs."""
        return self._send(self._story_call(story_id, "/ninjs"))

    def get_checks_record(self, story: str | Mapping[str, Any]) -> ChecksRecord:
        """A published story's ``checks.json`` (the rubric recorded at its publication).
        ``story`` is its id or its desk/1 document; the record is read from this client's
        site at the story's path (a public page: the key is not sent)."""
        document = self.get_story(story) if isinstance(story, str) else story
        # The path alone, on this client's site: never another host ("//host/..." included).
        path = "/" + urlsplit(str(document["url"])).path.lstrip("/") + "checks.json"
        return self._send(_Call("GET", self._url(path), authenticated=False, conditional=True))

    def signature_keys(self) -> dict[str, Any]:
        """The site's public signing keys: the JWK Set at ``/.well-known/http-message-signatures-directory``."""
        return self._send(_Call("GET", self._url(SIGNATURE_DIRECTORY), authenticated=False, conditional=True))

    # ------------------------------------------------------------------ writing

    def check(self, document: Mapping[str, Any] | str | bytes) -> Rubric:
        """The publish checks' rubric of a desk/1 document (``POST checks/``; nothing saved).
        ``InvalidDocument`` (with ``path``) when it is not well-formed desk/1."""
        return self._send(self._check_call(document))

    def submit(self, document: Mapping[str, Any] | str | bytes) -> Submission:
        """Submit a desk/1 story as this partner's draft (writer keys; ``POST submissions/``).
        ``Conflict`` when it names a story that is not the partner's own draft."""
        return self._send(self._submit_call(document))


class StoryWalk(Iterator[StoryItem]):
    """The stories of a walk, page by page. ``cursor`` is where to resume (also after the
    last page); ``pages`` counts the pages read."""

    def __init__(self, client: Client, filters: dict[str, str], cursor: str | None, page_size: int):
        self.client, self.filters, self.cursor, self.page_size = client, filters, cursor, page_size
        self.pages = 0
        self._buffer: list[StoryItem] = []
        self._done = False

    def __iter__(self) -> StoryWalk:
        return self

    def __next__(self) -> StoryItem:
        while not self._buffer:
            if self._done:
                raise StopIteration
            # A page asked for again (the same cursor) is a 304 when unchanged: served from
            # the ETag cache, so a poll that finds nothing new costs no body.
            page = self.client._send(self.client._stories_call(self.cursor, self.page_size, self.filters))
            self.pages += 1
            self.cursor = page.get("next_cursor") or self.cursor
            self._done = not page.get("next")
            self._buffer = list(page["results"])
        return self._buffer.pop(0)


class AsyncClient(_Base):
    """The same client for asyncio: ``check`` and ``submit`` many documents concurrently
    (``asyncio.gather``), e.g. a trainer's batch of completions. Same arguments as ``Client``."""

    def __init__(
        self,
        base_url: str,
        key: str | None = None,
        *,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        cache: ETagCache | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Any] = asyncio.sleep,
    ):
        super().__init__(base_url, key, timeout=timeout, retry=retry, cache=cache)
        self._sleep = sleep
        self._http = httpx.AsyncClient(timeout=self.timeout, transport=transport, follow_redirects=False)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def _send(self, call: _Call) -> Any:
        url = self._cache_key(call)
        for attempt in range(1, self.retry.attempts + 1):
            last = attempt == self.retry.attempts
            self.stats.requests += 1
            try:
                response = await self._http.request(
                    call.method,
                    call.url,
                    params=call.params or None,
                    content=call.body,
                    headers=self._headers(call, url),
                )
            except httpx.TransportError as exc:
                retryable = call.idempotent or isinstance(exc, httpx.ConnectError)
                if last or not retryable:
                    raise ClientError(f"{call.method} {url}: {type(exc).__name__}: {exc}") from exc
                self.stats.retries += 1
                await self._sleep(self.retry.delay(attempt, None) or 0)
                continue
            if not last and self._should_retry(call, response.status_code):
                wait = self.retry.delay(attempt, parse_retry_after(response.headers.get("Retry-After")))
                if wait is not None:
                    self.stats.retries += 1
                    await self._sleep(wait)
                    continue
            return self._outcome(call, response)
        raise AssertionError("unreachable")  # pragma: no cover

    async def get_story(self, story_id: str) -> dict[str, Any]:
        """One published story as its desk/1 document."""
        return await self._send(self._story_call(story_id))

    async def check(self, document: Mapping[str, Any] | str | bytes) -> Rubric:
        """The publish checks' rubric of a desk/1 document; see ``Client.check``."""
        return await self._send(self._check_call(document))

    async def submit(self, document: Mapping[str, Any] | str | bytes) -> Submission:
        """Submit a desk/1 story as this partner's draft; see ``Client.submit``."""
        return await self._send(self._submit_call(document))
