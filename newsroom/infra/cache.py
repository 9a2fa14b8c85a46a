"""The cache backends: ``LocalDiskCache``, the default without ``CACHE_URL``; and a Redis
cache that degrades to misses when Redis is unreachable.

``LocalDiskCache`` is diskcache's Django backend (SQLite files in WAL mode, shared by every
process on the machine) with settings for this site: bodies of rendered pages kept inline in
SQLite (no file per entry), and a busy timeout of a second after which a read misses rather
than waits (shorter, a loaded machine turned reads into misses: generations looked new on
every request and counters read as empty).
Every worker and every management command reads and writes the same entries, generations
and counters, so what one process changes (a story imported, a key revoked) the next request
to any other process sees; ``incr`` is atomic, so throttles count across workers.

Django's ``RedisCache`` raises ``redis.ConnectionError`` from every call when Redis is down,
which would turn a cache outage into a site outage. ``DegradingRedisCache`` catches
connection and timeout errors, logs them (at most once per ``LOG_EVERY`` seconds), and
answers as an empty cache would: ``get`` misses, ``set`` stores nothing, ``add`` reports it
did not store, ``incr`` raises ``ValueError`` as for a missing key. After a failure it skips
Redis for ``RETRY_AFTER`` seconds (a circuit breaker), so a Redis host that drops packets
does not cost a connect timeout on every call.

What degrades: pages render on every request, throttle counters reset (rate limits fail
open while Redis is down), sessions fall back to the database (``cached_db``).
"""

import functools
import logging
import os
import stat
import time

from diskcache import DjangoCache
from django.core.cache import BaseCache
from django.core.cache.backends.redis import RedisCache
from django.core.exceptions import ImproperlyConfigured
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

_UNREACHABLE = (RedisConnectionError, RedisTimeoutError)


def _degrades_to(fallback):
    """Wrap a cache method: on a connection failure, return ``fallback(*args)`` instead."""

    def decorate(method):
        @functools.wraps(method)
        def guarded(self, *args, **kwargs):
            if time.monotonic() < self._down_until:
                return fallback(*args, **kwargs)
            try:
                return method(self, *args, **kwargs)
            except _UNREACHABLE as exc:
                self._mark_down(method.__name__, exc)
                return fallback(*args, **kwargs)

        return guarded

    return decorate


def _default(key, default=None, *args, **kwargs):
    return default


def _nothing(*args, **kwargs):
    return None


def _false(*args, **kwargs):
    return False


def _empty(*args, **kwargs):
    return {}


def _missing_key(key, *args, **kwargs):
    raise ValueError(f"Key '{key}' not found (cache unreachable)")


class DegradingRedisCache(RedisCache):
    """Django's built-in ``RedisCache`` that answers as an empty cache while Redis is down."""

    RETRY_AFTER = 5.0
    LOG_EVERY = 30.0

    def __init__(self, server, params):
        super().__init__(server, params)
        self._down_until = 0.0
        self._last_logged = float("-inf")

    def _mark_down(self, operation: str, exc: Exception) -> None:
        now = time.monotonic()
        self._down_until = now + self.RETRY_AFTER
        if now - self._last_logged >= self.LOG_EVERY:
            self._last_logged = now
            logger.error("cache unreachable during %s, serving without it: %s", operation, exc)

    get = _degrades_to(_default)(RedisCache.get)
    get_many = _degrades_to(_empty)(RedisCache.get_many)
    has_key = _degrades_to(_false)(RedisCache.has_key)
    set = _degrades_to(_nothing)(RedisCache.set)
    set_many = _degrades_to(lambda data, *a, **kw: list(data))(RedisCache.set_many)
    add = _degrades_to(_false)(RedisCache.add)
    touch = _degrades_to(_false)(RedisCache.touch)
    delete = _degrades_to(_false)(RedisCache.delete)
    delete_many = _degrades_to(_nothing)(RedisCache.delete_many)
    incr = _degrades_to(_missing_key)(RedisCache.incr)
    clear = _degrades_to(_false)(RedisCache.clear)

    @_degrades_to(lambda *args, **kwargs: (None, None))
    def count(self, name: str, ttl: int, other: str | None = None) -> tuple[int | None, int | None]:
        """``count_and_read`` in one round trip: INCR, EXPIRE NX and GET in a pipeline."""
        key = self.make_and_validate_key(name)
        pipe = self._cache.get_client(key, write=True).pipeline(transaction=False)
        pipe.incr(key)
        pipe.expire(key, ttl, nx=True)
        if other is not None:
            pipe.get(self.make_and_validate_key(other))
        results = pipe.execute()
        return results[0], (int(results[2]) if other is not None and results[2] is not None else None)


