from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("syndication.urls")),
    path("", include("stories.urls")),
    path("", include("manifests.urls")),
    path("", include("newsroom.site_urls")),
]
