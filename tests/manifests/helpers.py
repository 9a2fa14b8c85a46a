"""A real HTTP server on 127.0.0.1 playing the manifest provider, for the client's tests."""

import dataclasses
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PROVIDER_KEY = "sk-test-5ecret-key-9f3a"
PREFIX = "/manifests/by-id/"


@dataclasses.dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict = dataclasses.field(default_factory=dict)
    delay: float = 0.0

    @classmethod
    def json(cls, data, status: int = 200, **kwargs) -> "Reply":
        return cls(status, json.dumps(data).encode(), {"Content-Type": "application/json"}, **kwargs)


@dataclasses.dataclass
class Request:
    path: str
    headers: dict


class FakeProvider:
    """Serves scripted replies per manifest id: each request takes the next reply of the
    id's script, the last one repeating. Unknown ids get 404. Records every request."""

    def __init__(self):
        self.scripts: dict[str, list[Reply]] = {}
        self.requests: list[Request] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.server.block_on_close = False  # a deliberately slow reply must not hold up the test
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.url_template = self.base + PREFIX + "{manifest_id}"

    def serve(self, manifest_id: str, *replies: Reply) -> None:
        self.scripts[manifest_id] = list(replies)

    def serve_entry(self, entry: dict) -> None:
        self.serve(entry["manifest_id"], Reply.json(entry))

    def requests_for(self, manifest_id: str) -> list[Request]:
        return [r for r in self.requests if r.path == PREFIX + manifest_id]

    def _next_reply(self, path: str) -> Reply:
        with self.lock:
            script = self.scripts.get(path.removeprefix(PREFIX)) if path.startswith(PREFIX) else None
            if not script:
                return Reply.json({"error": "not found"}, status=404)
            return script.pop(0) if len(script) > 1 else script[0]

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                with fake.lock:
                    fake.requests.append(Request(self.path, dict(self.headers.items())))
                reply = fake._next_reply(self.path)
                if reply.delay:
                    time.sleep(reply.delay)
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                except OSError:
                    pass  # the client gave up waiting: that is the point of a slow reply

            def log_message(self, *args):
                pass

        return Handler

    def start(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
