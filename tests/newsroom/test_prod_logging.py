"""Logs are JSON lines with the request id, and never contain an API key."""

import io
import json
import logging
import sys

import pytest
from django.test import Client

from newsroom.infra.logging import JsonFormatter, RequestIdFilter, access_entry, redact, request_id_var

API_KEY = "nrk_live_5f3b9c0e7a1d4e2f"


def record(message="hello %s", args=("world",), **extra):
    rec = logging.LogRecord("newsroom.test", logging.INFO, __file__, 1, message, args, None)
    for key, value in extra.items():
        setattr(rec, key, value)
    return rec


def test_a_record_is_one_line_of_json_with_the_usual_fields():
    token = request_id_var.set("req-1")
    try:
        rec = record()
        RequestIdFilter().filter(rec)
        line = JsonFormatter().format(rec)
    finally:
        request_id_var.reset(token)
    assert "\n" not in line
    entry = json.loads(line)
    assert entry["message"] == "hello world"
    assert entry["level"] == "INFO"
    assert entry["logger"] == "newsroom.test"
    assert entry["request_id"] == "req-1"
    assert entry["time"].endswith("+00:00")


def test_extra_fields_are_kept_and_exceptions_are_one_field():
    try:
        raise ValueError("bad thing")
    except ValueError:
        rec = record(story_id="81", status_code=500)
        rec.exc_info = sys.exc_info()
    entry = json.loads(JsonFormatter().format(rec))
    assert entry["story_id"] == "81"
    assert entry["status_code"] == 500
    assert "ValueError: bad thing" in entry["exc_info"]


def test_the_request_attached_by_django_is_reduced_to_method_and_path(rf):
    request = rf.get("/api/v1/stories/", HTTP_AUTHORIZATION=f"Api-Key {API_KEY}")
    entry = json.loads(JsonFormatter().format(record(request=request, headers={"Authorization": API_KEY})))
    assert entry["method"] == "GET"
    assert entry["path"] == "/api/v1/stories/"
    assert API_KEY not in json.dumps(entry)


@pytest.mark.parametrize(
    "text",
    [
        f"Authorization: Bearer {API_KEY}",
        f"auth failed for Api-Key {API_KEY}",
        f"{{'HTTP_AUTHORIZATION': 'Token {API_KEY}'}}",
        f"authorization={API_KEY}",
    ],
)
def test_credentials_in_messages_are_redacted(text):
    assert API_KEY not in redact(text)
    assert API_KEY not in JsonFormatter().format(record(message=text, args=None))


def test_redaction_leaves_ordinary_text_alone():
    for text in ["published story 81 in 12 ms", "Basic facts about the Token ring", "Key 'x' not found"]:
        assert redact(text) == text


@pytest.mark.django_db
def test_a_failing_api_request_logs_no_key(settings):
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RequestIdFilter())
    logger = logging.getLogger("django.request")
    logger.addHandler(handler)
    try:
        response = Client().get(
            "/api/v1/no-such-endpoint/", HTTP_AUTHORIZATION=f"Api-Key {API_KEY}", HTTP_X_REQUEST_ID="trace-404"
        )
    finally:
        logger.removeHandler(handler)
    assert response.status_code == 404
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert lines, "Django logs a 404 on django.request"
    assert lines[0]["request_id"] == "trace-404"
    assert lines[0]["path"] == "/api/v1/no-such-endpoint/"
    assert API_KEY not in stream.getvalue()


def test_the_gunicorn_access_line_is_json_without_request_headers():
    atoms = {
        "h": "10.0.0.1",
        "m": "GET",
        "U": "/api/v1/stories/",
        "q": "cursor=abc",
        "s": "200",
        "B": 512,
        "D": 2500,
        "a": "partner-bot/1.0",
        "f": "-",
        "{authorization}i": f"Api-Key {API_KEY}",
        "u": "someone",
        "{x-request-id}o": "trace-9",
    }
    entry = access_entry(atoms)
    assert json.loads(json.dumps(entry)) == entry
    assert entry["status"] == 200
    assert entry["duration_ms"] == 2.5
    assert entry["request_id"] == "trace-9"
    assert API_KEY not in json.dumps(entry)


def test_production_logging_uses_the_json_formatter_with_the_request_id_filter():
    from django.conf import settings as live

    handler = live.LOGGING["handlers"]["console"]
    assert handler["filters"] == ["request_id"]
    assert live.LOGGING["formatters"]["json"]["()"] == "newsroom.infra.logging.JsonFormatter"


def test_gunicorns_access_log_lines_are_json(capsys):
    import datetime
    from types import SimpleNamespace

    from gunicorn.config import Config

    from newsroom.infra.logging import GunicornJsonLogger

    cfg = Config()
    cfg.set("accesslog", "-")
    logger = GunicornJsonLogger(cfg)
    environ = {
        "REQUEST_METHOD": "GET",
        "RAW_URI": "/api/v1/stories/",
        "PATH_INFO": "/api/v1/stories/",
        "QUERY_STRING": "",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "10.0.0.1",
        "HTTP_AUTHORIZATION": f"Api-Key {API_KEY}",
    }
    response = SimpleNamespace(status="200 OK", sent=42, headers=[("X-Request-ID", "trace-1")])
    request = SimpleNamespace(headers=[("AUTHORIZATION", f"Api-Key {API_KEY}")])
    logger.access(response, request, environ, datetime.timedelta(milliseconds=3))
    out = capsys.readouterr().out
    entry = json.loads(out.strip().splitlines()[-1])
    assert entry["path"] == "/api/v1/stories/" and entry["status"] == 200 and entry["request_id"] == "trace-1"
    assert API_KEY not in out
