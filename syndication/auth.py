"""Partner keys: ``Authorization: Bearer <key>`` authentication, scopes and the per-key throttle."""

import hmac

from django.core.cache import caches
from rest_framework import authentication, exceptions, permissions, throttling
from rest_framework.settings import api_settings

from newsroom.infra.cache import count_and_read
from newsroom.infra.login_throttle import client_address

from . import keys, usage
from .models import KEY_PREFIX, ApiKey, hash_secret


class PartnerUser:
    """The request's ``user`` when a partner key authenticated it (not a Django user: partners
    have no password, no session and no admin access)."""

    is_authenticated = True
    is_anonymous = False
    is_staff = False
    is_superuser = False
    pk = None

    def __init__(self, key: ApiKey):
        self.key = key
        self.partner = key.partner

    def __str__(self):
        return f"partner {self.partner.slug}"

    def has_perm(self, perm, obj=None) -> bool:
        return False


def _parse(token: str) -> str | None:
    """The prefix of a well-formed key, or None."""
    parts = token.split("_")
    if len(parts) < 3 or parts[0] != KEY_PREFIX or not parts[1]:
        return None
    return parts[1]


class ApiKeyAuthentication(authentication.BaseAuthentication):
    """Reads ``Authorization: Bearer hc_<prefix>_<secret>``. Without a Bearer header it returns
    None so a staff session can still authenticate; with a bad, revoked or unknown key it
    fails with 401 (never naming the key: it must not reach a log)."""

    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Authorization: Bearer needs exactly one key")
        try:
            token = header[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("the key is not valid") from None
        client = client_address(request)  # REMOTE_ADDR, or as the trusted proxies saw it
        key, wait = self.lookup(token, client)
        if wait is None and key is None:
            wait = keys.count_failure(client)
        if wait is not None:
            # Too many bad keys from this address: no more look-ups for a while.
            raise exceptions.Throttled(wait=wait, detail="too many invalid keys from this address")
        if key is None:
            raise exceptions.AuthenticationFailed("the key is not valid, or has been revoked")
        self.record_use(key)
        return PartnerUser(key), key

    @staticmethod
    def lookup(token: str, client: str | None = None) -> tuple[ApiKey | None, float | None]:
        """``(key or None, None)``, or ``(None, seconds to wait)`` for a blocked client."""
        prefix = _parse(token)
        if prefix is None:
            return None, None
        key, wait = keys.lookup(prefix, client)
        if key is None or not hmac.compare_digest(key.hashed_secret, hash_secret(token)):
            return None, wait
        return key, None

    @staticmethod
    def record_use(key: ApiKey) -> None:
        """Bookkeeping, not a write by the client: the day's count in the cache, the last use
        at most once a minute (``syndication.usage``)."""
        usage.record_use(key)

    def authenticate_header(self, request):
        return f'{self.keyword} realm="api"'


def api_key(request) -> ApiKey | None:
    return request.auth if isinstance(request.auth, ApiKey) else None


class IsPartnerOrStaff(permissions.BasePermission):
    """Any valid key (read or writer), or a staff member's session; reads only."""

    message = "a partner key or a staff session is required"

    def has_permission(self, request, view):
        if api_key(request) is not None:
            return request.method in permissions.SAFE_METHODS or getattr(view, "any_key_may_post", False)
        return bool(request.user and request.user.is_authenticated and request.user.is_staff)


class IsWriter(permissions.BasePermission):
    """A key with the writer scope."""

    message = "this needs a key with the writer scope"

    def has_permission(self, request, view):
        key = api_key(request)
        return key is not None and key.can_write


class PartnerRateThrottle(throttling.SimpleRateThrottle):
    """Per key, on the shared cache, at ``DEFAULT_THROTTLE_RATES['partner']``. Staff sessions
    are not throttled.

    A sliding-window counter, not DRF's request history: DRF reads and writes a pickled list
    of every request's time in the window, which grows with the rate (at 600/min, 600 floats
    both ways on every request). Here each window of ``duration`` seconds has a counter; a
    request counts itself in the current one (one Redis round trip, which also reads the
    previous window's) and is allowed while ``previous * (share of it still inside the
    sliding window) + current <= rate``. That is the usual estimate: a burst at a window's
    edge cannot double the rate, and counting is O(1). With the cache down it fails open.
    """

    scope = "partner"

    def allow_request(self, request, view):
        if self.rate is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        return self.allow(key)

    def key_for(self, key_id: int) -> str:
        """The throttle's name for the key ``key_id`` (what ``get_cache_key`` returns)."""
        return self.cache_format % {"scope": self.scope, "ident": key_id}

    def allow(self, key: str) -> bool:
        """Count a request under the throttle's name ``key``; whether it is allowed."""
        if self.rate is None:
            return True
        now = self.timer()
        window, into = divmod(now, self.duration)
        window = int(window)
        name = f"{key}:{window}"
        current, previous = count_and_read(caches["default"], name, self.duration * 2 + 1, other=f"{key}:{window - 1}")
        if current is None:
            return True
        weight = 1 - into / self.duration
        estimate = (previous or 0) * weight + current
        if estimate <= self.num_requests:
            return True
        # When enough of the previous window slides out (or, if this one alone is over, when it ends).
        try:
            self.cache.decr(name)  # a refused request does not count against the budget
        except ValueError:
            pass
        excess = estimate - self.num_requests
        if previous and (previous * weight) >= excess:
            self._wait = excess / previous * self.duration
        else:
            self._wait = self.duration - into
        return False

    def wait(self):
        return max(getattr(self, "_wait", self.duration), 0.001)

    def get_rate(self):
        # Read at each request, not at import (DRF's default), so a changed setting applies.
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def get_cache_key(self, request, view):
        key = api_key(request)
        if key is None:
            return None
        return self.key_for(key.pk)
