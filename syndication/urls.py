"""Mounted at ``/api/`` by ``newsroom/urls.py``."""

from django.urls import path, re_path
from drf_spectacular.views import SpectacularSwaggerSplitView
from rest_framework.permissions import AllowAny

from newsroom.infra.signing import signed

from . import views
from .schema import SchemaView

ID = r"(?P<{}>[0-9A-Za-z_-]{{1,64}})"

urlpatterns = [
    # The schema and its docs page are public: a partner reads them before holding a key.
    # The split view serves Swagger UI's script as a file, so no inline script needs a CSP hole.
    path(
        "schema/",
        SchemaView.as_view(authentication_classes=[], permission_classes=[AllowAny]),
        name="api-schema",
    ),
    path(
        "docs/",
        SpectacularSwaggerSplitView.as_view(
            url_name="api-schema", authentication_classes=[], permission_classes=[AllowAny]
        ),
        name="api-docs",
    ),
    path("v1/stories/", views.StoryList.as_view(), name="api-stories"),
    re_path(rf"^v1/stories/{ID.format('story_id')}/$", signed(views.StoryDetail.as_view()), name="api-story"),
    re_path(rf"^v1/stories/{ID.format('story_id')}/ninjs$", signed(views.StoryNinjs.as_view()), name="api-story-ninjs"),
    path("v1/newsrooms/", views.NewsroomList.as_view(), name="api-newsrooms"),
    path("v1/editions/", views.EditionList.as_view(), name="api-editions"),
    path("v1/manifests/", views.ManifestImportView.as_view(), name="api-manifests"),
    re_path(rf"^v1/manifests/{ID.format('manifest_id')}/$", views.ManifestDetail.as_view(), name="api-manifest"),
    path("v1/corrections/", views.CorrectionList.as_view(), name="api-corrections"),
    path("v1/submissions/", views.SubmissionView.as_view(), name="api-submissions"),
    path("v1/checks/", views.CheckView.as_view(), name="api-checks"),
    re_path(r"^(?P<rest>[\s\S]*)$", views.not_found),  # last: JSON 404s under /api/
]
