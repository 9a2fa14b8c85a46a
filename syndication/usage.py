"""Per-key bookkeeping without a database write on every request.

- The day's request count is a counter in the cache (``apiusage:<key id>:<day>``), one
  round trip a request (``newsroom.infra.cache.count_and_read``). A cache that keeps nothing (``dummycache://``) or is unreachable
  counts in the database instead, one upsert a request, as before.
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

import datetime as dt

from django.core.cache import cache, caches
from django.core.cache.backends.dummy import DummyCache
from django.db import DEFAULT_DB_ALIAS
from django.db.models import Q
from django.utils import timezone

from newsroom.infra.cache import count_and_read

from . import keys
from .models import ApiKey, ApiKeyUsage

LAST_USED_EVERY = dt.timedelta(minutes=1)
COUNTER_TTL = 3 * 24 * 3600  # a day's counter outlives the day, so the next flush still finds it
FLUSH_LOCK_TTL = 30


def counter_key(key_id: int, day: dt.date) -> str:
    return f"apiusage:{key_id}:{day.isoformat()}"


def record_use(key: ApiKey, *, now: dt.datetime | None = None) -> None:
    """Count one request made with ``key`` (loaded with its ``last_used_at``)."""
    now = now or timezone.now()
    if key.last_used_at is None or now - key.last_used_at >= LAST_USED_EVERY:
        due = Q(last_used_at__isnull=True) | Q(last_used_at__lte=now - LAST_USED_EVERY)
        won = ApiKey.objects.using(DEFAULT_DB_ALIAS).filter(due, pk=key.pk).update(last_used_at=now)
        keys.forget(key.prefix)  # the cached key's last_used_at is now old: read it again
        if won:
            flush(key.pk, today=now.date())
    _count(key.pk, now.date())


def _count(key_id: int, day: dt.date) -> None:
    if isinstance(caches["default"], DummyCache):  # keeps nothing: count where it is kept
        ApiKeyUsage.count_request(key_id, day, using=DEFAULT_DB_ALIAS)
        return
    counted, _ = count_and_read(caches["default"], counter_key(key_id, day), COUNTER_TTL)
    if counted is None:  # the cache is unreachable: count in the database
        ApiKeyUsage.count_request(key_id, day, using=DEFAULT_DB_ALIAS)


def flush(key_id: int, *, today: dt.date | None = None) -> int:
    """Move the key's counted requests (yesterday's and today's) from the cache to
    ``ApiKeyUsage``; returns how many. One flusher at a time per key (a cache lock): two
    reading the same counter would add it twice."""
    today = today or timezone.now().date()
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
