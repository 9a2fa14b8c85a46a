from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("stories.urls")),
    path("", include("manifests.urls")),
    path("", include("newsroom.site_urls")),
]

# Health probes and the benchmark floor (off unless BENCH_FLOOR=1).
urlpatterns += [path("", include("newsroom.health_urls")), path("bench/", include("newsroom.bench_urls"))]
