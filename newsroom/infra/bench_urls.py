from django.urls import path

from newsroom.infra import bench

urlpatterns = [path("floor", bench.floor, name="bench-floor")]
