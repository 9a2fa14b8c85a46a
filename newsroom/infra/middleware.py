"""Project middleware: request ids, the Content-Security-Policy, health probes, read-your-writes.

Order in ``settings.MIDDLEWARE`` (set at the end of settings.py), outermost first:
``RequestIdMiddleware`` (every log line of the request carries its id),
``ContentSecurityPolicyMiddleware`` (so every response, even an error or a probe, has the
policy), ``HealthCheckMiddleware`` (answers probes before host validation and sessions),
``PrimaryDatabaseMiddleware`` (decides replica or primary before anything reads), then
Django's stack.
"""

import hashlib
import os
import re

from django.conf import settings
from django.core.cache import cache

from newsroom.infra import db_router, health
from newsroom.infra.logging import request_id_var

REQUEST_ID_HEADER = "X-Request-ID"
_REQUEST_ID_META = "HTTP_X_REQUEST_ID"
# An upstream id is kept only when it is short and plain (no header or log injection).
_SANE_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:@/+=-]{1,128}$")


class RequestIdMiddleware:
    """Gives each request an id: the caller's ``X-Request-ID`` if sane, else 32 fresh random
    hex digits (128 bits, as many as a uuid4's hex).

    The id is ``request.id``, is echoed in the response's ``X-Request-ID`` header, and is
    stamped on every log record written while the request is served.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        # From META, not request.headers (which builds a mapping of every header first).
        incoming = request.META.get(_REQUEST_ID_META, "")
        request.id = incoming if _SANE_REQUEST_ID.match(incoming) else os.urandom(16).hex()
        token = request_id_var.set(request.id)
        try:
            response = self.get_response(request)
        finally:
            request_id_var.reset(token)
        response[REQUEST_ID_HEADER] = request.id
        return response


class ContentSecurityPolicyMiddleware:
    """Sets ``Content-Security-Policy`` on every response that has not set its own.

    The policy is ``settings.CSP_POLICY`` (no inline script anywhere); paths starting with a
    prefix in ``settings.CSP_PATH_POLICIES`` get that policy instead (the API docs page, which
    loads its viewer from a CDN).
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = policy_for(request.path)
        return response


def policy_for(path: str) -> str:
    """The Content-Security-Policy header value for a request path."""
    for prefix, policy in getattr(settings, "CSP_PATH_POLICIES", {}).items():
        if path.startswith(prefix):
            return policy
    return settings.CSP_POLICY


class HealthCheckMiddleware:
    """Answers ``/healthz`` and ``/readyz`` before host validation, sessions and the SSL redirect.

    Load balancers and orchestrators probe by IP address, whose Host header is not in
    ``ALLOWED_HOSTS``; the probes reveal nothing, so they need no host check.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        view = health.PROBES.get(request.path_info)
        if view is not None and request.method in ("GET", "HEAD"):
            return view(request)
        return self.get_response(request)


PIN_COOKIE = "newsroom_primary"
_UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class PrimaryDatabaseMiddleware:
    """Read-your-writes over read replicas.

    A request reads from a replica only when it is safe (GET/HEAD/OPTIONS), outside the
    paths that always use the primary (``DATABASE_PRIMARY_PATHS``: the admin), and not
    pinned. A request that writes -- any unsafe method, or any query routed for writing --
    pins its client to the primary for ``DATABASE_PIN_SECONDS``, so an editor who just saved
    (or an API client that just posted) sees the save even if the replicas lag. Browsers are
    pinned by a cookie; API clients, which keep no cookies, by a cache entry keyed by a hash
    of their ``Authorization`` header.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not settings.DATABASE_REPLICAS:
            return self.get_response(request)
        unsafe = request.method in _UNSAFE_METHODS
        pin_key = _credential_pin_key(request)
        use_replicas = (
            not unsafe
            and PIN_COOKIE not in request.COOKIES
            and not request.path_info.startswith(tuple(settings.DATABASE_PRIMARY_PATHS))
            and not (pin_key and cache.get(pin_key))
        )
        with db_router.routing(use_replicas=use_replicas) as state:
            response = self.get_response(request)
        if state.wrote or unsafe:
            self._pin(response, pin_key)
        return response

    @staticmethod
    def _pin(response, pin_key):
        seconds = settings.DATABASE_PIN_SECONDS
        response.set_cookie(
            PIN_COOKIE, "1", max_age=seconds, secure=settings.SESSION_COOKIE_SECURE, httponly=True, samesite="Lax"
        )
        if pin_key:
            cache.set(pin_key, 1, seconds)


def _credential_pin_key(request) -> str | None:
    """The cache key pinning this request's credentials to the primary (None if it has none)."""
    credentials = request.headers.get("Authorization")
    if not credentials:
        return None
    # A hash, so the credential itself is never stored in the cache.
    return "dbpin:" + hashlib.sha256(credentials.encode()).hexdigest()[:32]


# Below: the database-outage middleware (appended; imported here to keep the file's top as is).
import logging  # noqa: E402

from django.db import InterfaceError, OperationalError  # noqa: E402
from django.http import HttpResponse, JsonResponse  # noqa: E402

db_logger = logging.getLogger("newsroom.database")


