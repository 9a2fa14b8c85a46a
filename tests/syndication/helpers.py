"""Helpers of the partner API's tests: a client with a key, a webhook receiver."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from rest_framework.test import APIClient


def client_for(plaintext: str | None) -> APIClient:
    """An API client sending ``plaintext`` as its bearer key (none when ``None``)."""
    client = APIClient()
    if plaintext:
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    return client


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
