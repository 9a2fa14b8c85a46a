from django.urls import path

from . import views

urlpatterns = [
    path("manifests/<str:manifest_id>/", views.manifest_detail, name="manifest-detail"),
]
