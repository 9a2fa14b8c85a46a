from django.urls import path

from newsroom.infra import health

# HealthCheckMiddleware answers these paths first; the routes give them names for reverse().
urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
]
