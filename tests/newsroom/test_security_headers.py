"""Response headers an attacker sees in production: HSTS without includeSubDomains or
preload unless the operator opts in, and no ``Server`` header from gunicorn."""

import http.client
import json
import os
import secrets
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROD_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "example.com",
    "SIGNING_KEY": secrets.token_urlsafe(32),
}
# Variables of the test run that must not leak into a fresh production process.
SCRUBBED = {
    "DJANGO_ALLOW_ASYNC_UNSAFE",
    "DEBUG",
    "CACHE_URL",
    "REDIS_URL",
    "DATABASE_REPLICA_URLS",
    "BEHIND_TLS_PROXY",
    "LOG_FORMAT",
    "PAGE_LOCAL_TTL",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
}


def production_env(**env: str) -> dict:
    return {k: v for k, v in os.environ.items() if k not in SCRUBBED} | PROD_ENV | env


def django(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=production_env(**env),
        capture_output=True,
        text=True,
        timeout=120,
    )


HSTS = (
    "import json; from django.http import HttpResponse; from django.test import RequestFactory;"
    "from django.middleware.security import SecurityMiddleware;"
    "response = SecurityMiddleware(lambda request: HttpResponse())(RequestFactory().get('/', secure=True));"
    "print(json.dumps(response.get('Strict-Transport-Security')))"
)


def hsts_header(**env: str) -> str:
    result = django("shell", "-c", HSTS, **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_hsts_by_default_covers_this_host_only():
    assert hsts_header() == "max-age=31536000"


def test_include_subdomains_and_preload_are_opt_in():
    assert hsts_header(SECURE_HSTS_INCLUDE_SUBDOMAINS="1") == "max-age=31536000; includeSubDomains"
    assert hsts_header(SECURE_HSTS_INCLUDE_SUBDOMAINS="1", SECURE_HSTS_PRELOAD="1") == (
        "max-age=31536000; includeSubDomains; preload"
    )


@pytest.mark.parametrize(
    "env",
    [{}, {"SECURE_HSTS_INCLUDE_SUBDOMAINS": "1", "SECURE_HSTS_PRELOAD": "1"}],
    ids=["defaults", "opted-in"],
)
def test_check_deploy_stays_clean(env):
    result = django("check", "--deploy", "--fail-level", "WARNING", **env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_only_the_two_hsts_warnings_are_silenced_and_only_while_off():
    """Other deploy checks still fire: a short HSTS max-age is not silenced."""
    result = django("check", "--deploy", "--fail-level", "WARNING", SECURE_HSTS_SECONDS="0")
    assert result.returncode != 0 and "security.W004" in result.stdout + result.stderr


# --- gunicorn, started with the project's gunicorn.conf.py on a loopback port.


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def gunicorn():
    port = free_port()
    env = production_env(
        GUNICORN_BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY="1",
        GUNICORN_ACCESSLOG="",
        DATABASE_URL="sqlite:///:memory:",
        CACHE_URL="locmemcache://",
    )
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "--config", "gunicorn.conf.py"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(server.stderr.read().decode()[-2000:]) from None
                time.sleep(0.2)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=40)
        server.stderr.close()


def raw_response(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_gunicorn_sends_no_server_header(gunicorn):
    for path, host in [("/healthz", "127.0.0.1"), ("/no-such-page/", "evil.example")]:
        connection = http.client.HTTPConnection("127.0.0.1", gunicorn, timeout=30)
        connection.request("GET", path, headers={"Host": host})
        response = connection.getresponse()
        response.read()
        assert response.status in (200, 400), path
        assert response.getheader("Server") is None, response.getheaders()
        assert response.getheader("Date")  # the other headers gunicorn adds are still there
        connection.close()
    # The raw bytes, with a keep-alive request and a HEAD, as a scanner would send them.
    for method in (b"GET", b"HEAD"):
        head = raw_response(gunicorn, method + b" /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").split(b"\r\n\r\n")[0]
        assert head.startswith(b"HTTP/1.0 200")
        assert b"\r\nserver:" not in head.lower() and b"gunicorn" not in head.lower()
