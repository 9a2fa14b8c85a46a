"""Liveness and readiness probes.

``/healthz``: the process is up and serving Python (touches nothing else, so a database
outage does not make an orchestrator restart every app server). ``/readyz``: the database
answers ``SELECT 1`` (the primary and every replica) and the cache round-trips a value; 503
with JSON naming each check that failed, so a load balancer stops sending traffic (unless
the check is listed in ``READYZ_OPTIONAL``). The probe is public and unthrottled (a load
balancer must always reach it), so each process runs the checks at most once every
``READYZ_CACHE_SECONDS`` and answers the probes in between from that round: requests that
arrive while a round runs wait for it instead of starting their own.
"""

import logging
import threading
import time
import uuid

from django.conf import settings
from django.core.cache import caches
from django.db import connections
from django.http import JsonResponse

logger = logging.getLogger(__name__)

_recent_lock = threading.Lock()
_recent: tuple[float, dict[str, str]] | None = None  # (monotonic time of the round, its results)


def _no_store(response):
    response["Cache-Control"] = "no-store"
    return response


def healthz(request):
    """The process is up."""
    return _no_store(JsonResponse({"status": "ok"}))


def check_database(alias: str) -> None:
    """Raise unless database ``alias`` answers ``SELECT 1``."""
    with connections[alias].cursor() as cursor:
        cursor.execute("SELECT 1")
        if cursor.fetchone()[0] != 1:
            raise RuntimeError("SELECT 1 returned something else")


def check_cache(alias: str = "default") -> None:
    """Raise unless cache ``alias`` gives back a value just stored in it."""
    if settings.CACHES[alias]["BACKEND"].endswith("DummyCache"):
        return  # the dummy cache stores nothing by design (cold-path benchmarks)
    cache = caches[alias]
    key, value = f"readyz:{uuid.uuid4().hex}", uuid.uuid4().hex
    cache.set(key, value, timeout=10)
    if cache.get(key) != value:
        raise RuntimeError("a value set was not read back")
    cache.delete(key)


def readiness() -> dict[str, str]:
    """Every check's outcome: ``{"database:default": "ok", "cache": "error: ..."}``."""
    checks = {f"database:{alias}": (lambda a=alias: check_database(a)) for alias in settings.DATABASES}
    checks["cache"] = check_cache
    results = {}
    for name, check in checks.items():
        try:
            check()
        except Exception as exc:  # any failure means not ready; the name says which
            logger.warning("readiness check %s failed: %s", name, exc)
            results[name] = f"error: {type(exc).__name__}"
        else:
            results[name] = "ok"
    return results


def recent_readiness() -> dict[str, str]:
    """``readiness()``, run again only when this process's last round is older than
    ``READYZ_CACHE_SECONDS`` (0: every call)."""
    global _recent
    ttl = settings.READYZ_CACHE_SECONDS
    with _recent_lock:  # one round at a time; whoever waited takes its results
        if _recent is not None and 0 <= time.monotonic() - _recent[0] < ttl:
            return _recent[1]
        results = readiness()
        _recent = (time.monotonic(), results)
        return results


def forget_readiness() -> None:
    """Drop this process's last round: the next probe runs the checks."""
    global _recent
    with _recent_lock:
        _recent = None


def readyz(request):
    """200 when every dependency answers, else 503 naming the ones that did not.

    Checks named by a prefix in ``settings.READYZ_OPTIONAL`` (e.g. ``cache``,
    ``database:replica``) are reported but do not make the probe fail: the site survives
    them, and a shared dependency failing must not take every app server out of the load
    balancer at once. The status is then ``degraded``.
    """
    results = recent_readiness()
    failed = sorted(name for name, outcome in results.items() if outcome != "ok")
    optional = tuple(settings.READYZ_OPTIONAL)
    fatal = [name for name in failed if not name.startswith(optional)] if optional else failed
    status = "fail" if fatal else "degraded" if failed else "ok"
    body = {"status": status, "checks": results}
    if failed:
        body["failed"] = failed
    return _no_store(JsonResponse(body, status=503 if fatal else 200))


PROBES = {"/healthz": healthz, "/readyz": readyz}
