"""Failed logins limited per username and client address, and per client address.

After ``LOGIN_ATTEMPTS`` failed attempts for one username from one address within
``LOGIN_WINDOW_SECONDS`` (counted from the first failure), further login POSTs for that
username from that address get a 429 with ``Retry-After`` until the window passes, whatever
the password. Independently, after ``LOGIN_ADDRESS_ATTEMPTS`` failures from one address,
whatever the usernames, every login POST from that address gets a 429 until its window
passes: one password tried against many usernames (a spray) is limited too.

A successful login clears only its own username+address count: never another address's
lock, and never the address's own count across usernames (else an attacker holding one
account could log in between sprays to start again).

The username is counted as Django compares it. The login form cleans what was typed
(``UsernameField``: surrounding spaces stripped, Unicode NFKC, so full-width ``ｅｄｉｔｏｒ``
*is* ``editor``) before ``authenticate()`` looks it up; the middleware applies the same
cleaning to the POSTed name before looking at the count, so no spelling that reaches an
account escapes that account's count. Case is folded on top (``Editor`` and ``editor``
share a count): Django's own lookup is exact on PostgreSQL and SQLite, so folding only ever
counts more, and it stays right on a database whose collation ignores case.

An admin login POST is counted as a failure by ``LoginThrottleMiddleware`` before the
login view tries its password, and a success takes its count back: passwords sent at once
all reach the middleware before any has failed, and counting them afterwards would let a
burst try as many as it sends. Each count is one atomic addition in the cache
(``count_and_read``), so concurrent failures are all counted. Logins through
``authenticate()`` elsewhere are counted from Django's ``user_login_failed`` signal. The
refusal happens before the admin's login view runs, so a locked-out attacker cannot even
test a password.

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
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.urls import reverse

from .cache import count_and_read

logger = logging.getLogger(__name__)
COUNTED = "_login_attempt_counted"  # set on a request whose attempt the middleware counted


def _attempts() -> int:
    return getattr(settings, "LOGIN_ATTEMPTS", 5)


def _address_attempts() -> int:
    return getattr(settings, "LOGIN_ADDRESS_ATTEMPTS", 4 * _attempts())


def _window() -> int:
    return getattr(settings, "LOGIN_WINDOW_SECONDS", 900)


def _key(username: str, address: str) -> str:
    # Hashed: a username typed by an attacker is not a safe cache key (length, spaces).
    digest = hashlib.sha256(f"{(username or '').casefold()}\x00{address}".encode()).hexdigest()
    return f"login-fail:{digest}"


def _address_key(address: str) -> str:
    return "login-fail-address:" + hashlib.sha256(address.encode()).hexdigest()


def cleaned_username(raw) -> str:
    """The POSTed username as the admin's login form hands it to ``authenticate()``.

    The form's own field does the cleaning (strip, then NFKC unless longer than the
    username's maximum length, which the form refuses without authenticating).
    """
    from django.contrib import admin
    from django.contrib.admin.forms import AdminAuthenticationForm

    field = (admin.site.login_form or AdminAuthenticationForm)().fields["username"]
    try:
        return field.to_python(raw) or ""
    except ValidationError:
        return ""


def client_address(request) -> str:
    """The client's address as the outermost of ``TRUSTED_PROXY_COUNT`` proxies saw it.

    Each trusted proxy appends the address it received the request from to
    ``X-Forwarded-For``, so with N of them the N-th entry from the right is the client's.
    A header with fewer than N entries did not come through all N proxies (a request that
    bypassed the edge, or reached gunicorn directly): all of it may be the client's own
    writing, so the connecting address, ``REMOTE_ADDR``, is used. With no header, or N = 0,
    it is ``REMOTE_ADDR`` too.
    """
    if request is None:
        return "unknown"
    remote = request.META.get("REMOTE_ADDR") or "unknown"
    proxies = getattr(settings, "TRUSTED_PROXY_COUNT", 0)
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if proxies <= 0:
        return remote
    hops = [hop.strip() for hop in forwarded.split(",")]
    if len(hops) < proxies or not hops[-proxies]:
        return remote
    return hops[-proxies]


def _window_end(key: str, now: float) -> float:
    """When the current window of ``key``'s count ends. A window starts at the first attempt
    after the last one ended; requests that find none at the same moment agree on one
    (``cache.add`` elects it), so concurrent attempts share one count."""
    window = _window()
    ends_key = key + ":ends"
    ends = cache.get(ends_key)
    if ends is None:
        fresh = now + window
        if cache.add(ends_key, fresh, timeout=window + 1):
            return fresh
        ends = cache.get(ends_key)
        if ends is None:
            return fresh  # the cache keeps nothing: the count fails open
    if ends <= now:  # past by the clock before the cache dropped it: the next window on its grid,
        ends += window * (int((now - ends) // window) + 1)  # the same for every request
        cache.set(ends_key, ends, timeout=int(ends - now) + 1)
    return ends


def _counter(key: str, ends: float) -> str:
    """The count of the window ending at ``ends``: a new window counts under a new key, so
    no request ever resets a count another is adding to."""
    return f"{key}:{ends:.6f}"


def _read(key: str) -> tuple[int, float]:
    ends = cache.get(key + ":ends")
    if ends is None or ends <= time.time():
        return 0, 0.0
    return cache.get(_counter(key, ends)) or 0, ends


def _count(key: str) -> int:
    """Count one attempt under ``key``, atomically (concurrent attempts are each counted);
    the window starts at the first. Returns the count."""
    now = time.time()
    ends = _window_end(key, now)
    count, _ = count_and_read(cache, _counter(key, ends), int(ends - now) + 1)
    return count or 0


def _uncount(key: str) -> None:
    """Take back one attempt counted under ``key`` in its current window (a success)."""
    ends = cache.get(key + ":ends")
    if ends is not None:
        try:
            cache.decr(_counter(key, ends))
        except ValueError:
            pass  # the window ended, or the cache dropped it


def _wait(key: str, limit: int) -> int:
    count, ends = _read(key)
    wait = ends - time.time()
    return int(wait + 0.999) if count >= limit and wait > 0 else 0


def failures(username: str, address: str) -> tuple[int, float]:
    """(failed attempts in the current window, the time the window ends)."""
    return _read(_key(username, address))


def record_failure(username: str, address: str) -> int:
    """Count one failure for the username from the address. Returns the count."""
    return _count(_key(username, address))


def record_address_failure(address: str) -> int:
    """Count one failure from the address, whatever the username. Returns the count."""
    return _count(_address_key(address))


def reset(username: str, address: str) -> None:
    key = _key(username, address)
    ends = cache.get(key + ":ends")
    cache.delete_many([key + ":ends", *([_counter(key, ends)] if ends is not None else [])])


def blocked_for(username: str, address: str) -> int:
    """Seconds this username from this address must wait, or 0."""
    return _wait(_key(username, address), _attempts())


def address_blocked_for(address: str) -> int:
    """Seconds this address must wait before any login, or 0."""
    return _wait(_address_key(address), _address_attempts())


def on_login_failed(sender, credentials, request=None, **kwargs):
    # Exactly what authenticate() compared (the login form has already cleaned it).
    username = credentials.get("username", "")
    address = client_address(request)
    if getattr(request, COUNTED, False):  # the admin's login: counted before it was tried
        count, from_address = failures(username, address)[0], _read(_address_key(address))[0]
    else:
        count = record_failure(username, address)
        from_address = record_address_failure(address) if request is not None else 0
    if count >= _attempts() or from_address >= _address_attempts():
        # The username is logged (to spot an attack), never the password (Django already
        # masks it in ``credentials``).
        logger.warning(
            "login throttled: %d failed attempts for %r and %d for any username from %s",
            count,
            username,
            from_address,
            address,
        )


def on_logged_in(sender, request, user, **kwargs):
    # Only this username from this address: the address's count across usernames stays,
    # less this attempt, which did not fail.
    address = client_address(request)
    reset(user.get_username(), address)
    if getattr(request, COUNTED, False):
        _uncount(_address_key(address))


class LoginThrottleMiddleware:
    """Refuses a login POST (the admin's login URL) while its username+address, or its
    address, is locked out; else counts it as a failure before the password is tried, so
    that attempts sent at once are refused past the limit as attempts sent one by one are
    (a success takes its count back)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method == "POST" and request.path == reverse("admin:login"):
            address = client_address(request)
            username = cleaned_username(request.POST.get("username"))
            wait, whose = blocked_for(username, address), "this username"
            if not wait:
                wait, whose = address_blocked_for(address), "this address"
            if not wait:
                setattr(request, COUNTED, True)
                over_name = record_failure(username, address) > _attempts()
                over_address = record_address_failure(address) > _address_attempts()
                if over_name:
                    wait, whose = blocked_for(username, address), "this username"
                elif over_address:
                    wait, whose = address_blocked_for(address), "this address"
            if wait:
                response = HttpResponse(
                    f"Too many failed login attempts for {whose}. Try again in {wait} seconds.\n",
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
