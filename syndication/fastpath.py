"""The warm path of the API's story reads (``stories/``, ``stories/<id>/``, ``.../ninjs``):
a partner polling an answer that has not changed gets it without DRF's request wrapping,
content negotiation, rendering and body hashing.

Each 200 answer of those views is stored under its URL (the scheme and host it was asked
on, the path, and the query parameters the view reads in a canonical order:
``FastReadMixin.fast_params``) with the ``lists`` generation read before it was made (every
story event, source edit and label change moves ``lists``: ``stories.cache``), its ETag and
its headers. The next request with a partner key for the same URL makes one cache round
trip for the key, the client's block, the entry and the generation together (the key as
plain values, ``keys.record_of``); when the entry is current it counts the request against
the key's throttle and usage exactly as the full path does (``PartnerRateThrottle``,
``usage.record_use``) and answers from the entry (304 when the ETag or date matches).

Anything else takes the full DRF path, which does every check itself and answers every
error: no ``Bearer`` key (a staff session), an unknown, revoked or badly formed key, a
blocked client, a throttled key (the full path answers the 429), a ``format`` parameter, an
``Accept`` asking for something other than plain JSON (``indent=``, another type), a HEAD
or any other method, a query parameter the view does not read or one given twice (such an
answer is not stored either: made-up parameters cannot fill the cache with copies of a
page), a host the site does not name (no answer is stored for it, ``named_host``: under a
wildcard in ``ALLOWED_HOSTS``, ``Host: a.example``, ``Host: b.example``... cannot fill the
cache with one entry per host either), no current entry. So the fast path can only answer
what the full path would have answered, with the same body and headers. That includes the
host: a page's ``next`` is an absolute URL on the scheme and host of the request that made
it (``KeysetPagination.get_next_link``) and partners follow it with their key, so an answer
is only served on the scheme and host it was made for.

A response-level hook (a signature over the body, for instance) wraps the view returned by
``as_view()`` (``syndication/urls.py``) and so sees the answers of both paths alike.
"""

from __future__ import annotations

import hmac
from urllib.parse import urlencode

from django.core.cache import cache
from django.http import HttpResponse
from django.utils.cache import get_conditional_response

from newsroom.infra.login_throttle import client_address
from newsroom.infra.pagecache import CODE_VERSION, PAGE_TTL, generation_key, read_generations, settled
from newsroom.infra.signing import named_host

from . import keys, usage
from .auth import PartnerRateThrottle, _parse
from .models import hash_secret
from .renderers import API_CODE_VERSION

PLAIN_JSON = {"", "*/*", "application/json", "application/*", "application/json; charset=utf-8"}
CONDITIONAL = ("HTTP_IF_MATCH", "HTTP_IF_NONE_MATCH", "HTTP_IF_MODIFIED_SINCE", "HTTP_IF_UNMODIFIED_SINCE")
KEPT_HEADERS = ("Content-Type", "Vary", "Allow", "Cache-Control", "ETag", "Last-Modified")


def _entry_key(request, params: frozenset) -> str | None:
    """The stored answer's key: the URL as asked (scheme, host as validated, path) with the
    query in a canonical order; None when the query has a parameter the view does not read
    (``params``) or one given more than once. The scheme and host are part of the answer:
    ``next`` is built from them (``request.build_absolute_uri()``)."""
    url = f"api:url:{CODE_VERSION}:{API_CODE_VERSION}:{request.scheme}://{request.get_host()}{request.path}?"
    query = request.GET
    if not query:
        return url
    items = []
    for name, values in query.lists():
        if name not in params or len(values) != 1:
            return None
        items.append((name, values[0]))
    return url + urlencode(sorted(items))


