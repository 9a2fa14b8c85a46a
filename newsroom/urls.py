from django.contrib import admin
from django.urls import include, path

from newsroom.favicon import favicon
from newsroom.infra import signing

# Under /api/ a server error, and a request Django refuses before any view (a body over
# DATA_UPLOAD_MAX_MEMORY_SIZE), answer JSON, like every other API error.
handler400 = "syndication.errors.bad_request"
handler500 = "syndication.errors.server_error"

urlpatterns = [
    path("favicon.ico", favicon, name="favicon"),
    path("admin/", admin.site.urls),
    path("api/", include("syndication.urls")),
    path(".well-known/http-message-signatures-directory", signing.directory, name="http-message-signatures-directory"),
    path("", include("public.urls")),
]

# Health probes (answered by HealthCheckMiddleware; routed for reverse()).
urlpatterns += [path("", include("newsroom.infra.health_urls"))]
# Story renderings resolve first (a route late in the list pays for every failed include
# before it), then the benchmark floor (404 unless BENCH_FLOOR=1), which would otherwise be
# flattered against the pages measured with it.
urlpatterns.insert(0, path("bench/", include("newsroom.infra.bench_urls")))
urlpatterns.insert(0, path("stories/", include("public.story_urls")))
