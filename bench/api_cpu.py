"""CPU time a request of the partner API costs in process (no server, no network): the
median of many requests through Django's WSGI handler, timed with ``time.process_time``,
so that figures taken on a busy machine still compare.

    createdb api_bench; export DATABASE_URL=postgres://postgres@127.0.0.1:5432/api_bench
    python manage.py migrate && python manage.py loaddemo && python bench/api_stories.py 60
    SECRET_KEY=... DEBUG=0 python bench/api_cpu.py detail            # warm story detail
    SECRET_KEY=... DEBUG=0 CACHE_URL=dummycache:// python bench/api_cpu.py list   # cold list of 50
    python bench/api_cpu.py floor       # the bare framework's view returning FLOOR_BYTES (14,416)

``PROFILE=cumulative`` (or ``tottime``) prints the profile of the ``n`` requests instead.
``API_RATE`` is raised out of the way as the peers benchmark does (``bench/api_peers.py``).
"""

import io
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "newsroom.settings")
os.environ.setdefault("API_RATE", "100000000/min")
os.environ.setdefault("SECURE_SSL_REDIRECT", "0")
os.environ.setdefault("CONN_MAX_AGE", "600")
os.environ.setdefault("ALLOWED_HOSTS", "testserver,localhost")


def environ(path: str, query: str, key: str) -> dict:
    return {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_NAME": "localhost",
        "SERVER_PORT": "80",
        "HTTP_HOST": "localhost",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_AUTHORIZATION": f"Bearer {key}",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": sys.stderr,
        "wsgi.version": (1, 0),
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }


def setup(what: str):
    """The WSGI handler and a read key; for ``floor``, the bare framework's app of
    ``bench/api_peers.py`` returning ``FLOOR_BYTES`` (the detail's size unless given)."""
    if what == "floor":
        from api_peers import FLOOR_APP

        os.environ.setdefault("FLOOR_BYTES", "14416")
        sys.modules["floorapp"] = type(sys)("floorapp")
        exec(compile(FLOOR_APP, "floorapp", "exec"), sys.modules["floorapp"].__dict__)
        return sys.modules["floorapp"].application, "none"
    import django

    django.setup()
    from django.core.handlers.wsgi import WSGIHandler

    from syndication.models import ApiKey, Partner

    partner, _ = Partner.objects.get_or_create(slug="bench-cpu", defaults={"name": "bench cpu"})
    return WSGIHandler(), ApiKey.issue(partner=partner, scope="read")[1]


def main(what: str, n: int) -> None:
    handler, key = setup(what)
    if what == "floor":
        path, query = "/floor", ""
    elif what == "detail":
        from stories.models import Story

        story_id = Story.objects.published().order_by("id").values_list("id", flat=True).first()
        path, query = f"/api/v1/stories/{story_id}/", ""
    else:
        path, query = "/api/v1/stories/", "page_size=50"
    statuses = []

    def start_response(status, headers, exc_info=None):
        statuses.append(status)

    def once() -> int:
        body = b"".join(handler(environ(path, query, key), start_response))
        return len(body)

    for _ in range(min(20, n)):  # warm: the key, the stored answer, imports
        size = once()
    if os.environ.get("PROFILE"):  # cProfile the requests instead of timing them
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.runcall(lambda: [once() for _ in range(n)])
        stats = pstats.Stats(profiler).sort_stats(os.environ["PROFILE"])
        stats.print_stats(int(os.environ.get("PROFILE_LINES", "40")))
        return
    times = []
    for _ in range(n):
        t = time.process_time()
        once()
        times.append(time.process_time() - t)
    assert all(s.startswith("200") for s in statuses), set(statuses)
    print(
        f"{what} {path}?{query} {size:,} bytes: median {statistics.median(times) * 1000:.3f} ms CPU, "
        f"p10 {statistics.quantiles(times, n=10)[0] * 1000:.3f} ms, {n} requests"
    )


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 300)
