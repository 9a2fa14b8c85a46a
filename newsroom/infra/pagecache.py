"""HTTP caching for the readers' pages and the API: generation counters, ETags and
cache headers. (The cache backend itself, and the throttles' counters, are
``newsroom.infra.cache``.)

Two counters live in the cache (``CACHE_URL``):

- ``sources`` (site texts and labels) and ``sources:<story id>`` (the manifests and claims
  that story cites): every representation of a story shows both, so story ETags and stored
  representations (``stories.cache``) are made under them.
- ``lists``: bumped when a story is published, unpublished, updated or corrected (see
  ``stories.cache``). Every page that lists stories keys its ETag and cache on it.

A counter's value is the time it was bumped, so it doubles as a Last-Modified. When the
cache loses a counter, a new one is made: pages are re-rendered, never stale.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import time
from functools import wraps

from django.core.cache import cache
from django.db import transaction
from django.urls import get_script_prefix
from django.utils.cache import patch_cache_control, patch_vary_headers

# Bump when templates or renderings change, so that no ETag or cached page outlives a deploy.
CODE_VERSION = "site-6"

PUBLIC_CACHE = {"public": True, "max_age": 60, "s_maxage": 300, "stale_while_revalidate": 600}
PAGE_TTL = 24 * 3600
LIST_TTL = 600


def _key(name: str) -> str:
    return f"gen:{name}"


def generation_key(name: str) -> str:
    """The cache key of a counter, for callers reading it with other keys in one round trip."""
    return _key(name)


def generation(name: str) -> str:
    """The counter's current value (a timestamp as text), made when missing."""
    # A cache that keeps nothing (dummycache://) gets a constant, so that ETags stay
    # stable and conditional GETs still answer 304.
    return stored_generation(name) or "0"


def stored_generation(name: str) -> str | None:
    """The counter's current value as the cache holds it, made when missing; None when the
    cache keeps nothing (dummycache://), so nothing may be kept under it."""
    value = cache.get(_key(name))
    if value is None:
        # add(): two processes racing to create it agree on one value.
        cache.add(_key(name), f"{time.time():.6f}", None)
        value = cache.get(_key(name))
    return value


def read_generations(got: dict, names) -> dict[str, str]:
    """The counters ``names`` from ``got`` (a ``get_many`` answer that asked for their
    ``generation_key``), each made when missing: callers read counters and entries in one
    round trip."""
    out = {}
    for name in names:
        value = got.get(_key(name))
        out[name] = value if value is not None else generation(name)
    return out


def generation_time(name: str) -> dt.datetime:
    return dt.datetime.fromtimestamp(float(generation(name)), tz=dt.UTC)


def bump(name: str) -> None:
    """Move the counter on, now and again when the current transaction commits (so that
    no page cached between the two shows data from before the commit)."""

    def do():
        cache.set(_key(name), f"{time.time():.6f}", None)
        _recent.pop(name, None)

    do()
    transaction.on_commit(do)


# name -> (value, monotonic time read): generations this process read lately (PAGE_LOCAL_TTL).
_recent: dict[str, tuple[str, float]] = {}


def recent_generation(name: str) -> str | None:
    """The counter's value as read by this process less than ``PAGE_LOCAL_TTL`` seconds ago."""
    from django.conf import settings

    value, read_at = _recent.get(name, (None, 0.0))
    if value is not None and time.monotonic() - read_at < settings.PAGE_LOCAL_TTL:
        return value
    return None


def remember_generation(name: str, value: str) -> None:
    _recent[name] = (value, time.monotonic())


