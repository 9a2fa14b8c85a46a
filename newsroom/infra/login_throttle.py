"""Failed logins limited per username and client address, on the shared cache.

After ``LOGIN_ATTEMPTS`` failed attempts for one username from one address within
``LOGIN_WINDOW_SECONDS`` (counted from the first failure), further login POSTs for that
username from that address get a 429 with ``Retry-After`` until the window passes, whatever
the password. A successful login clears the count. Other usernames, and the same username
from other addresses, are unaffected.

Failures are counted from Django's ``user_login_failed`` signal, so every login that goes
through ``authenticate()`` counts; the refusal happens in ``LoginThrottleMiddleware``
before the admin's login view runs, so a locked-out attacker cannot even test a password.

The address is the client's: ``REMOTE_ADDR``, or, behind ``TRUSTED_PROXY_COUNT`` proxies
(nginx, a balancer, a CDN) that each append to ``X-Forwarded-For``, the entry that many
places from its right end, the one the outermost trusted proxy wrote (``client_address``).
Entries further left are the client's own to forge, so they are never used.

With the cache down (``newsroom.infra.cache``) the counts are lost and logins are not limited:
the limiter fails open, like the API throttle.
"""

import hashlib
import logging
import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse
from django.urls import reverse

logger = logging.getLogger(__name__)


def _attempts() -> int:
    return getattr(settings, "LOGIN_ATTEMPTS", 5)


def _window() -> int:
    return getattr(settings, "LOGIN_WINDOW_SECONDS", 900)


def _key(username: str, address: str) -> str:
    # Hashed: a username typed by an attacker is not a safe cache key (length, spaces).
    digest = hashlib.sha256(f"{(username or '').strip().casefold()}\x00{address}".encode()).hexdigest()
    return f"login-fail:{digest}"


def client_address(request) -> str:
    """The client's address as the outermost of ``TRUSTED_PROXY_COUNT`` proxies saw it.

    Each trusted proxy appends the address it received the request from to
    ``X-Forwarded-For``, so with N of them the N-th entry from the right is the client's.
    A header shorter than N (a request that bypassed a proxy) falls back to its leftmost
    entry; with no header, or N = 0, it is ``REMOTE_ADDR``.
    """
    if request is None:
        return "unknown"
    remote = request.META.get("REMOTE_ADDR") or "unknown"
    proxies = getattr(settings, "TRUSTED_PROXY_COUNT", 0)
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if proxies <= 0 or not forwarded.strip():
        return remote
    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    return hops[-min(proxies, len(hops))] if hops else remote


def failures(username: str, address: str) -> tuple[int, float]:
    """(failed attempts in the current window, the time the window ends)."""
    state = cache.get(_key(username, address))
    return state if state else (0, 0.0)


def record_failure(username: str, address: str) -> int:
    """Count one failure; the window starts at the first. Returns the count."""
    key = _key(username, address)
    count, ends = failures(username, address)
    now = time.time()
    if not count or ends <= now:
        count, ends = 0, now + _window()
    count += 1
    cache.set(key, (count, ends), timeout=max(1, int(ends - now + 1)))
    return count


def reset(username: str, address: str) -> None:
    cache.delete(_key(username, address))


def blocked_for(username: str, address: str) -> int:
    """Seconds this username from this address must wait, or 0."""
    count, ends = failures(username, address)
    wait = ends - time.time()
    return int(wait + 0.999) if count >= _attempts() and wait > 0 else 0


def on_login_failed(sender, credentials, request=None, **kwargs):
    username = credentials.get("username", "")
    count = record_failure(username, client_address(request))
    if count >= _attempts():
        # The username is logged (to spot an attack), never the password (Django already
        # masks it in ``credentials``).
        logger.warning("login throttled: %d failed attempts for %r from %s", count, username, client_address(request))


def on_logged_in(sender, request, user, **kwargs):
    reset(user.get_username(), client_address(request))


class LoginThrottleMiddleware:
    """Refuses a login POST (the admin's login URL) while its username+address is locked out."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method == "POST" and request.path == reverse("admin:login"):
            wait = blocked_for(request.POST.get("username", ""), client_address(request))
            if wait:
                response = HttpResponse(
                    f"Too many failed login attempts for this username. Try again in {wait} seconds.\n",
                    status=429,
                    content_type="text/plain; charset=utf-8",
                )
                response["Retry-After"] = str(wait)
                return response
        return self.get_response(request)


def connect() -> None:
    from django.contrib.auth.signals import user_logged_in, user_login_failed

    user_login_failed.connect(on_login_failed, dispatch_uid="newsroom.infra.login_throttle.failed")
    user_logged_in.connect(on_logged_in, dispatch_uid="newsroom.infra.login_throttle.logged_in")
