#!/usr/bin/env python3
"""The story page against its peers, in one run (``make bench-peers``):

- warm: the demo story page on SQLite with default settings (the default cache: the disk cache every worker shares), against the
  bare framework floor, a trivial Django app with ``SecurityMiddleware`` and
  ``CommonMiddleware`` only returning the page's own bytes;
- cold: the same page with ``CACHE_URL=dummycache://`` (rendered on every request), against
  the same story as a Wagtail page (StreamField sections, a plain template, SQLite, no cache).

Everything is built under ``.bench-peers/`` (git-ignored): the project's database, the bare
app, and the Wagtail site in its own virtual environment (Wagtail's current release from
PyPI, installed on the first run). Every server is gunicorn with 2 sync workers and no other
setting; each is loaded with ``wrk -t2 -c32``, the four in turn, for ``--rounds`` rounds;
each figure is the median of its rounds. Prints a Markdown table.

    .venv/bin/python bench/peers.py [--duration 10s] [--rounds 3] [--warmup 2s]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from peers_sites import BARE, WAGTAIL

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / ".bench-peers"
PY = sys.executable
SECRET = secrets.token_urlsafe(50)
PROJECT_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": SECRET,
    "SIGNING_KEY": secrets.token_urlsafe(32),  # the pages are signed (docs/deploy.md)
    "ALLOWED_HOSTS": "127.0.0.1,localhost",
    "SECURE_SSL_REDIRECT": "0",
    "LOG_LEVEL": "WARNING",
    "DATABASE_URL": f"sqlite:///{WORK / 'project.sqlite3'}",
}
# The story as the Wagtail peer loads it: its sections, each paragraph as the project's own
# sanitised HTML (what a rich-text field stores).
EXPORT_STORY = """
import json, sys
from public import markup
from stories.models import Story
s = Story.objects.published().get(slug="agent-training-stack")
json.dump({
    "path": "/" + s.url.split("://", 1)[-1].split("/", 1)[1],
    "headline": s.headline, "dek": s.dek, "slug": s.slug,
    "sections": [
        {"heading": sec.heading, "paragraphs": [str(markup.to_html(p.markdown)) for p in sec.paragraphs.all()]}
        for sec in s.sections.all()
    ],
}, sys.stdout)
"""


def run(cmd, *, env=None, cwd=ROOT, capture=False) -> str:
    result = subprocess.run(cmd, cwd=cwd, env={**os.environ, **(env or {})}, text=True, capture_output=capture)
    if result.returncode:
        raise SystemExit(f"{' '.join(map(str, cmd))} failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    return result.stdout if capture else ""


def write_files(base: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.lstrip("\n"))


def set_up_project() -> dict:
    """The project's SQLite database with the demo newsroom; returns the story (path, sections)."""
    manage = [PY, "manage.py"]
    run([*manage, "migrate", "--noinput", "-v0"], env=PROJECT_ENV)
    run([*manage, "loaddemo"], env=PROJECT_ENV, capture=True)
    run([*manage, "collectstatic", "--noinput", "-v0"], env=PROJECT_ENV)
    return json.loads(run([*manage, "shell", "-v", "0", "-c", EXPORT_STORY], env=PROJECT_ENV, capture=True))


def set_up_bare(body: bytes) -> Path:
    base = WORK / "bare"
    write_files(base, BARE)
    (base / "body.html").write_bytes(body)
    return base


def set_up_wagtail(story: dict) -> tuple[Path, Path, str]:
    """The Wagtail site, its venv made and Wagtail installed on the first run. Returns the
    site's directory, the venv's python and the Wagtail version."""
    venv, base = WORK / "wagtail-venv", WORK / "wagtail"
    py = venv / "bin" / "python"
    if not (venv / ".installed").exists():
        shutil.rmtree(venv, ignore_errors=True)
        run([sys.executable, "-m", "venv", str(venv)])
        run([str(py), "-m", "pip", "install", "--quiet", "wagtail", "gunicorn"])
        (venv / ".installed").touch()
    version = run([str(py), "-c", "import wagtail; print(wagtail.__version__)"], capture=True).strip()
    write_files(base, WAGTAIL)
    (base / "story.json").write_text(json.dumps(story))
    env = {"SECRET_KEY": SECRET}
    run([str(py), "manage.py", "makemigrations", "peer", "-v0"], env=env, cwd=base)
    run([str(py), "manage.py", "migrate", "--noinput", "-v0"], env=env, cwd=base)
    run([str(py), "manage.py", "load_story", "story.json"], env=env, cwd=base, capture=True)
    return base, py, version


