"""The cross-process cache test: with no CACHE_URL, a server (gunicorn, two workers) and a
management command run in another process share the default cache, so what the command
changes (a story imported, a live story's headline) every page, list, feed and sitemap
shows on the server's next request, with no restart and no wait."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.seed import SEED_JSON

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def site(tmp_path):
    """A fresh SQLite database with the demo newsroom, and the environment of a local run
    with no CACHE_URL (the default cache, in a directory of this test's own)."""
    env = {k: v for k, v in os.environ.items() if k not in ("CACHE_URL", "REDIS_URL", "DATABASE_URL")}
    env.update(
        DEBUG="1",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        CACHE_DIR=str(tmp_path / "cache"),
        PYTHONDONTWRITEBYTECODE="1",
    )

    def manage(*args):
        done = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return done

    manage("migrate", "--noinput")
    manage("loaddemo")
    return env, manage, tmp_path


@pytest.fixture
def server(site):
    env, manage, tmp_path = site
    port = free_port()
    server_env = dict(env, GUNICORN_BIND=f"127.0.0.1:{port}", WEB_CONCURRENCY="2", GUNICORN_ACCESSLOG="")
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py"],
        cwd=ROOT,
        env=server_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(base + "/robots.txt", timeout=5)
            break
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                pytest.fail("the server did not start")
            time.sleep(0.3)
    yield base, manage, tmp_path
    process.terminate()
    process.wait(timeout=30)


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read().decode()


PAGES = ["/", "/feed.atom", "/feed.json", "/sitemap.xml", "/sitemaps/2026-11.xml", "/n/artificial-intelligence/"]


def test_a_command_in_another_process_is_seen_on_the_next_request(server):
    base, manage, tmp_path = server
    demo_url = base + "/stories/2026-10-16/agent-training-stack/"
    # Warm every page in both workers (each request may go to either).
    for _ in range(4):
        before = {path: get(base + path) if path != "/sitemaps/2026-11.xml" else "" for path in PAGES}
        old_page = get(demo_url)
    assert "A headline changed by a command" not in old_page
    assert "coherence-story" not in before["/"]

    seed = json.loads(SEED_JSON.read_text(encoding="utf-8"))
    changed = dict(seed, headline="A headline changed by a command")
    new = dict(seed, id="77001", slug="coherence-story", edition="2026-11-03T10", published_at="2026-11-03T10:00:00Z")
    new["headline"] = "A story imported by a command"
    batch = tmp_path / "batch.jsonl"
    batch.write_text(json.dumps(changed) + "\n" + json.dumps(new) + "\n", encoding="utf-8")
    manage("import_stories", "--restore", str(batch))

    for _ in range(4):  # every worker, on its very next request
        assert "A headline changed by a command" in get(demo_url)
        assert "A headline changed by a command" in get(demo_url + "index.json")
        assert "coherence-story" in get(base + "/")
        assert "coherence-story" in get(base + "/n/artificial-intelligence/")
        assert "coherence-story" in get(base + "/feed.atom")
        assert "coherence-story" in get(base + "/feed.json")
        assert "/sitemaps/2026-11.xml" in get(base + "/sitemap.xml")
        assert "coherence-story" in get(base + "/sitemaps/2026-11.xml")
