"""The client's exceptions: every API error body (``{"error": {"code", "message", ...}}``)
becomes an ``ApiError`` with those fields."""

from __future__ import annotations

from typing import Any


class ClientError(Exception):
    """Anything the client raises."""


class ApiError(ClientError):
    """A non-2xx answer. ``code`` and ``message`` come from the API's error body; ``path``
    (an invalid document's JSON path) and ``parameter`` (a bad query parameter) when given."""

    def __init__(self, status: int, code: str, message: str, *, body: dict[str, Any] | None = None):
        self.status = status
        self.code = code
        self.message = message
        self.body = body or {}
        error = self.body.get("error", {}) if isinstance(self.body.get("error"), dict) else {}
        self.path: str | None = error.get("path")
        self.parameter: str | None = error.get("parameter")
        super().__init__(f"HTTP {status} {code}: {message}")


class InvalidDocument(ApiError):
    """400 ``invalid`` or ``parse_error``: the document is not well-formed desk/1 (``path`` says where)."""


class Conflict(ApiError):
    """409: a submission naming a story that is not the partner's own draft (``story`` names
    it when it is published or the partner's own; empty otherwise)."""

    @property
    def story(self) -> dict[str, Any]:
        return self.body.get("error", {}).get("story", {})


class RateLimited(ApiError):
    """429 still refused after the retries, or a ``Retry-After`` longer than the client waits."""

    def __init__(self, *args, retry_after: float | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.retry_after = retry_after


class InvalidSignature(ClientError):
    """A webhook delivery whose signature does not verify (the message says why)."""


def error_from(status: int, body: Any, retry_after: float | None = None) -> ApiError:
    """The ``ApiError`` subclass for an answer's status and JSON body."""
    if not isinstance(body, dict):
        body = {}
    error = body.get("error") if isinstance(body.get("error"), dict) else {}
    code = str(error.get("code") or f"http_{status}")
    message = str(error.get("message") or f"HTTP {status}")
    if status == 429:
        return RateLimited(status, code, message, body=body, retry_after=retry_after)
    if status == 409:
        return Conflict(status, code, message, body=body)
    if status == 400 and code in ("invalid", "parse_error"):
        return InvalidDocument(status, code, message, body=body)
    return ApiError(status, code, message, body=body)
