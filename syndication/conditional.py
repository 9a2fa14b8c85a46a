"""Conditional GET for every read endpoint: a strong ``ETag`` (SHA-256 of the body),
``Last-Modified`` (the newest change among what the response shows) and 304 on a match."""

import hashlib

from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.http import http_date


class ConditionalGetMixin:
    """Views set ``self.last_modified`` (an aware datetime or None) while building the body."""

    last_modified = None

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        # The body depends on who asks (staff see the same, but a shared cache must not
        # serve one partner's 401 to another), so caches key on Authorization.
        patch_vary_headers(response, ["Authorization"])
        if request.method not in ("GET", "HEAD") or response.status_code != 200:
            return response
        response["Cache-Control"] = "private, no-cache"
        response.render()
        etag = f'"{hashlib.sha256(response.content).hexdigest()[:40]}"'
        response["ETag"] = etag
        timestamp = None
        if self.last_modified is not None:
            timestamp = int(self.last_modified.timestamp())
            response["Last-Modified"] = http_date(timestamp)
        return get_conditional_response(request, etag=etag, last_modified=timestamp, response=response)