def _token(request) -> str | None:
    header = request.META.get("HTTP_AUTHORIZATION", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token or " " in token:
        return None
    return token


def fast_key(request, params: frozenset = frozenset()) -> str | None:
    """The stored answer's key (``_entry_key``) when the fast path may answer this request,
    else None: a plain JSON GET with a Bearer key whose query has only parameters the view
    reads (``params``), once each. Answers are stored only on a host the site names
    (``store``), and the key holds the host, so only those hosts are answered from the store
    (the host is checked once, when an answer is stored, not on every warm request)."""
    if (
        request.method == "GET"
        and request.META.get("HTTP_ACCEPT", "").strip().lower() in PLAIN_JSON
        and _token(request) is not None
    ):
        return _entry_key(request, params)
    return None


def eligible(request, params: frozenset = frozenset()) -> bool:
    """Whether the fast path may answer this request (``fast_key``)."""
    return fast_key(request, params) is not None


def answer(request, params: frozenset = frozenset(), key: str | None = None):
    """The stored answer for this request, or None (take the full path). ``key``: its
    ``fast_key`` when the caller has it. Sets ``request._api_generation`` for ``store`` on
    the way."""
    token = _token(request)
    prefix = _parse(token)
    if prefix is None:
        return None
    client = client_address(request)
    entry_key = key or _entry_key(request, params)
    names = [keys.record_key(prefix), keys.blocked_key(client), entry_key, generation_key("lists")]
    try:
        got = cache.get_many(names)
    except Exception:  # the cache unreachable: the full path copes
        return None
    request._api_generation = read_generations(got, ["lists"])["lists"]
    record = got.get(names[0])
    if not isinstance(record, tuple) or (got.get(names[1]) or 0) > 0:
        return None  # not cached, unknown, or a client that may be blocked: the full path decides
    key_id, hashed_secret, _scope, last_used = record
    if not hmac.compare_digest(hashed_secret, hash_secret(token)):
        return None
    entry = got.get(names[2])
    if entry is None or entry["generation"] != request._api_generation:
        return None
    throttle = PartnerRateThrottle()
    if not throttle.allow(throttle.key_for(key_id)):
        return None  # refused requests are not counted; the full path answers the 429
    usage.record_use_of(key_id, prefix, last_used)
    response = HttpResponse(entry["body"])
    for name, value in entry["headers"]:
        response[name] = value
    if not any(name in request.META for name in CONDITIONAL):
        return response  # what get_conditional_response returns when nothing is asked
    return get_conditional_response(
        request, etag=entry["headers_map"].get("ETag"), last_modified=entry["last_modified"], response=response
    )


def store(request, response, params: frozenset = frozenset(), key: str | None = None) -> None:
    """Keep a 200 answer of the full path for the next request to the same URL (the same
    scheme and host too), when that host is one the site names (``named_host``: one entry
    per such host and scheme, not one per host a wildcard in ``ALLOWED_HOSTS`` lets in).
    ``key``: the request's ``fast_key`` when the caller has it."""
    generation = getattr(request, "_api_generation", None)
    if generation is None or not settled(generation) or response.status_code != 200:
        return
    key = key or fast_key(request, params)
    if key is None or not named_host(request):
        return
    auth = getattr(request, "auth", None)
    if not isinstance(auth, keys.ApiKey):
        return
    headers = [(name, response[name]) for name in KEPT_HEADERS if response.has_header(name)]
    last_modified = None
    if response.has_header("Last-Modified"):
        from django.utils.http import parse_http_date_safe

        last_modified = parse_http_date_safe(response["Last-Modified"])
    entry = {
        "generation": generation,
        "body": response.content,
        "headers": headers,
        "headers_map": dict(headers),
        "last_modified": last_modified,
    }
    try:
        cache.set(key, entry, PAGE_TTL)
    except Exception:
        pass


class FastReadMixin:
    """For the story read views: answer from the stored answer when current, else the full
    path, storing its answer. ``fast_params``: the query parameters the view reads."""

    fast_params: frozenset = frozenset()

    def dispatch(self, request, *args, **kwargs):
        key = fast_key(request, self.fast_params)
        if key is not None:
            response = answer(request, self.fast_params, key)
            if response is not None:
                return response
        response = super().dispatch(request, *args, **kwargs)
        if key is not None:
            store(self.request, response, self.fast_params, key)
        return response
