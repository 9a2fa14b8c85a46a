"""The key look-up, cached for ``KEY_CACHE_TTL`` seconds so that a warm request costs no
query for it. Every way the desk revokes or changes a key forgets the entry at once (and
again when the transaction commits, so no request re-reads the row from before it):
``ApiKey.revoke()`` and any save or delete of a key or its partner (signals), and the
admin's "Revoke" action (a queryset update, so it forgets the keys itself). A change made
behind all of these (SQL, a queryset ``update()`` in a shell) applies within the TTL.

Forgetting writes a marker rather than deleting the entry, for ``KEY_CACHE_TTL`` seconds:
while it stands, look-ups read the database and keep nothing, and a look-up only ever adds
an entry where there is none. So a request that read the key's row just before a change
committed (a revocation) cannot write the old row back over the change's marker, where it
would be taken as usable for the whole TTL.

A prefix with no usable key is remembered too, for ``UNKNOWN_KEY_CACHE_TTL`` seconds, so
that a stream of bad keys does not cost a query each (the same forgetting clears it, so a
key that becomes usable is accepted at once). Failed look-ups are counted per client
address: over ``API_KEY_FAILURE_RATE``, every key from that address answers 429 until the
window slides (``lookup``, ``count_failure``)."""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from rest_framework.throttling import SimpleRateThrottle

from newsroom.infra.cache import count_and_read

from .models import ApiKey, Partner

KEY_CACHE_TTL = 30
UNKNOWN_KEY_CACHE_TTL = 10
_UNKNOWN = "unknown"  # cached for a prefix with no usable key
_FORGOTTEN = "forgotten"  # cached when a key or its partner changes: read the database, keep nothing


def _cache_key(prefix: str) -> str:
    return f"apikey:{prefix}"


def _blocked_key(client: str) -> str:
    return f"apikey-blocked:{client}"


def record_key(prefix: str) -> str:
    return f"apikey-record:{prefix}"


def record_of(key: ApiKey) -> tuple:
    """What the warm path (``fastpath``) reads of a usable key, as plain values that cost
    no model unpickling: ``(id, SHA-256 of the key, scope, last use as a timestamp or None)``.
    Kept and forgotten with the cached key."""
    last = key.last_used_at.timestamp() if key.last_used_at is not None else None
    return (key.pk, key.hashed_secret, key.scope, last)


cache_key, blocked_key = _cache_key, _blocked_key  # for the fast path's one round trip (``fastpath``)


def _safe(call, default):
    try:
        return call()
    except Exception:  # the cache unreachable: look-ups go to the database, nothing is blocked
        return default


def lookup(prefix: str, client: str | None = None) -> tuple[ApiKey | None, float | None]:
    """``(the usable key of this prefix or None, None)``, or ``(None, seconds)`` when
    ``client`` is blocked for failing too often (whatever the key: a blocked address waits).
    One cache round trip for both questions; a query only when the cache knows nothing of
    the prefix."""
    names = [_cache_key(prefix)] + ([_blocked_key(client)] if client else [])
    found = _safe(lambda: cache.get_many(names), {})
    if client:
        wait = (found.get(names[1]) or 0) - time.time()
        if wait > 0:
            return None, wait
    cached = found.get(names[0])
    if isinstance(cached, ApiKey):
        return cached, None
    if cached == _UNKNOWN:
        return None, None
    key = ApiKey.objects.usable().select_related("partner").filter(prefix=prefix).order_by().first()
    if cached == _FORGOTTEN:
        return key, None  # changed moments ago: what was read here may predate the change
    # Added, never set: a change's marker written since the read above is not written over.
    if key is not None:
        if _safe(lambda: cache.add(names[0], key, KEY_CACHE_TTL), False):
            _safe(lambda: cache.add(record_key(prefix), record_of(key), KEY_CACHE_TTL), None)
    else:
        _safe(lambda: cache.add(names[0], _UNKNOWN, UNKNOWN_KEY_CACHE_TTL), None)
    return key, None


def usable_key(prefix: str) -> ApiKey | None:
    """The usable key (with its partner) of this prefix, or None."""
    return lookup(prefix)[0]


def count_failure(client: str) -> float | None:
    """Count a failed look-up from ``client``; the seconds it must wait once over the rate
    (it is then blocked for that long), else None. A sliding window, as the partner throttle:
    ``previous window * the share of it still inside + this window``. Fails open."""
    rate = getattr(settings, "API_KEY_FAILURE_RATE", "30/min")
    allowed, duration = SimpleRateThrottle.parse_rate(None, rate)
    if not allowed:
        return None
    now = time.time()
    window, into = divmod(now, duration)
    name = f"apikey-failures:{client}:{int(window)}"
    current, previous = count_and_read(
        cache, name, duration * 2 + 1, other=f"apikey-failures:{client}:{int(window) - 1}"
    )
    if current is None:
        return None
    weight = 1 - into / duration
    excess = (previous or 0) * weight + current - allowed
    if excess <= 0:
        return None
    wait = excess / previous * duration if previous and previous * weight >= excess else duration - into
    wait = max(wait, 1.0)
    _safe(lambda: cache.set(_blocked_key(client), now + wait, int(wait) + 1), None)
    return wait


def forget(*prefixes: str, stale_only: bool = False) -> None:
    """The keys of these prefixes are read from the database for the next ``KEY_CACHE_TTL``
    seconds (at once, and again from the commit on), whatever a look-up in flight read.
    ``stale_only``: nothing that makes a key unusable changed (a key just issued, which no
    look-up could have read as usable; the time of its last use): the entries are only
    dropped, and the next look-up keeps the key again."""
    names = [name for p in prefixes if p for name in (_cache_key(p), record_key(p))]
    if not names:
        return
    if stale_only:
        cache.delete_many(names)
        transaction.on_commit(lambda: cache.delete_many(names))
        return
    marked = dict.fromkeys(names, _FORGOTTEN)
    cache.set_many(marked, KEY_CACHE_TTL)
    transaction.on_commit(lambda: cache.set_many(marked, KEY_CACHE_TTL))


def key_changed(sender, instance, created=False, **kwargs):
    forget(instance.prefix, stale_only=created)


def partner_changed(sender, instance, **kwargs):
    forget(*ApiKey.objects.filter(partner_id=instance.pk).values_list("prefix", flat=True))


def connect() -> None:
    post_save.connect(key_changed, sender=ApiKey, dispatch_uid="syndication.keys.save.ApiKey")
    post_delete.connect(key_changed, sender=ApiKey, dispatch_uid="syndication.keys.delete.ApiKey")
    post_save.connect(partner_changed, sender=Partner, dispatch_uid="syndication.keys.save.Partner")
    # A deleted partner's keys are deleted with it, each sending its own post_delete.