class DatabaseUnavailableMiddleware:
    """A database that cannot be reached answers 503 with ``Retry-After``, not 500.

    While PostgreSQL restarts or fails over, a view's query raises ``OperationalError``
    (refused connection, "terminating connection due to administrator command") or
    ``InterfaceError`` (connection already closed). That is an outage to wait out, not a bug:
    clients and the CDN are told to retry shortly, and nothing caches the answer. Django has
    already flagged the connection (``errors_occurred``); at the end of the request it closes
    it if unusable, so the next request reconnects without a process restart.

    Last in ``MIDDLEWARE`` (innermost), so it sees the view's exception first. Only view
    exceptions pass through ``process_exception``; the middleware above touch the database
    lazily, from inside views.
    """

    RETRY_AFTER_SECONDS = 5

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, (OperationalError, InterfaceError)):
            return None
        db_logger.error("database unavailable: %s", exception, exc_info=exception)
        return database_unavailable(request, self.RETRY_AFTER_SECONDS)


def database_unavailable(request, retry_after: int):
    """The 503 answer: JSON for the API, plain text for everyone else; never cached."""
    message = "The database is briefly unavailable; please retry shortly."
    if request.path_info.startswith("/api/"):
        response = JsonResponse({"detail": message}, status=503)
    else:
        response = HttpResponse(message + "\n", status=503, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(retry_after)
    response["Cache-Control"] = "no-store"
    return response


class RejectNulMiddleware:
    """A NUL character anywhere in the URL (path or query) is a 400 Bad Request.

    PostgreSQL text cannot hold NUL: a search for ``?q=%00`` or a path like
    ``/manifests/%00/`` reached the database and failed with ``DataError`` (a 500). No URL of
    the site or the API can mean a NUL, so it is refused before any view. (Form fields
    already refuse NUL: Django's ``ProhibitNullCharactersValidator``.)
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path_info or (
            request.META.get("QUERY_STRING")
            and any("\x00" in key + "".join(values) for key, values in request.GET.lists())
        ):
            message = "Bad request: the URL contains a NUL character."
            if request.path_info.startswith("/api/"):
                # The API's clients read every error as the same JSON body.
                return JsonResponse({"error": {"code": "bad_request", "message": message}}, status=400)
            return HttpResponse(message + "\n", status=400, content_type="text/plain; charset=utf-8")
        return self.get_response(request)


# Below: the session stack, applied only where a request can use it.
from django.core.handlers.exception import convert_exception_to_response  # noqa: E402
from django.utils.module_loading import import_string  # noqa: E402

_SAFE_METHODS = frozenset({"GET", "HEAD"})


class SessionStackMiddleware:
    """Runs ``settings.SESSION_STACK`` (the login throttle, sessions, CSRF, authentication,
    messages) only for the requests that can use it: an unsafe method anywhere (so CSRF checks
    every POST, PUT, PATCH and DELETE, and the login throttle sees every login), and any request
    under a prefix in ``settings.SESSION_PATHS`` (the admin, the API with its browser session).

    A GET or HEAD under a prefix in ``settings.SESSION_KEYED_PATHS`` (the API) that carries an
    ``Authorization`` header and no cookie skips it too: a partner's key is its credential,
    and with no cookie there is no session, CSRF token, user or message to read.

    A GET or HEAD for a public page skips it: those pages are the same for every reader (they
    are cached for anonymous readers), set no cookie and read no user, session or message, so
    the stack would only cost time. Every security header is set outside it (``SecurityMiddleware``,
    the Content-Security-Policy, ``X-Frame-Options``), so it is on every response either way.

    Django collects ``process_view`` hooks from ``MIDDLEWARE`` alone, so this middleware runs
    those of the stack (the CSRF check) for the requests that take it.
    """

    def __init__(self, get_response):
        self.get_response = get_response
        self.prefixes = tuple(settings.SESSION_PATHS)
        self.keyed = tuple(getattr(settings, "SESSION_KEYED_PATHS", ()))
        handler, self._view_hooks = get_response, []
        for path in reversed(settings.SESSION_STACK):
            middleware = import_string(path)(handler)
            if hasattr(middleware, "process_view"):
                self._view_hooks.insert(0, middleware.process_view)
            handler = convert_exception_to_response(middleware)
        self.with_stack = handler

    def __call__(self, request):
        if request.method in _SAFE_METHODS:
            path, meta = request.path_info, request.META
            if not path.startswith(self.prefixes) or (
                path.startswith(self.keyed) and "HTTP_AUTHORIZATION" in meta and not meta.get("HTTP_COOKIE")
            ):
                return self.get_response(request)
        request._session_stack = True
        return self.with_stack(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if getattr(request, "_session_stack", False):
            for hook in self._view_hooks:
                response = hook(request, view_func, view_args, view_kwargs)
                if response is not None:
                    return response
        return None


REQUIRED_IN_SESSION_STACK = (
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
)


def session_stack_check(app_configs=None, **kwargs):
    """What Django's admin and CSRF checks demand of ``MIDDLEWARE`` (silenced: they cannot see
    inside the stack), demanded of the session stack: each of sessions, CSRF, authentication and
    messages in ``SESSION_STACK``, sessions before authentication, and the stack in ``MIDDLEWARE``."""
    from django.core.checks import Error

    stack, errors = list(getattr(settings, "SESSION_STACK", [])), []
    if f"{__name__}.SessionStackMiddleware" not in settings.MIDDLEWARE:
        errors.append(Error("SessionStackMiddleware is not in MIDDLEWARE", id="newsroom.E001"))
    for path in REQUIRED_IN_SESSION_STACK:
        if path not in stack:
            errors.append(Error(f"{path} is not in SESSION_STACK", id="newsroom.E002"))
    if not errors and stack.index(REQUIRED_IN_SESSION_STACK[0]) > stack.index(REQUIRED_IN_SESSION_STACK[2]):
        errors.append(Error("SESSION_STACK runs authentication before sessions", id="newsroom.E003"))
    return errors
