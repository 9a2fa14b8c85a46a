from django.urls import path

from . import bench

urlpatterns = [path("floor", bench.floor, name="bench-floor")]
