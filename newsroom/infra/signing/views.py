"""Signing responses: the ``signed`` view decorator and the key directory."""

from __future__ import annotations

import functools
import json
from functools import wraps

from django.conf import settings
from django.http import HttpResponse
from django.views.decorators.http import require_safe

from newsroom.infra.pagecache import public

from .keys import keyring
from .messages import response_headers

DIRECTORY_TYPE = "application/http-message-signatures-directory+json"


def sign_response(request, response):
    """Add the signature headers to a full 200 answer to GET or HEAD (a 304 has no body to
    sign; a CDN keeps the headers of the 200 it revalidates)."""
    if request.method not in ("GET", "HEAD") or response.status_code != 200 or response.streaming:
        return response
    if hasattr(response, "render") and not getattr(response, "is_rendered", True):
        response.render()
    # The URI the client asked for (host checked against ALLOWED_HOSTS, scheme as the proxy
    # says): what its verifier recomputes. Stored only for URLs without a query string on a
    # host ALLOWED_HOSTS names literally, so ``?x=1``, ``?x=2``... or ``Host: a.example``,
    # ``Host: b.example``... under a wildcard cannot fill the cache.
    target_uri = request.build_absolute_uri()
    headers = response_headers(
        target_uri=target_uri,
        content_type=response.get("Content-Type", ""),
        body=response.content,
        cacheable=not request.META.get("QUERY_STRING") and named_host(request),
    )
    for name, value in headers.items():
        response[name] = value
    return response


def named_host(request) -> bool:
    """Whether the request's host (``request.get_host()``) is one that ``ALLOWED_HOSTS`` names
    literally, not through a wildcard, written as the site's links write it: in lower case,
    with no port or the one the server listens on. Only such hosts get stored signatures (and
    stored pages): ``Host: News.example``, ``news.example:1``, ``news.example:2``... are
    answered and signed, but each would be another entry."""
    host = request.get_host()
    if host != host.lower():
        return False
    if ":" in host and not host.endswith("]"):
        name, _, port = host.rpartition(":")
    else:
        name, port = host, ""
    return (not port or port == request.META.get("SERVER_PORT")) and name in _literal_hosts(
        tuple(settings.ALLOWED_HOSTS)
    )


@functools.lru_cache(maxsize=8)
def _literal_hosts(allowed: tuple[str, ...]) -> frozenset[str]:
    return frozenset(h.lower() for h in allowed if "*" not in h and not h.startswith("."))


def signed(view):
    """Sign every full answer of ``view`` (see ``sign_response``)."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        return sign_response(request, view(request, *args, **kwargs))

    wrapped.signed = True
    return wrapped


@require_safe
@public
@signed
def directory(request):
    """``/.well-known/http-message-signatures-directory``: every public key, current and
    retired, as a JWK Set (draft-meunier-http-message-signatures-directory)."""
    body = json.dumps(keyring().jwks(), indent=2) + "\n"
    return HttpResponse(body, content_type=DIRECTORY_TYPE)
