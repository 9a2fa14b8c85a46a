"""Every API error as ``{"error": {"code": ..., "message": ...}}`` (plus ``path`` for an
invalid document), whatever raised it."""

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, JsonResponse
from django.views import defaults
from rest_framework import exceptions
from rest_framework.views import exception_handler as drf_exception_handler

from newsroom.infra.jsondoc import FormatError


class InvalidDocument(exceptions.APIException):
    """A document that is not well-formed: 400 naming the JSON path."""

    status_code = 400
    default_code = "invalid"

    def __init__(self, path: str, message: str):
        self.path = path
        super().__init__(message, code="invalid")

    @classmethod
    def of(cls, error: FormatError) -> "InvalidDocument":
        return cls(error.path, error.message)


class BadParameter(exceptions.APIException):
    """A query parameter that cannot be used: 400 naming it."""

    status_code = 400
    default_code = "bad_parameter"

    def __init__(self, parameter: str, message: str):
        self.parameter = parameter
        super().__init__(f"{parameter}: {message}", code="bad_parameter")


class Conflict(exceptions.APIException):
    status_code = 409
    default_code = "conflict"


def _message(detail) -> str:
    if isinstance(detail, dict):
        return "; ".join(f"{k}: {_message(v)}" for k, v in detail.items())
    if isinstance(detail, list):
        return "; ".join(_message(v) for v in detail)
    return str(detail)


def _code(exc) -> str:
    codes = exc.get_codes()
    while isinstance(codes, (list, dict)):
        codes = (list(codes.values()) if isinstance(codes, dict) else codes) or [exc.default_code]
        codes = codes[0]
    return str(codes)


def exception_handler(exc, context):
    """DRF's handler (which sets WWW-Authenticate and Retry-After), with the body reshaped."""
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    error = {"code": _code(exc), "message": _message(exc.detail)}
    if isinstance(exc, InvalidDocument):
        error["path"] = exc.path
    if isinstance(exc, exceptions.ParseError):
        error["path"] = "$"  # the body as a whole is not JSON: every 400 about a body names a path
    if isinstance(exc, BadParameter):
        error["parameter"] = exc.parameter
    if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
        error["retry_after"] = int(exc.wait + 0.999)
    response.data = {"error": error}
    return response


def server_error(request, *args, **kwargs):
    """The site's 500 page, except under /api/: there the same JSON error body as every
    other API error, whatever raised it (Django has already logged the exception)."""
    if request.path.startswith("/api/"):
        error = {"code": "server_error", "message": "A server error occurred."}
        return JsonResponse({"error": error}, status=500)
    return defaults.server_error(request, *args, **kwargs)


def bad_request(request, exception=None, *args, **kwargs):
    """The site's 400 page, except under /api/: there the API's JSON error body. A body over
    ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (Django refuses it before any view reads it) is a 413
    that says so."""
    if not request.path.startswith("/api/"):
        return defaults.bad_request(request, exception, *args, **kwargs)
    if isinstance(exception, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        error = {"code": "too_large", "message": f"the request body is over {limit} bytes", "path": "$"}
        return JsonResponse({"error": error}, status=413)
    return JsonResponse({"error": {"code": "bad_request", "message": "Bad request."}}, status=400)
