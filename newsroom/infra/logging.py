"""Structured logs: one JSON object a line, each carrying the request id.

``LOGGING`` in settings wires these up: ``RequestIdFilter`` stamps every record with the id
of the request being served (set by ``newsroom.infra.middleware.RequestIdMiddleware``), and
``JsonFormatter`` writes the record as JSON. ``GunicornJsonLogger`` does the same for
gunicorn's access log (see ``gunicorn.conf.py``).

Credentials never reach a log line: the formatter writes a fixed set of fields (never
headers, never the ``request`` object Django attaches to its error records), and every
message passes through ``redact`` which masks anything that looks like an Authorization
value (``Bearer ...``, ``Token ...``, ``Api-Key ...``, ``Basic ...``).
"""

import contextvars
import datetime
import json
import logging
import re

# The id of the request this thread or task is serving ("-" outside a request).
request_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")

# A scheme word followed by something credential-shaped (8+ token characters), so that
# ordinary prose ("Basic facts", "Token ring") is left alone.
_AUTH_VALUE = re.compile(r"\b(Bearer|Token|Api-Key|ApiKey|Basic)(\s+|=)[A-Za-z0-9._~+/=:-]{8,}", re.IGNORECASE)
_AUTH_HEADER = re.compile(r"(authorization[\"']?\s*[:=]\s*[\"']?)[^\"',;}\s]+(\s+[^\"',;}\s]+)?", re.IGNORECASE)

# Record attributes the standard library sets; anything else came in through ``extra=``.
_STANDARD_ATTRS = frozenset(
    vars(logging.LogRecord("x", logging.INFO, "x", 0, "x", None, None)).keys()
    | {"message", "asctime", "request_id", "request", "taskName"}
)
# ``extra=`` keys that may carry secrets or whole objects; never written.
_NEVER_WRITTEN = frozenset({"request", "headers", "authorization", "META", "environ", "scope"})


def redact(text: str) -> str:
    """Mask anything in ``text`` that looks like a credential from an Authorization header."""
    text = _AUTH_HEADER.sub(r"\1[redacted]", text)
    return _AUTH_VALUE.sub(r"\1\2[redacted]", text)


class RequestIdFilter(logging.Filter):
    """Adds ``record.request_id`` (the current request's id, or "-") to every record.

    Django logs 4xx/5xx responses after the middleware has returned, with the request
    attached to the record; its ``id`` (set by ``RequestIdMiddleware``) is used then.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = getattr(getattr(record, "request", None), "id", None) or request_id_var.get()
        return True


class JsonFormatter(logging.Formatter):
    """Formats a record as one line of JSON: time, level, logger, message, request_id, extras."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.datetime.fromtimestamp(record.created, tz=datetime.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": redact(record.getMessage()),
            "request_id": getattr(record, "request_id", None)
            or getattr(getattr(record, "request", None), "id", None)
            or request_id_var.get(),
        }
        request = getattr(record, "request", None)
        if request is not None and hasattr(request, "method"):
            # Django's error records carry the request: keep only method and path.
            entry["method"] = request.method
            entry["path"] = getattr(request, "path", "")
        for key, value in vars(record).items():
            if key in _STANDARD_ATTRS or key in _NEVER_WRITTEN or key.startswith("_"):
                continue
            entry[key] = value if isinstance(value, (int, float, bool, type(None))) else redact(str(value))
        if record.exc_info:
            entry["exc_info"] = redact(self.formatException(record.exc_info))
        if record.stack_info:
            entry["stack_info"] = redact(self.formatStack(record.stack_info))
        return json.dumps(entry, ensure_ascii=False, default=str)


def access_entry(atoms: dict) -> dict:
    """The fields of one access-log line, from gunicorn's atoms (no request headers but the id)."""
    return {
        "time": datetime.datetime.now(tz=datetime.UTC).isoformat(timespec="milliseconds"),
        "level": "INFO",
        "logger": "gunicorn.access",
        "remote": atoms.get("h", "-"),
        "method": atoms.get("m"),
        "path": atoms.get("U"),
        "query": redact(atoms.get("q") or ""),
        "status": int(atoms["s"]) if str(atoms.get("s", "")).isdigit() else atoms.get("s"),
        "bytes": atoms.get("B"),
        "duration_ms": round(atoms.get("D", 0) / 1000, 3),
        "request_id": atoms.get("{x-request-id}o", "-"),
        "user_agent": atoms.get("a", "-"),
        "referer": atoms.get("f", "-"),
    }


try:
    from gunicorn.glogging import Logger as _GunicornLogger
except ImportError:  # pragma: no cover - gunicorn is a runtime requirement, but tests need not have it
    _GunicornLogger = None

if _GunicornLogger is not None:

    class GunicornJsonLogger(_GunicornLogger):
        """gunicorn's logger, writing its error log and each access-log line as JSON."""

        def setup(self, cfg):
            super().setup(cfg)
            for handler in self.error_log.handlers:
                handler.setFormatter(JsonFormatter())

        def access(self, resp, req, environ, request_time):
            if not self.access_log_enabled:
                return
            atoms = self.atoms(resp, req, environ, request_time)
            self.access_log.info(json.dumps(access_entry(atoms), ensure_ascii=False, default=str))
