"""Per-key bookkeeping without a database write on every request.

- The day's request count is a counter in the cache (``apiusage:<key id>:<day>``). Each
  process counts its requests in memory and adds them to the counter about once a second
  (at the first request a second after the last addition, at any ``flush``, and when the
  process exits), so a request costs no cache write for its count. What is at risk: the
  counts of at most the last second of a process killed without exiting (SIGKILL, the
  OOM killer, a worker timeout); an idle process's counts reach the cache at its next
  request or its exit. A cache that keeps nothing (``dummycache://``) counts in the
  database instead, one upsert a request; an unreachable cache, at the next addition.
- ``ApiKey.last_used_at`` is written at most once a ``LAST_USED_EVERY`` per key: when the
  time read with the key is older, a conditional UPDATE (so that of several workers only
  one wins) moves it to now, and that request moves the counted requests before it from
  the cache to ``ApiKeyUsage`` (``flush``).

So the database learns a key's counts at most a minute of its use late, and
``manage.py flush_api_usage`` (cron, or before reading the counts) brings them up to date.
Writes go to the primary by name: bookkeeping must not pin a partner to it
(``newsroom.infra.db_router``).
"""

from __future__ import annotations

import atexit
import datetime as dt
import threading
import time

from django.core.cache import cache, caches
from django.core.cache.backends.dummy import DummyCache
from django.db import DEFAULT_DB_ALIAS
from django.db.models import Q
from django.utils import timezone

from . import keys
from .models import ApiKey, ApiKeyUsage

LAST_USED_EVERY = dt.timedelta(minutes=1)
COUNTER_TTL = 3 * 24 * 3600  # a day's counter outlives the day, so the next flush still finds it
FLUSH_LOCK_TTL = 30
ADD_EVERY = 1.0  # seconds between a process's additions of its counts to the cache

_pending: dict[tuple[int, dt.date], int] = {}  # this process's counts not yet in the cache
_lock = threading.Lock()
_added_at = time.monotonic()


def counter_key(key_id: int, day: dt.date) -> str:
    return f"apiusage:{key_id}:{day.isoformat()}"


def record_use(key: ApiKey, *, now: dt.datetime | None = None) -> None:
    """Count one request made with ``key`` (loaded with its ``last_used_at``)."""
    last = key.last_used_at.timestamp() if key.last_used_at is not None else None
    record_use_of(key.pk, key.prefix, last, now=now)


def record_use_of(key_id: int, prefix: str, last_used: float | None, *, now: dt.datetime | None = None) -> None:
    """``record_use`` for the key ``key_id`` of ``prefix`` last used at the timestamp
    ``last_used`` (the warm path's plain values, ``keys.record_of``)."""
    now = now or timezone.now()
    if last_used is None or now.timestamp() - last_used >= LAST_USED_EVERY.total_seconds():
        due = Q(last_used_at__isnull=True) | Q(last_used_at__lte=now - LAST_USED_EVERY)
        won = ApiKey.objects.using(DEFAULT_DB_ALIAS).filter(due, pk=key_id).update(last_used_at=now)
        keys.forget(prefix, stale_only=True)  # the cached key's last_used_at is now old: read it again
        if won:
            flush(key_id, today=now.date())
    _count(key_id, now.date())


def _count(key_id: int, day: dt.date) -> None:
    if isinstance(caches["default"], DummyCache):  # keeps nothing: count where it is kept
        ApiKeyUsage.count_request(key_id, day, using=DEFAULT_DB_ALIAS)
        return
    with _lock:
        _pending[key_id, day] = _pending.get((key_id, day), 0) + 1
    if time.monotonic() - _added_at >= ADD_EVERY:
        add_pending()


def add_pending() -> int:
    """Add this process's counts to the cache's counters (the database's when the cache is
    unreachable); returns how many requests."""
    global _added_at
    with _lock:
        pending = dict(_pending)
        _pending.clear()
        _added_at = time.monotonic()
    for (key_id, day), n in pending.items():
        if not _add(counter_key(key_id, day), n):
            ApiKeyUsage.count_request(key_id, day, n=n, using=DEFAULT_DB_ALIAS)
    return sum(pending.values())


def _add(name: str, n: int) -> bool:
    cache_ = caches["default"]
    try:
        try:
            cache_.incr(name, n)
        except ValueError:  # the first count of the day (or the counter expired)
            if not cache_.add(name, n, COUNTER_TTL):
                cache_.incr(name, n)  # another process made it between our incr and add
        return True
    except Exception:  # the cache unreachable, or a cache that keeps nothing
        return False


def _add_at_exit() -> None:
    try:
        add_pending()
    except Exception:  # nowhere to count them: the process is going anyway
        pass


atexit.register(_add_at_exit)  # a worker's last second of counts, at its (graceful) exit


def flush(key_id: int, *, today: dt.date | None = None) -> int:
    """Move the key's counted requests (yesterday's and today's) from the cache to
    ``ApiKeyUsage``; returns how many. One flusher at a time per key (a cache lock): two
    reading the same counter would add it twice."""
    today = today or timezone.now().date()
    add_pending()
    lock = f"apiusage:flush:{key_id}"
    if not cache.add(lock, 1, FLUSH_LOCK_TTL):
        return 0
    moved = 0
    try:
        days = {counter_key(key_id, day): day for day in (today - dt.timedelta(days=1), today)}
        for name, count in cache.get_many(list(days)).items():
            if not count or count <= 0:
                continue
            try:
                cache.decr(name, count)  # requests counted meanwhile stay in the counter
            except ValueError:
                continue  # expired or evicted since the read: nothing to move
            ApiKeyUsage.count_request(key_id, days[name], n=count, using=DEFAULT_DB_ALIAS)
            moved += count
    finally:
        cache.delete(lock)
    return moved


def flush_all() -> int:
    return sum(flush(key_id) for key_id in ApiKey.objects.values_list("pk", flat=True))
