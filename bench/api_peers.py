"""The partner API against the bare framework: warm story detail and list (50 a page), each
as a ratio to a trivial Django view returning the same number of bytes with Django's
``SecurityMiddleware`` and ``CommonMiddleware`` only.

    make bench-api                      # or:
    BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_api .venv/bin/python bench/api_peers.py

Both servers run under gunicorn ``-w 2`` sync workers with ``DEBUG=0``; ``wrk -t2 -c32``
for ``--duration`` seconds, the project and the floor alternating, ``--runs`` times; the
median of each is reported. The project runs with its default cache (no ``CACHE_URL``: the
disk cache every worker shares) unless ``CACHE_URL`` is set, a read key, ``API_RATE`` out of
the way and persistent database connections. ``--stories N`` published stories are made
first when missing (``bench/api_stories.py``: the demo story, imported through the gate).
``--cold`` also measures the list rendered on every request (``CACHE_URL=dummycache://``).
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable

FLOOR_APP = """
import os
from django.conf import settings
from django.core.wsgi import get_wsgi_application
from django.http import HttpResponse
from django.urls import path

settings.configure(
    DEBUG=False, SECRET_KEY="bench", ALLOWED_HOSTS=["*"], ROOT_URLCONF=__name__,
    MIDDLEWARE=["django.middleware.security.SecurityMiddleware", "django.middleware.common.CommonMiddleware"],
)
BODY = b"x" * int(os.environ["FLOOR_BYTES"])

def floor(request):
    return HttpResponse(BODY, content_type="application/json")

urlpatterns = [path("floor", floor)]
application = get_wsgi_application()
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url: str, headers: dict | None = None, timeout: float = 120) -> bytes:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=10) as r:
                return r.read()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


def wrk(url: str, duration: int, header: str | None = None) -> float:
    cmd = ["wrk", "-t2", "-c32", f"-d{duration}s", url]
    if header:
        cmd[1:1] = ["-H", header]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if non2xx:
        raise SystemExit(f"{url}: {non2xx.group(1)} error answers during the run\n{out}")
    return float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))


def manage(env: dict, *args: str) -> str:
    done = subprocess.run([PY, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(done.stderr[-3000:])
    return done.stdout


def project_env(database_url: str, cache_url: str | None, cache_dir: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("CACHE_URL", "REDIS_URL")}
    env.update(
        DATABASE_URL=database_url,
        DEBUG="0",
        SECRET_KEY="bench-only-" + "k" * 50,
        # Answers are signed as in production: a bench-only key (32 bytes, base64url).
        SIGNING_KEY=os.environ.get("SIGNING_KEY") or "b" * 43,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="0",
        API_RATE="100000000/min",
        CONN_MAX_AGE="600",
        CACHE_DIR=cache_dir,
        GUNICORN_ACCESSLOG="",
        WEB_CONCURRENCY="2",
    )
    if cache_url:
        env["CACHE_URL"] = cache_url
    return env


def start(cmd: list[str], env: dict, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def issue_key(env: dict) -> str:
    code = (
        "from syndication.models import ApiKey, Partner;"
        "p,_=Partner.objects.get_or_create(slug='bench-peers', defaults={'name':'bench peers'});"
        "print(ApiKey.issue(partner=p, scope='read')[1])"
    )
    return manage(env, "shell", "-c", code).strip().splitlines()[-1]


def measure(name, api_url, bytes_, header, floor_env, tmp, runs, duration):
    floor_port = free_port()
    floor = start(
        [PY, "-m", "gunicorn", "-w", "2", "-b", f"127.0.0.1:{floor_port}", "floorapp:application"],
        dict(floor_env, FLOOR_BYTES=str(bytes_)),
        tmp,
    )
    floor_url = f"http://127.0.0.1:{floor_port}/floor"
    try:
        wait_for(floor_url)
        ours, bare = [], []
        wrk(api_url, 2, header)  # warm-up
        for _ in range(runs):
            ours.append(wrk(api_url, duration, header))
            bare.append(wrk(floor_url, duration))
    finally:
        floor.terminate()
        floor.wait()
    o, b = statistics.median(ours), statistics.median(bare)
    print(f"| {name} | {bytes_:,} | {o:,.0f} | {b:,.0f} | **{o / b:.3f}** |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stories", type=int, default=60)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--cold", action="store_true")
    args = parser.parse_args()
    database_url = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bench_api")
    name = database_url.rsplit("/", 1)[1]
    subprocess.run(
        ["psql", database_url.rsplit("/", 1)[0] + "/postgres", "-qc", f"create database {name}"], capture_output=True
    )
    tmp = Path(tempfile.mkdtemp(prefix="api-peers-"))
    (tmp / "floorapp.py").write_text(FLOOR_APP)
    floor_env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    cases = [(os.environ.get("CACHE_URL"), "warm")] + ([("dummycache://", "cold")] if args.cold else [])
    for cache_url, label in cases:
        env = project_env(database_url, cache_url, str(tmp / "cache"))
        manage(env, "migrate", "--noinput")
        manage(env, "loaddemo")
        subprocess.run(
            [PY, "bench/api_stories.py", str(args.stories)], cwd=ROOT, env=env, check=True, capture_output=True
        )
        key = issue_key(env)
        port = free_port()
        server = start(
            [PY, "-m", "gunicorn", "--config", "gunicorn.conf.py"], dict(env, GUNICORN_BIND=f"127.0.0.1:{port}"), ROOT
        )
        header = f"Authorization: Bearer {key}"
        base = f"http://127.0.0.1:{port}"
        try:
            story = wait_for(base + "/api/v1/stories/?page_size=1", {"Authorization": f"Bearer {key}"})
            story_id = re.search(rb'"id":"([^"]+)"', story).group(1).decode()
            print(
                f"\n{label} ({cache_url or 'default cache'}), gunicorn -w 2, wrk -t2 -c32 -d{args.duration}s, "
                f"median of {args.runs}\n"
            )
            print("| endpoint | bytes | project req/s | bare floor req/s | ratio |\n|---|---|---|---|---|")
            for what, path in (
                ("story detail", f"/api/v1/stories/{story_id}/"),
                ("list, 50 a page", "/api/v1/stories/?page_size=50"),
            ):
                if label == "cold" and what == "story detail":
                    continue
                body = wait_for(base + path, {"Authorization": f"Bearer {key}"})
                measure(what, base + path, len(body), header, floor_env, tmp, args.runs, args.duration)
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
