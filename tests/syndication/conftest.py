"""Fixtures for the partner API: keys, an authenticated client, stories, a webhook receiver."""

import datetime as dt
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core.cache import cache
from django.utils import timezone
from rest_framework.test import APIClient

from stories.models import Story
from syndication.models import ApiKey, Partner
from tests.factories import EditionFactory, NewsroomFactory


@pytest.fixture(autouse=True)
def _fresh_throttle_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def partner(db):
    return Partner.objects.create(name="Wire Co", slug="wire-co", contact="ops@wire.example")


@pytest.fixture
def read_key(partner):
    """(ApiKey, plaintext) with the read scope."""
    return ApiKey.issue(partner=partner, scope="read")


@pytest.fixture
def writer_key(partner):
    return ApiKey.issue(partner=partner, scope="writer")


def client_for(plaintext: str | None) -> APIClient:
    client = APIClient()
    if plaintext:
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    return client


@pytest.fixture
def api(read_key) -> APIClient:
    """A client sending a valid read key."""
    return client_for(read_key[1])


@pytest.fixture
def writer_api(writer_key) -> APIClient:
    return client_for(writer_key[1])


@pytest.fixture
def make_story(db):
    """Build a bare published story (no sections): ``make_story(slug="a", newsroom=n)``."""
    counter = iter(range(1, 100_000))

    def build(**fields) -> Story:
        n = next(counter)
        fields.setdefault("newsroom", NewsroomFactory(slug="desk-news"))
        fields.setdefault("edition", EditionFactory(id="2026-10-16T00"))
        fields.setdefault("slug", f"story-{n}")
        fields.setdefault("headline", f"Story number {n}")
        fields.setdefault("status", Story.Status.PUBLISHED)
        if fields["status"] == Story.Status.PUBLISHED:
            fields.setdefault("published_at", timezone.now() - dt.timedelta(hours=1))
        return Story.objects.create(**fields)

    return build


class Receiver:
    """A real HTTP server on 127.0.0.1 that answers with scripted replies and keeps every
    request. ``replies`` items: a status code, or ("sleep", seconds, status)."""

    def __init__(self):
        self.requests: list[dict] = []
        self.replies: list = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                outer.requests.append({"headers": dict(self.headers), "body": body, "path": self.path})
                reply = outer.replies.pop(0) if outer.replies else 200
                if isinstance(reply, tuple):
                    _, seconds, reply = reply
                    time.sleep(seconds)
                try:
                    self.send_response(reply)
                    self.send_header("Content-Length", "2")
                    self.end_headers()
                    self.wfile.write(b"ok")
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the sender gave up (the timeout test)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def json(self, i: int) -> dict:
        return json.loads(self.requests[i]["body"])


@pytest.fixture
def receiver():
    r = Receiver()
    r.thread.start()
    yield r
    r.server.shutdown()
    r.server.server_close()
