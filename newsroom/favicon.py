"""``/favicon.ico``: the site's icon at the address browsers ask for, whatever page they
are on (the pages also link it from ``static/site/favicon.ico``)."""

from functools import lru_cache

from django.contrib.staticfiles import finders
from django.http import HttpResponse
from django.views.decorators.http import require_safe


@lru_cache(maxsize=1)
def _icon() -> bytes:
    path = finders.find("site/favicon.ico")
    if path is None:  # collected only (a deployment without the source tree's static/)
        from django.contrib.staticfiles.storage import staticfiles_storage

        with staticfiles_storage.open("site/favicon.ico") as handle:
            return handle.read()
    with open(path, "rb") as handle:
        return handle.read()


@require_safe
def favicon(request):
    response = HttpResponse(_icon(), content_type="image/x-icon")
    response["Cache-Control"] = "public, max-age=86400"
    return response
