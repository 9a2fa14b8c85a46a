"""The framework floor: the cheapest page Django can serve through this project's stack.

``/bench/floor?bytes=N`` returns N bytes of text through the same middleware, URL
resolution and gunicorn config as every page; ``bench/wrk_floor.sh`` measures each page
against it with the same byte count. Enabled only with ``BENCH_FLOOR=1`` (404 otherwise).
"""

from django.conf import settings
from django.http import Http404, HttpResponse

MAX_BYTES = 10_000_000


def floor(request):
    """N bytes of ``x`` (``?bytes=N``, default 0, at most 10 MB), as ``text/html``."""
    if not settings.BENCH_FLOOR:
        raise Http404("the benchmark floor is off (BENCH_FLOOR=0)")
    try:
        size = int(request.GET.get("bytes", "0"))
    except ValueError:
        size = -1
    if not 0 <= size <= MAX_BYTES:
        return HttpResponse("bytes must be an integer from 0 to 10000000\n", status=400, content_type="text/plain")
    return HttpResponse(b"x" * size, content_type="text/html; charset=utf-8")
