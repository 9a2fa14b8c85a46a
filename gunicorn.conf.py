"""gunicorn configuration for the newsroom site (``make serve``; see docs/deploy.md).

Every value can be changed from the environment without editing this file:

- ``GUNICORN_BIND`` (default ``127.0.0.1:8000``; nginx proxies to it). ``PORT`` also works,
  binding ``0.0.0.0:$PORT`` as platforms that set it expect.
- Workers: ``2 * cores + 1`` (cores this process may run on, so container CPU limits count),
  capped by ``WEB_CONCURRENCY`` when set. Sync workers: each request holds a worker, and the
  site's requests are short, CPU-bound renders and database reads.
- ``GUNICORN_THREADS`` > 1 switches to the ``gthread`` worker (for slow clients without nginx).
- ``GUNICORN_TIMEOUT`` (30 s): a worker silent for this long is killed and replaced;
  ``GUNICORN_GRACEFUL_TIMEOUT`` (30 s): on reload/stop, in-flight requests get this long.
- ``GUNICORN_KEEPALIVE`` (5 s): behind nginx, which keeps upstream connections open.
- ``GUNICORN_MAX_REQUESTS`` (20000) + ``GUNICORN_MAX_REQUESTS_JITTER`` (10000): each worker is
  recycled after 20,000-30,000 requests, bounding slow memory growth (measured: about 0.2 MB
  per 10,000 requests). The jitter is half the limit because the kernel spreads requests
  evenly over the workers: with the old 2000 + 200, all five reached their limit within a
  few seconds of each other and the site stopped answering while five new workers booted
  (docs/benchmarks.md, "Load: wrk against the story page and the API").
- Each new worker is warmed (``post_worker_init``: URLconf, cache backend, templates; see
  ``newsroom/infra/warmup.py``) before it accepts, so its first request is not a cold one.
- Logs: access and error log to stdout/stderr as JSON lines (``newsroom.infra.logging``), each
  access line with the response's ``X-Request-ID``. Request headers (``Authorization``) are
  never written.
- ``GUNICORN_CONTROL_SOCKET``: path of the control socket (off by default).
- ``FORWARDED_ALLOW_IPS`` (default ``127.0.0.1``): proxies trusted for ``X-Forwarded-*``.
- No ``Server`` header: gunicorn has no setting for it, so ``_without_server_header`` drops
  the line from the headers gunicorn writes itself (``Response.default_headers``).
"""

import os


def _without_server_header() -> None:
    """gunicorn writes ``Server: gunicorn`` before every response's own headers, and has no
    setting to stop it (overriding ``gunicorn.SERVER`` only changes its value, and only if
    done before ``gunicorn.http.wsgi`` is imported). So its ``Response.default_headers``
    (HTTP/1.x, sync and gthread workers) is wrapped to leave that one line out; the status
    line, ``Date``, ``Connection`` and ``Transfer-Encoding`` are untouched. Done here, in the
    master, before the workers fork, so every worker inherits it; wrapping twice (a reload
    reads this file again) is avoided. gunicorn's own error pages (a malformed request) carry
    no ``Server`` header to begin with. HTTP/2 (``http_protocols = "h2"``, off here and by
    default; nginx speaks HTTP/1.1 to gunicorn) writes its headers elsewhere and would still
    send it."""
    from gunicorn.http import wsgi

    default_headers = wsgi.Response.default_headers
    if getattr(default_headers, "without_server", False):
        return

    def headers_without_server(self):
        return [line for line in default_headers(self) if not line.lower().startswith("server:")]

    headers_without_server.without_server = True
    wsgi.Response.default_headers = headers_without_server


_without_server_header()


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _workers() -> int:
    workers = 2 * _cores() + 1
    cap = os.environ.get("WEB_CONCURRENCY")
    return min(workers, int(cap)) if cap else workers


wsgi_app = "newsroom.wsgi:application"
bind = [
    os.environ.get("GUNICORN_BIND") or (f"0.0.0.0:{os.environ['PORT']}" if os.environ.get("PORT") else "127.0.0.1:8000")
]
workers = _workers()
threads = int(os.environ.get("GUNICORN_THREADS", "1"))
worker_class = "gthread" if threads > 1 else "sync"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "30"))
keepalive = int(os.environ.get("GUNICORN_KEEPALIVE", "5"))
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "20000"))
max_requests_jitter = int(os.environ.get("GUNICORN_MAX_REQUESTS_JITTER", "10000"))
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
# The worker heartbeat file on tmpfs: a disk-backed /tmp can stall it under I/O load.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
accesslog = os.environ.get("GUNICORN_ACCESSLOG", "-") or None  # empty: no access log
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOGLEVEL", "info")
logger_class = "newsroom.infra.logging.GunicornJsonLogger"
proc_name = "newsroom"
# gunicorn's control socket (``gunicornc``) defaults to one path per user, which two servers
# on one machine (a blue/green deploy, a benchmark) would fight over: off unless a path is set.
control_socket = os.environ.get("GUNICORN_CONTROL_SOCKET", "")
control_socket_disable = not control_socket


def post_worker_init(worker):
    """Warm the new worker before it accepts: its first request would otherwise pay ~1 s of
    lazy imports and template compiles while requests queue behind it (newsroom/infra/warmup.py)."""
    from newsroom.infra.warmup import warm

    worker.log.info("worker %s warmed in %.2f s", worker.pid, warm())