def settled(*generations) -> bool:
    """Whether what was read under these generation values may be kept. With read replicas
    (``DATABASE_REPLICAS``), a read just after a change may come from a replica that has not
    replayed it yet: nothing read within ``DATABASE_PIN_SECONDS`` (the replicas' lag
    headroom) of the change that moved a generation is kept under it; it is served, and
    made again by the next request, until then. Without replicas everything is settled."""
    from django.conf import settings

    if not settings.DATABASE_REPLICAS:
        return True
    horizon = time.time() - settings.DATABASE_PIN_SECONDS
    for value in generations:
        try:
            if float(value) > horizon:
                return False
        except (TypeError, ValueError):  # not a time (a cache that keeps nothing): nothing is kept anyway
            continue
    return True


def mount_point() -> str:
    """The path the site is mounted under (the script prefix a server gives as
    ``SCRIPT_NAME``, or ``FORCE_SCRIPT_NAME``), which every link a page makes starts with:
    "" at the root, else e.g. ``/x/``. Every cached page and ETag is keyed on it, with the
    path within the site (``path_info``), so that no mount point gets another's links, and
    ``/corrections`` + ``/`` (the home page) is not taken for ``/`` + ``/corrections/``."""
    prefix = get_script_prefix()
    return "" if prefix == "/" else prefix


def make_etag(*parts) -> str:
    digest = hashlib.sha256("\x1f".join(str(p) for p in (CODE_VERSION, *parts)).encode()).hexdigest()[:32]
    return f'"{digest}"'


def public(view):
    """Mark successful (200 and 304) answers cacheable by browsers and CDNs."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        if response.status_code in (200, 304):
            patch_cache_control(response, **PUBLIC_CACHE)
            patch_vary_headers(response, ["Accept-Encoding"])
        return response

    return wrapped


def list_page(view=None, *, params: tuple[str, ...] = (), period: int | None = None):
    """A page that lists stories: its ETag and cached body follow the ``lists``
    generation, so a publish or correction anywhere refreshes it at once.

    The cache key and ETag are the page's mount point (``mount_point()``), its path within
    the site (``path_info``) and its query.

    ``params`` names the query parameters the page reads. The cache key and ETag use only
    those, and the view sees only those: ``/?cachebust=1``, ``/?cachebust=2``... are one
    page and one cache entry, so unknown parameters cannot fill the cache or force a render.
    Use as ``@list_page`` or ``@list_page(params=("before", "page"))``.

    ``period`` (seconds): a page that also depends on the time (the news sitemap lists the
    last two days) is another page, with another ETag, each period, even when no story
    changed: a browser or CDN holding it is not told at the next period that it is current.

    A warm answer carries the headers a cold one does that describe the body
    (``Content-Type``, ``Last-Modified``).
    """
    if view is None:
        return lambda v: list_page(v, params=params, period=period)
    from django.http import HttpResponse, QueryDict
    from django.utils.cache import get_conditional_response

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if any(name not in params for name in request.GET):
            kept = QueryDict(mutable=True)
            for name in params:
                if name in request.GET:
                    kept.setlist(name, request.GET.getlist(name))
            kept._mutable = False
            request.GET = kept
        query = request.GET.urlencode()
        lists = generation("lists")
        # A page read before the replicas have caught up is neither kept nor validated later.
        keep = settled(lists)
        etag = make_etag(
            "list",
            mount_point(),
            request.path_info + ("?" + query if query else ""),
            lists,
            *(() if keep else ("unsettled",)),
            *((int(time.time() // period),) if period else ()),
        )
        not_modified = get_conditional_response(request, etag=etag)
        if not_modified is not None:
            return not_modified
        cached = cache.get(f"page:{etag}")
        if cached is not None:
            response = HttpResponse(cached[0], content_type=cached[1])
            if cached[2]:
                response["Last-Modified"] = cached[2]
        else:
            response = view(request, *args, **kwargs)
            if hasattr(response, "render") and not response.is_rendered:
                response.render()
            if response.status_code != 200 or response.streaming:
                return response
            if keep:
                kept = (response.content, response["Content-Type"], response.get("Last-Modified"))
                cache.set(f"page:{etag}", kept, LIST_TTL)
        response["ETag"] = etag
        return response

    return wrapped
