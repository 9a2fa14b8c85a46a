"""Warm a fresh server process before it takes requests (gunicorn's ``post_worker_init``).

Django imports much of the site lazily, on the first request that needs it: the cache
backend (and with it the Redis client, ~0.5 s), the URL configuration (every view module
and DRF, ~0.5 s), each template on its first render. A new gunicorn worker -- at start-up
and after every recycle (``max_requests``) -- therefore spent about 1 s on its first request
(3-4 s on a busy 2-core machine) while requests queued behind it; see docs/benchmarks.md,
"Load: wrk against the story page and the API". ``warm()`` pays that once, before the worker accepts.

It touches neither the database nor the network, so a worker still boots while PostgreSQL
or Redis is down (the 503 path of ``DatabaseUnavailableMiddleware`` is unchanged).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

logger = logging.getLogger(__name__)


def warm() -> float:
    """Import the URL configuration and cache backend and compile the site's templates.

    Returns the seconds it took. Never raises: a failure here only means a cold first request.
    """
    started = time.monotonic()
    try:
        from django.core.cache import caches
        from django.template import engines
        from django.urls import get_resolver

        get_resolver()._populate()  # imports every view module the URLconf names
        for alias in caches:  # builds each backend, importing its client library
            caches[alias]
        for engine in engines.all():
            _compile_templates(engine)
    except Exception:  # pragma: no cover - warming is an optimisation, never a boot failure
        logger.warning("warm-up failed; the first request will pay for it", exc_info=True)
    return time.monotonic() - started


def _compile_templates(engine) -> None:
    """Load every template under the engine's DIRS (the site's own templates, not apps')."""
    for directory in getattr(engine, "dirs", []):
        root = Path(directory)
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix in {".html", ".txt", ".xml"}:
                try:
                    engine.get_template(path.relative_to(root).as_posix())
                except Exception:  # a partial that only compiles in context: leave it cold
                    logger.debug("template %s not warmed", path, exc_info=True)
