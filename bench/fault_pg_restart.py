#!/usr/bin/env python3
"""Fault: PostgreSQL restarted while the site is under load (docs/reliability.md).

Starts gunicorn (gunicorn.conf.py, DEBUG=0, persistent database connections) on 127.0.0.1,
drives requests at the story page, a newsroom page and a feed from a pool of threads for
DURATION seconds, restarts PostgreSQL once in the middle (``pg_ctlcluster ... restart``),
and checks:

- every response is 200 or 503 (503 only with ``Retry-After``): no 500, no reset
  connection, no request hanging past TIMEOUT seconds;
- after the restart, requests succeed again (the last RECOVERY seconds are all 200) with
  the same gunicorn master and no worker restarted.

The page cache is switched off (``CACHE_URL=dummycache://``) so that every request reads
the database. Prints the figures as JSON on stdout and exits 0 when all checks pass, 1 when
one fails, 2 when it cannot run (not PostgreSQL, no pg_ctlcluster).

Restarting PostgreSQL disconnects everyone using the server: run it on a machine of your
own, never while others' tests run. CI runs it last (bench/ci_load.sh, at the end of
.ci/run). Refuses to run unless FAULT_PG_RESTART=1. Whatever fails, it starts the cluster
again before exiting if it is not accepting connections.

Environment: FAULT_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/newsroom_fault),
FAULT_PORT (8011), FAULT_DURATION (20), FAULT_THREADS (8), FAULT_RESTART_AT (6),
FAULT_TIMEOUT (10), FAULT_RECOVERY (4), FAULT_DRY_RUN=1 (everything but the restart),
PG_CLUSTER ("<version> main", the first under
/etc/postgresql).
"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = str(ROOT / ".venv" / "bin" / "python")
GUNICORN = str(ROOT / ".venv" / "bin" / "gunicorn")
PATHS = ["/stories/2026-10-16/agent-training-stack/", "/n/artificial-intelligence/", "/feed.json"]


def setting(name: str, default: str) -> str:
    return os.environ.get(name, default)


DATABASE_URL = setting("FAULT_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/newsroom_fault")
PORT = int(setting("FAULT_PORT", "8011"))
DURATION = float(setting("FAULT_DURATION", "20"))
THREADS = int(setting("FAULT_THREADS", "8"))
RESTART_AT = float(setting("FAULT_RESTART_AT", "6"))
TIMEOUT = float(setting("FAULT_TIMEOUT", "10"))
RECOVERY = float(setting("FAULT_RECOVERY", "4"))


def cluster() -> list[str]:
    if "PG_CLUSTER" in os.environ:
        return os.environ["PG_CLUSTER"].split()
    versions = sorted(p.name for p in Path("/etc/postgresql").iterdir())
    return [versions[0], "main"]


def server_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        SIGNING_KEY=secrets.token_urlsafe(32),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="0",
        DATABASE_URL=DATABASE_URL,
        CACHE_URL="dummycache://",  # every request reads the database
        CONN_MAX_AGE="600",  # persistent connections: the restart kills them under the workers
        LOG_LEVEL="CRITICAL",
        GUNICORN_BIND=f"127.0.0.1:{PORT}",
        GUNICORN_ACCESSLOG="/dev/null",
        WEB_CONCURRENCY=setting("WEB_CONCURRENCY", "4"),
        GUNICORN_MAX_REQUESTS="0",  # no planned worker recycling: any new worker is a crash
    )
    return env


def prepare(env: dict[str, str]) -> None:
    name = DATABASE_URL.rsplit("/", 1)[1]
    server = DATABASE_URL.rsplit("/", 1)[0] + "/postgres"
    exists = subprocess.run(
        ["psql", server, "-tAc", f"SELECT 1 FROM pg_database WHERE datname = '{name}'"],
        capture_output=True,
        text=True,
        check=True,
    )
    if exists.stdout.strip() != "1":
        subprocess.run(["psql", server, "-qc", f'CREATE DATABASE "{name}"'], check=True)
    for args in (["migrate", "--noinput", "-v0"], ["loaddemo"], ["collectstatic", "--noinput", "-v0"]):
        subprocess.run([PY, "manage.py", *args], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)


def get(path: str) -> tuple[int | str, float, str | None]:
    """(status or error name, seconds, Retry-After) of one GET on a new connection."""
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=TIMEOUT)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status, time.monotonic() - started, response.getheader("Retry-After")
    except Exception as exc:  # a reset, refused or timed-out request is a failure to report
        return type(exc).__name__, time.monotonic() - started, None
    finally:
        conn.close()


def wait_until_up(deadline: float = 30) -> None:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if get("/healthz")[0] == 200:
            return
        time.sleep(0.2)
    raise SystemExit("gunicorn did not come up")


def workers_of(pid: int) -> set[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return {int(p) for p in out.split()}


def drive(t0: float, stop: threading.Event, results: list, lock: threading.Lock, worker: int) -> None:
    i = worker
    while not stop.is_set():
        path = PATHS[i % len(PATHS)]
        status, seconds, retry_after = get(path)
        with lock:
            results.append(
                {
                    "t": round(time.monotonic() - t0, 3),
                    "path": path,
                    "status": status,
                    "seconds": seconds,
                    "retry_after": retry_after,
                }
            )
        i += 1


def main() -> int:
    if os.environ.get("FAULT_PG_RESTART") != "1" and os.environ.get("FAULT_DRY_RUN") != "1":
        print(
            "refusing: restarting PostgreSQL disconnects every user of the server; set FAULT_PG_RESTART=1",
            file=sys.stderr,
        )
        return 2
    if not DATABASE_URL.startswith("postgres") or not shutil.which("pg_ctlcluster"):
        print("needs PostgreSQL and pg_ctlcluster", file=sys.stderr)
        return 2
    env = server_env()
    prepare(env)
    # The server's log goes to a file: an unread pipe fills up and blocks the workers.
    # gunicorn keeps its own copy of the descriptor; this process closes its copy at once.
    with tempfile.NamedTemporaryFile(prefix="fault-gunicorn-", suffix=".log", delete=False) as log:
        server = subprocess.Popen(
            [GUNICORN, "--config", "gunicorn.conf.py"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
    try:
        wait_until_up()
        workers_before = workers_of(server.pid)
        results, lock, stop = [], threading.Lock(), threading.Event()
        t0 = time.monotonic()
        with ThreadPoolExecutor(THREADS) as pool:
            try:
                for w in range(THREADS):
                    pool.submit(drive, t0, stop, results, lock, w)
                time.sleep(RESTART_AT)
                restart_started = time.monotonic() - t0
                if os.environ.get("FAULT_DRY_RUN") != "1":  # the dry run checks the harness alone
                    subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", *cluster(), "restart"], check=True)
                restart_ended = time.monotonic() - t0
                time.sleep(max(0.0, DURATION - (time.monotonic() - t0)))
            finally:
                stop.set()  # else a failed restart leaves the client threads running forever
        workers_after = workers_of(server.pid)
        alive = server.poll() is None
        code = report(results, restart_started, restart_ended, workers_before, workers_after, alive)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=40)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        ensure_postgres()  # whatever failed, leave the machine's PostgreSQL running
    print(f"gunicorn log: {log.name}", file=sys.stderr)
    return code


def ensure_postgres(wait: float = 30) -> bool:
    """Start the cluster again if it is not accepting connections (a failed restart)."""

    def ready() -> bool:
        return subprocess.run(["pg_isready", "-h", "127.0.0.1", "-q"], check=False).returncode == 0

    if ready():
        return True
    print("PostgreSQL is not accepting connections: starting the cluster", file=sys.stderr)
    subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", *cluster(), "start"], check=False)
    end = time.monotonic() + wait
    while time.monotonic() < end:
        if ready():
            return True
        time.sleep(0.5)
    return False


def report(results, restart_started, restart_ended, workers_before, workers_after, alive) -> int:
    statuses: dict[str, int] = {}
    for r in results:
        statuses[str(r["status"])] = statuses.get(str(r["status"]), 0) + 1
    unavailable = [r for r in results if r["status"] == 503]
    after = [r for r in results if r["t"] >= restart_ended]
    first_ok_after = next((r["t"] for r in after if r["status"] == 200), None)
    tail = [r for r in results if r["t"] >= DURATION - RECOVERY]
    figures = {
        "requests": len(results),
        "statuses": statuses,
        "restart_seconds": [round(restart_started, 2), round(restart_ended, 2)],
        "first_503_at": min((r["t"] for r in unavailable), default=None),
        "last_503_at": max((r["t"] for r in unavailable), default=None),
        "first_200_after_restart": first_ok_after,
        "seconds_to_recover": round(first_ok_after - restart_ended, 3) if first_ok_after is not None else None,
        "slowest_request_seconds": round(max(r["seconds"] for r in results), 3),
        "tail_all_200": bool(tail) and all(r["status"] == 200 for r in tail),
        "gunicorn_alive": alive,
        "workers_unchanged": workers_before == workers_after,
    }
    failures = []
    bad = {s: n for s, n in statuses.items() if s not in ("200", "503")}
    if bad:
        failures.append(f"responses other than 200/503: {bad}")
    if any(r["retry_after"] is None for r in unavailable):
        failures.append("a 503 without Retry-After")
    if figures["slowest_request_seconds"] >= TIMEOUT:
        failures.append("a request hung")
    if not figures["tail_all_200"]:
        failures.append(f"not recovered: the last {RECOVERY} s were not all 200")
    if not alive or not figures["workers_unchanged"]:
        failures.append("gunicorn or a worker was restarted")
    figures["failures"] = failures
    print(json.dumps(figures, indent=2))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
