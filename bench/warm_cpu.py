#!/usr/bin/env python3
"""CPU per warm story page request, in process: the WSGI handler called directly.

The peers benchmark (``bench/peers.py``) needs a quiet machine; this one does not: it
counts CPU time (``time.process_time``) of the WSGI application answering the demo story
page from a warm cache, as ``wrk`` asks for it (``Host: 127.0.0.1``, no cookies), in the
same settings (DEBUG off, SQLite, the default disk cache, a signing key). It prints the
best and median microseconds per request over ``--runs`` runs of ``--requests`` requests,
and the same for the bare framework floor (``bench/peers_sites.py``) in a subprocess.

    .venv/bin/python bench/warm_cpu.py [--requests 3000] [--runs 7] [--profile]
"""

import argparse
import io
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / ".bench-peers" / "warm-cpu"
PATH = "/stories/2026-10-16/agent-training-stack/"


def environ(path: str) -> dict:
    return {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8711",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "127.0.0.1:8711",
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
    }


def serve_once(application, path: str) -> tuple[str, list, bytes]:
    seen = {}

    def start_response(status, headers, exc_info=None):
        seen["status"], seen["headers"] = status, headers

    result = application(environ(path), start_response)
    try:
        body = b"".join(result)
    finally:
        if hasattr(result, "close"):
            result.close()
    return seen["status"], seen["headers"], body


def measure(application, path: str, requests: int, runs: int) -> list[float]:
    status, _, _ = serve_once(application, path)
    assert status.startswith("200"), status
    per_request = []
    for _ in range(runs):
        start = time.process_time()
        for _ in range(requests):
            serve_once(application, path)
        per_request.append((time.process_time() - start) / requests * 1e6)
    return per_request


def report(name: str, figures: list[float]) -> None:
    print(f"{name}: best {min(figures):.1f} us, median {statistics.median(figures):.1f} us per request")


def project_application():
    """The project's WSGI application in the benchmark's settings (its database made on first use)."""
    WORK.mkdir(parents=True, exist_ok=True)
    os.environ.update(
        DEBUG="0",
        SECRET_KEY="warm-cpu-" + "x" * 50,
        SIGNING_KEY="q" * 43,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="0",
        LOG_LEVEL="WARNING",
        DATABASE_URL=f"sqlite:///{WORK / 'project.sqlite3'}",
        CACHE_DIR=str(WORK / "cache"),
        DJANGO_SETTINGS_MODULE="newsroom.settings",
    )
    for name in ("CACHE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    if not (WORK / "project.sqlite3").exists():
        manage = [sys.executable, "manage.py"]
        subprocess.run([*manage, "migrate", "--noinput", "-v0"], cwd=ROOT, check=True)
        subprocess.run([*manage, "loaddemo"], cwd=ROOT, check=True, capture_output=True)
        subprocess.run([*manage, "collectstatic", "--noinput", "-v0"], cwd=ROOT, check=True)
    sys.path.insert(0, str(ROOT))
    from django.core.wsgi import get_wsgi_application

    return get_wsgi_application()


def project(args) -> None:
    application = project_application()
    status, headers, body = serve_once(application, PATH)
    (WORK / "body.html").write_bytes(body)
    if args.headers:
        status, headers, body = serve_once(application, PATH)
        print(status, len(body), "bytes")
        for name, value in headers:
            print(f"{name}: {value}")
        return
    if args.profile:
        import cProfile
        import pstats

        serve_once(application, PATH)
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(args.requests):
            serve_once(application, PATH)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(30)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
        return
    report("project warm story page", measure(application, PATH, args.requests, args.runs))


def bare_application():
    """The bare framework floor's WSGI application, serving the body the project served."""
    sys.path.insert(0, str(ROOT / "bench"))
    from peers_sites import BARE

    site = WORK / "bare"
    site.mkdir(parents=True, exist_ok=True)
    for name, text in BARE.items():
        (site / name).write_text(text)
    (site / "body.html").write_bytes((WORK / "body.html").read_bytes())
    sys.path.insert(0, str(site))
    os.environ.update(SECRET_KEY="bare-" + "x" * 50, DJANGO_SETTINGS_MODULE="bare_settings")
    from django.core.wsgi import get_wsgi_application

    return get_wsgi_application()


def bare(args) -> None:
    report("bare framework floor", measure(bare_application(), PATH, args.requests, args.runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--profile", action="store_true", help="cProfile the project's requests instead")
    parser.add_argument("--headers", action="store_true", help="print a warm answer's headers instead")
    parser.add_argument("--only", choices=("project", "bare"))
    args = parser.parse_args()
    if args.only == "bare":
        return bare(args)
    project(args)
    if args.only is None and not (args.profile or args.headers):
        command = [sys.executable, __file__, "--only", "bare", f"--requests={args.requests}", f"--runs={args.runs}"]
        subprocess.run(command, check=True)


if __name__ == "__main__":
    main()