def private_directory(directory: str) -> None:
    """Make ``directory`` (mode 0700) or check that it is this user's alone.

    The cache holds sessions (``cached_db``) and pickled values: a directory another local
    user can read leaks sessions, and one they can write (or made first, in a shared
    temporary directory) runs their pickles here. Such a directory, or one that cannot be
    made, is refused with an error that names it."""
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        info = os.lstat(directory)
    except OSError as exc:
        raise ImproperlyConfigured(f"the cache directory {directory} cannot be made: {exc.strerror}") from None
    if not stat.S_ISDIR(info.st_mode):  # a link to a directory: not followed
        raise ImproperlyConfigured(f"the cache directory {directory} is not a directory")
    if info.st_uid != os.geteuid():
        raise ImproperlyConfigured(
            f"the cache directory {directory} belongs to another user: set CACHE_DIR to a directory of your own"
        )
    if info.st_mode & 0o077:
        os.chmod(directory, 0o700)  # ours: readable by this user only
    if not os.access(directory, os.W_OK | os.X_OK):
        raise ImproperlyConfigured(f"the cache directory {directory} is not writable")


class LocalDiskCache(DjangoCache):
    """diskcache's ``DjangoCache`` with this site's defaults (any of them can be overridden
    in ``CACHES``: ``SHARDS``, ``DATABASE_TIMEOUT``, ``OPTIONS``)."""

    def __init__(self, directory, params):
        private_directory(directory)
        params = {"SHARDS": 4, "DATABASE_TIMEOUT": 1.0, **params}
        params["OPTIONS"] = {
            "disk_min_file_size": 4 * 1024 * 1024,  # page bodies inline in SQLite
            "size_limit": 2 * 1024**3,
            **params.get("OPTIONS", {}),
        }
        super().__init__(directory, params)

    def close(self, **kwargs):
        """Keep the SQLite connections open between requests: Django closes caches when each
        request finishes, and reopening costs a dozen statements per shard."""


def count_and_read(cache: BaseCache, name: str, ttl: int, other: str | None = None) -> tuple[int | None, int | None]:
    """Add one to the counter ``name`` (made to live ``ttl`` seconds by its first use) and
    read the counter ``other``: ``(new count, other's count or None)``. The count is None
    when the cache is unreachable (callers fail open).

    On Redis (``DegradingRedisCache``) it is one round trip whatever the counts, where a
    pickled list (DRF's throttle history) grows with the rate; elsewhere ``add``/``incr``/``get``.
    Counters are plain integers, so ``cache.get`` reads them and ``cache.decr`` moves them.
    """
    if isinstance(cache, DegradingRedisCache):
        return cache.count(name, ttl, other)
    try:
        value = cache.incr(name)
    except ValueError:  # the first use (or the counter expired)
        value = 1 if cache.add(name, 1, ttl) else None
        if value is None:
            try:
                value = cache.incr(name)  # another request made it between our incr and add
            except ValueError:
                value = None  # the cache keeps nothing or is unreachable
    seen = cache.get(other) if other is not None else None
    return value, seen
