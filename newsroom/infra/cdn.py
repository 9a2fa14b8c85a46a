"""Purging pages from a CDN in front of the site.

Set ``CDN_PURGE_URL`` to an endpoint that accepts ``POST`` with a JSON body
``{"urls": ["https://site/path/", ...]}`` (most CDNs offer one, or a small adapter in front
of their API); ``CDN_PURGE_TOKEN``, if set, is sent as ``Authorization: Bearer <token>``.
Unset, purging does nothing. ``stories.cache`` calls ``purge_on_commit(urls)`` when a story is
published, corrected or unpublished, so a purge is sent only once the change that makes the
pages stale is committed.
"""

import json
import logging
import urllib.error
import urllib.request

from django.conf import settings
from django.db import transaction

logger = logging.getLogger(__name__)


def absolute(url: str) -> str:
    """``url`` made absolute against ``SITE_URL`` if it is a path."""
    return f"{settings.SITE_URL}{url}" if url.startswith("/") else url


def purge(urls) -> bool:
    """POST the URLs to ``CDN_PURGE_URL``; True if the CDN answered 2xx (or nothing to do).

    Never raises: a failed purge is logged and the caller's work stands (pages then expire
    by their own cache lifetime). The return value lets an outbox retry.
    """
    endpoint = settings.CDN_PURGE_URL
    urls = sorted({absolute(u) for u in urls})
    if not endpoint or not urls:
        return True
    headers = {"Content-Type": "application/json"}
    if settings.CDN_PURGE_TOKEN:
        headers["Authorization"] = f"Bearer {settings.CDN_PURGE_TOKEN}"
    body = json.dumps({"urls": urls}).encode()
    request = urllib.request.Request(endpoint, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=settings.CDN_PURGE_TIMEOUT) as response:
            ok = 200 <= response.status < 300
    except (urllib.error.URLError, OSError, ValueError) as exc:
        logger.warning("CDN purge of %d URLs failed: %s", len(urls), exc)
        return False
    if not ok:
        logger.warning("CDN purge of %d URLs answered %s", len(urls), response.status)
    return ok


def purge_on_commit(urls, using=None) -> None:
    """Purge ``urls`` once the current transaction commits (at once outside a transaction)."""
    urls = list(urls)
    transaction.on_commit(lambda: purge(urls), using=using)
