"""Per-worker copies of warm story renderings, complete with their headers.

A warm story page is the same bytes for every reader until the ``lists`` generation moves
(``newsroom.infra.pagecache``: every change that can alter a story page moves it, whichever
process makes the change). So each worker keeps, for the renderings it served lately, the
finished answer of the signed view: body, ``Content-Type``, ``ETag``, ``Last-Modified``,
``Link``, ``Cache-Control``, ``Vary`` and the signature headers, together with the
generation read before it was made. A request whose copy was made under the current
generation gets that copy: one read of the generation (one SQLite statement on the
default disk cache, one Redis ``GET``, or none within ``PAGE_LOCAL_TTL``) and no
unpickling, hashing or header building. A command in another process moves the
generation, so the next request anywhere takes the full path and makes a new copy.

Once a copy's answer has gone out through the rest of the middleware, ``WholeCopies`` (early
in ``MIDDLEWARE``) keeps every header it left with, and answers the next plain reads of it
before the rest of the middleware and the URL resolver run: those add nothing a request of
the same method, path, host and scheme would not get again (the security headers,
``X-Frame-Options``, ``Content-Length``), and refuse nothing such a request could be refused
for (the host is validated the same way; a query string, a conditional request and a
configured ``DISALLOWED_USER_AGENTS`` take the whole way). The middleware outside it (the
request id, the Content-Security-Policy) still runs for each request.

Only reads are answered from a copy: a GET or HEAD without a query string (a conditional
one gets the 304 or 412 the full path would give, from the copy's validators), on a host
``ALLOWED_HOSTS`` names literally (so ``Host`` headers under a wildcard cannot fill the
table), with the signing key the copy was signed with. A copy lives at most as long as the
shared entry (``PAGE_TTL``: a change that moves no generation, a bulk update bypassing
``save()``, is seen as late there as here). The table is bounded in entries (``COPIES``)
and in body bytes (``COPIES_BYTES``), the oldest made going first, so memory stays flat
whatever the crawl.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from functools import wraps
from typing import NamedTuple

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.core.signals import setting_changed
from django.http import HttpResponse
from django.utils.cache import get_conditional_response
from django.utils.http import parse_http_date_safe

from newsroom.infra.pagecache import PAGE_TTL, recent_generation, remember_generation, settled, stored_generation
from newsroom.infra.signing import keyring, named_host

COPIES = 256
COPIES_BYTES = 32 * 1024 * 1024
CONDITIONAL = ("HTTP_IF_NONE_MATCH", "HTTP_IF_MODIFIED_SINCE", "HTTP_IF_MATCH", "HTTP_IF_UNMODIFIED_SINCE")


class _Copy(NamedTuple):
    generation: str
    keyid: str
    headers: dict[str, str]
    body: bytes
    last_modified: int | None  # the Last-Modified header as a timestamp, for conditionals
    made_at: float  # time.monotonic(): a copy lives no longer than the shared entry (PAGE_TTL)
    whole: dict[str, str] | None = None  # every header of the answer as it left ``WholeCopies``


# (path, host, https, path within the site) -> the copy
_copies: OrderedDict[tuple, _Copy] = OrderedDict()
_lock = threading.Lock()  # gthread workers share the table
_bytes = 0  # the bodies' bytes in the table
_paths: frozenset[str] = frozenset()  # the paths in the table: any other request passes ``WholeCopies`` at once


def clear() -> None:
    global _bytes, _paths
    with _lock:
        _copies.clear()
        _bytes = 0
        _paths = frozenset()


def _clear_on_change(**kwargs) -> None:
    clear()


setting_changed.connect(_clear_on_change)


def _current_generation() -> str | None:
    """The ``lists`` generation now: as read within ``PAGE_LOCAL_TTL``, else from the cache
    (made when missing; None when the cache keeps nothing, so no copy is kept)."""
    value = recent_generation("lists") if settings.PAGE_LOCAL_TTL else None
    if value is None:
        value = stored_generation("lists")
        if value is not None and settings.PAGE_LOCAL_TTL:
            remember_generation("lists", value)
    return value


def _keep(key: tuple, copy: _Copy) -> None:
    global _bytes, _paths
    with _lock:
        old = _copies.pop(key, None)
        _bytes -= len(old.body) if old is not None else 0
        if len(copy.body) <= COPIES_BYTES:
            _copies[key] = copy
            _bytes += len(copy.body)
            while len(_copies) > COPIES or _bytes > COPIES_BYTES:
                _, evicted = _copies.popitem(last=False)
                _bytes -= len(evicted.body)
        _paths = frozenset(k[0] for k in _copies)


# What the full path's 304 carries (``condition``, the canonical link, ``public``).
NOT_MODIFIED_HEADERS = ("ETag", "Last-Modified", "Link", "Cache-Control", "Vary")


def _conditional(request, copy: _Copy) -> HttpResponse | None:
    """The answer to a conditional request from the copy's validators, as the full path
    gives it: a 304 with the validators, canonical link and cache headers, or a 412 with the
    validators and link; None when the full answer is due."""
    response = get_conditional_response(request, etag=copy.headers.get("ETag"), last_modified=copy.last_modified)
    if response is None:
        return None
    names = NOT_MODIFIED_HEADERS if response.status_code == 304 else NOT_MODIFIED_HEADERS[:3]
    for name in names:
        if name in copy.headers:
            response[name] = copy.headers[name]
    return response


def kept(view):
    """Answer plain reads of ``view`` (a story rendering, signed or not) from this worker's
    copy while the ``lists`` generation it was made under is current."""
    is_signed = getattr(view, "signed", False)

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        meta = request.META
        if request.method not in ("GET", "HEAD") or meta.get("QUERY_STRING"):
            return view(request, *args, **kwargs)
        current = _current_generation()
        keyid = keyring().keyid if is_signed else ""
        key = _key(request)
        copy = _copies.get(key)
        if _fresh(copy, current, keyid):
            if any(name in meta for name in CONDITIONAL):
                answer = _conditional(request, copy)
                if answer is not None:
                    return answer
            response = HttpResponse(copy.body, headers=copy.headers)
            response.kept_as = (key, copy)
            return response
        response = view(request, *args, **kwargs)
        if (
            current is not None
            and settled(current)
            and request.method == "GET"
            and response.status_code == 200
            and not response.streaming
            and not response.cookies
            and named_host(request)
        ):
            headers = dict(response.items())
            modified = headers.get("Last-Modified")
            last_modified = parse_http_date_safe(modified) if modified else None
            copy = _Copy(current, keyid, headers, response.content, last_modified, time.monotonic())
            _keep(key, copy)
            response.kept_as = (key, copy)
        return response

    return wrapped


def _key(request) -> tuple:
    """A copy's key: the signature covers the URI asked for (its path, host as validated and
    scheme), and the path within the site (``path_info``) is what the rest of the chain and
    the URL resolver read, whatever mount point (``SCRIPT_NAME``) a server gives before it."""
    return (request.path, request.get_host(), request.is_secure(), request.path_info)


def _fresh(copy: _Copy | None, current: str | None, keyid: str) -> bool:
    return (
        copy is not None
        and current is not None
        and copy.generation == current
        and copy.keyid == keyid
        and time.monotonic() - copy.made_at < PAGE_TTL
    )


class WholeCopies:
    """Answers a plain (unconditional, query-less) GET or HEAD of a story rendering from this
    worker's copy before the rest of the middleware runs, with every header the rest of the
    chain gave that copy's answer; keeps those headers with the copy the first time its
    answer passes on the way out. Belongs in ``MIDDLEWARE`` before every middleware whose
    headers or refusals it stands in for (``SecurityMiddleware`` onwards)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        meta = request.META
        if (
            request.path in _paths
            and request.method in ("GET", "HEAD")
            and not meta.get("QUERY_STRING")
            and not settings.DISALLOWED_USER_AGENTS
            and not any(name in meta for name in CONDITIONAL)
        ):
            try:
                key = _key(request)
            except DisallowedHost:
                key = None
            copy = _copies.get(key) if key is not None else None
            if (
                copy is not None
                and copy.whole is not None
                and _fresh(copy, _current_generation(), keyring().keyid if copy.keyid else "")
            ):
                return HttpResponse(copy.body, headers=copy.whole)
        response = self.get_response(request)
        kept_as = getattr(response, "kept_as", None)
        if kept_as is not None and request.method == "GET" and response.status_code == 200 and not response.cookies:
            key, copy = kept_as
            if copy.whole is None and response.content == copy.body:
                with _lock:
                    if _copies.get(key) is copy:
                        _copies[key] = copy._replace(whole=dict(response.items()))
        return response