class Server:
    """gunicorn with 2 sync workers on a port; no config file (an empty one), no access log."""

    def __init__(self, name, python, app, port, *, cwd, env=None):
        self.name, self.port, self.cwd = name, port, cwd
        self.cmd = [
            str(python), "-m", "gunicorn", "-c", str(WORK / "gunicorn.conf.py"),
            "-w", "2", "-k", "sync", "-b", f"127.0.0.1:{port}", app,
        ]  # fmt: skip
        self.env = {**os.environ, **(env or {})}
        self.proc = None

    def start(self):
        self.log = open(WORK / f"{self.name}.log", "w")  # noqa: SIM115
        self.proc = subprocess.Popen(self.cmd, cwd=self.cwd, env=self.env, stdout=self.log, stderr=self.log)

    def wait_for(self, path: str) -> bytes:
        for _ in range(300):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=5) as response:
                    return response.read()
            except OSError:
                if self.proc.poll() is not None:
                    raise SystemExit(f"{self.name} did not start: see {WORK / (self.name + '.log')}") from None
                time.sleep(0.2)
        raise SystemExit(f"{self.name} did not answer {path}")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=30)
        self.log.close()


def wrk(url: str, duration: str) -> float:
    out = run(["wrk", "-t2", "-c32", f"-d{duration}", url], capture=True)
    match = re.search(r"Requests/sec:\s+([0-9.]+)", out)
    if not match or "Non-2xx" in out:
        raise SystemExit(f"wrk against {url} failed:\n{out}")
    return float(match.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", default="10s", help="wrk duration per run [10s]")
    parser.add_argument("--warmup", default="2s", help="wrk warm-up per server before the rounds [2s]")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; each figure is their median [3]")
    args = parser.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("wrk is not installed (apt-get install wrk)")
    WORK.mkdir(parents=True, exist_ok=True)
    (WORK / "gunicorn.conf.py").write_text("")

    print("setting up the project (SQLite, demo newsroom)...", file=sys.stderr)
    story = set_up_project()
    path = story["path"]
    project = Server("project-warm", PY, "newsroom.wsgi:application", 8711, cwd=ROOT, env=PROJECT_ENV)
    cold = Server(
        "project-cold", PY, "newsroom.wsgi:application", 8712, cwd=ROOT,
        env={**PROJECT_ENV, "CACHE_URL": "dummycache://"},
    )  # fmt: skip
    servers = [project, cold]
    try:
        for s in servers:
            s.start()
        body = project.wait_for(path)
        cold.wait_for(path)
        print("setting up the bare floor and the Wagtail peer...", file=sys.stderr)
        bare_dir = set_up_bare(body)
        bare = Server("bare", PY, "bare_wsgi:application", 8713, cwd=bare_dir, env={"SECRET_KEY": SECRET})
        wagtail_dir, wagtail_py, wagtail_version = set_up_wagtail(story)
        peer = Server("wagtail", wagtail_py, "peer_wsgi:application", 8714, cwd=wagtail_dir, env={"SECRET_KEY": SECRET})
        for s in (bare, peer):
            s.start()
            servers.append(s)
        sizes = {
            "project": len(body),
            "bare": len(bare.wait_for(path)),
            "wagtail": len(peer.wait_for(f"/{story['slug']}/")),
        }
        urls = {
            "project": f"http://127.0.0.1:{project.port}{path}",
            "bare": f"http://127.0.0.1:{bare.port}{path}",
            "cold": f"http://127.0.0.1:{cold.port}{path}",
            "wagtail": f"http://127.0.0.1:{peer.port}/{story['slug']}/",
        }
        for url in urls.values():
            wrk(url, args.warmup)
        results = {name: [] for name in urls}
        for n in range(args.rounds):
            for name, url in urls.items():
                results[name].append(wrk(url, args.duration))
            print(f"round {n + 1}: " + ", ".join(f"{k} {v[-1]:.0f}" for k, v in results.items()), file=sys.stderr)
    finally:
        for s in servers:
            s.stop()

    med = {name: statistics.median(values) for name, values in results.items()}
    print(f"\nwrk -t2 -c32 -d{args.duration}, gunicorn -w 2 sync, SQLite; median of {args.rounds} alternating rounds")
    print(f"Wagtail {wagtail_version}; load average at the end: {os.getloadavg()[0]:.1f}\n")
    print("| what | project req/s | peer req/s | ratio | bytes (project / peer) |")
    print("|---|---|---|---|---|")
    print(
        f"| warm story page (default cache) vs bare Django (Security + Common middleware, same bytes) "
        f"| {med['project']:.0f} | {med['bare']:.0f} | **{med['project'] / med['bare']:.2f}** "
        f"| {sizes['project']} / {sizes['bare']} |"
    )
    print(
        f"| story page rendered every request (`dummycache://`) vs the Wagtail page "
        f"| {med['cold']:.0f} | {med['wagtail']:.0f} | **{med['cold'] / med['wagtail']:.2f}** "
        f"| {sizes['project']} / {sizes['wagtail']} |"
    )
    print("\nEach round (req/s): " + "; ".join(f"{k} {', '.join(f'{v:.0f}' for v in vs)}" for k, vs in results.items()))


if __name__ == "__main__":
    main()
