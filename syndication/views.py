"""The partner API (``/api/v1/``): thin views over the named querysets and the format
modules. Reads serve published content only; writes call the same functions as the admin
and the commands (``stories.desk``, ``stories.actions``, ``manifests.formats``)."""

from django.conf import settings
from django.db import transaction
from django.db.models import Prefetch
from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.response import Response
from rest_framework.views import APIView

from manifests.formats import import_manifests_document
from manifests.models import Claim, Manifest
from newsroom.infra.jsondoc import FormatError
from newsroom.models import Beat, Edition, Newsroom
from stories import desk
from stories.models import Correction, Story

from . import renderers
from . import serializers as s
from .auth import ApiKeyAuthentication, IsPartnerOrStaff, IsWriter, PartnerRateThrottle
from .conditional import ConditionalGetMixin
from .errors import Conflict, InvalidDocument
from .filters import filter_stories, parse_slug, present
from .openapi import DESK_STORY, MANIFESTS_DOCUMENT, RequiredBodySchema
from .pagination import KeysetPagination
from .parsers import JsonBodyParser


def errors(*codes: int) -> dict:
    described = {
        400: "A bad parameter or an invalid document (names the parameter or the JSON path).",
        401: "No key, or a bad or revoked key.",
        403: "The key's scope does not allow this.",
        404: "Not found, or not published.",
        409: "The story exists and is not a draft.",
        429: "Too many requests for this key; see Retry-After.",
    }
    return {code: OpenApiResponse(s.ErrorSerializer, description=described[code]) for code in codes}


def _url(path: str) -> str:
    return settings.SITE_URL + path


class ApiView(APIView):
    """Partner key first (so a missing key is a 401 with ``WWW-Authenticate: Bearer``), then a
    staff session; throttled per key."""

    authentication_classes = [ApiKeyAuthentication, SessionAuthentication]
    permission_classes = [IsPartnerOrStaff]
    throttle_classes = [PartnerRateThrottle]


class ReadView(ConditionalGetMixin, ApiView, generics.GenericAPIView):
    renderer_classes = [renderers.ApiJSONRenderer]  # DRF's JSON renderer, also for stored bodies


SLUG_PATTERN = "^[a-z0-9]+(-[a-z0-9]+)*$"
STORY_FILTERS = [
    OpenApiParameter(
        "newsroom", str, pattern=SLUG_PATTERN, description="A newsroom slug (400 when there is no such newsroom)."
    ),
    OpenApiParameter(
        "beat", str, pattern=SLUG_PATTERN, description="A beat slug (within `newsroom` when given; 400 when none)."
    ),
    OpenApiParameter(
        "edition",
        str,
        pattern=r"^\d{4}-\d{2}-\d{2}(T\d{2})?$",
        description="An edition id (YYYY-MM-DDTHH) or a date (YYYY-MM-DD).",
    ),
    OpenApiParameter(
        "published_after", OpenApiTypes.DATETIME, description="ISO 8601 time with a zone: first published after it."
    ),
    OpenApiParameter(
        "updated_since",
        OpenApiTypes.DATETIME,
        description="ISO 8601 time with a zone: changed at or after it (publication, corrections, edits).",
    ),
]


class StoryList(ReadView):
    """Published stories, oldest change first (``updated_at``, then ``id``): poll with
    ``updated_since`` and follow ``next`` to the end, then keep ``next_cursor``."""

    pagination_class = KeysetPagination
    keyset = ("updated_at", "id")

    @extend_schema(
        parameters=STORY_FILTERS, responses={200: s.StoryListItemSerializer(many=True), **errors(400, 401, 429)}
    )
    def get(self, request):
        # A narrow page (the keyset and the cache key need no more), then each story's
        # cached document: one query and one cache round trip when all are stored.
        rows = Story.objects.published().only("id", "version", "updated_at")
        page = self.paginate_queryset(filter_stories(rows, request.query_params))
        stored = renderers.stored_documents(page, renderers.DESK)
        items = []
        for row in page:
            if (r := stored.get(row.id)) is None:
                continue  # unpublished in the last instant
            head = renderers.encode({"id": r.id, "version": r.version, "updated_at": desk.format_time(r.updated_at)})
            items.append(head[:-1] + b',"story":' + r.body + b"}")
        self.last_modified = max((stored[row.id].updated_at for row in page if row.id in stored), default=None)
        envelope = renderers.encode(
            {"next": self.paginator.get_next_link(), "next_cursor": self.paginator.next_cursor, "results": []}
        )
        assert envelope.endswith(b"[]}")
        return Response(renderers.Encoded(envelope[:-2] + b",".join(items) + b"]}"))


class PublishedStoryMixin:
    def get_representation(self, story_id: str, fmt: str) -> "renderers.Rendered":
        row = Story.objects.published().only("id", "version", "updated_at").filter(pk=story_id).first()
        rendered = renderers.stored_documents([row], fmt).get(story_id) if row is not None else None
        if rendered is None:
            raise Http404("no such story")
        self.last_modified = rendered.updated_at
        return rendered


class StoryDetail(PublishedStoryMixin, ReadView):
    """One published story as hangingcontext.desk/1 JSON."""

    @extend_schema(responses={200: s.StoryDocumentSerializer, **errors(401, 404, 429)})
    def get(self, request, story_id):
        return Response(renderers.Encoded(self.get_representation(story_id, renderers.DESK).body))


class StoryNinjs(PublishedStoryMixin, ReadView):
    """One published story as IPTC ninjs 3.0."""

    @extend_schema(responses={200: s.NinjsSerializer, **errors(401, 404, 429)})
    def get(self, request, story_id):
        return Response(renderers.Encoded(self.get_representation(story_id, renderers.NINJS).body))


class NewsroomList(ReadView):
    """Every newsroom with its beats and its count of published stories."""

    @extend_schema(responses={200: s.NewsroomSerializer(many=True), **errors(401, 429)})
    def get(self, request):
        newsrooms = Newsroom.objects.with_published_counts().prefetch_related(
            Prefetch("beats", queryset=Beat.objects.order_by("slug"))
        )
        data = [
            {
                "slug": n.slug,
                "title": n.title,
                "url": _url(n.get_absolute_url()),
                "published_stories": n.published_stories,
                "updated_at": n.updated_at,
                "beats": [{"slug": b.slug, "title": b.title or b.slug} for b in n.beats.all()],
            }
            for n in newsrooms
        ]
        self.last_modified = max((n["updated_at"] for n in data if n["updated_at"]), default=None)
        return Response(s.NewsroomSerializer(data, many=True).data)


class EditionList(ReadView):
    """Editions that have published stories, newest first."""

    pagination_class = KeysetPagination
    keyset = ("starts_at", "id")
    keyset_descending = True

    @extend_schema(responses={200: s.EditionSerializer(many=True), **errors(400, 401, 429)})
    def get(self, request):
        editions = Edition.objects.with_published_counts().filter(published_stories__gt=0)
        page = self.paginate_queryset(editions)
        data = [
            {
                "id": e.id,
                "starts_at": e.starts_at,
                "url": _url(e.get_absolute_url()),
                "published_stories": e.published_stories,
                "updated_at": e.updated_at,
            }
            for e in page
        ]
        self.last_modified = max((e.updated_at for e in page if e.updated_at), default=None)
        return self.get_paginated_response(s.EditionSerializer(data, many=True).data)


class ManifestDetail(ReadView):
    """A source manifest and its claims (manifests/1 fields)."""

    @extend_schema(responses={200: s.ManifestSerializer, **errors(401, 404, 429)})
    def get(self, request, manifest_id):
        manifest = get_object_or_404(
            Manifest.objects.select_related("publisher").prefetch_related(
                Prefetch("claims", queryset=Claim.objects.order_by("position", "id"))
            ),
            pk=manifest_id,
        )
        claims = list(manifest.claims.all())
        self.last_modified = manifest.updated_at
        data = {
            "manifest_id": manifest.id,
            "title": manifest.title,
            "source_name": manifest.publisher.name,
            "source_url": manifest.source_url,
            "published_date": manifest.published_date,
            "updated_at": manifest.updated_at,
            "claims": [
                {"claim_id": c.id, "text": c.text, "self_reported": bool(c.self_reported)} for c in claims if c.has_text
            ],
            "pending_claim_ids": [c.id for c in claims if not c.has_text],
        }
        return Response(s.ManifestSerializer(data).data)


class CorrectionList(ReadView):
    """Corrections, clarifications and updates to published stories, newest first."""

    pagination_class = KeysetPagination
    keyset = ("corrected_at", "id")
    keyset_descending = True

    @extend_schema(
        parameters=[OpenApiParameter("newsroom", str, pattern=SLUG_PATTERN, description="A newsroom slug.")],
        responses={200: s.CorrectionSerializer(many=True), **errors(400, 401, 429)},
    )
    def get(self, request):
        corrections = Correction.objects.filter(Story.published_q("story")).select_related("story")
        if value := present(request.query_params, "newsroom"):
            corrections = corrections.filter(story__newsroom__slug=parse_slug("newsroom", value))
        page = self.paginate_queryset(corrections)
        data = [
            {
                "id": c.id,
                "story_id": c.story_id,
                "story_url": c.story.url,
                "headline": c.story.headline,
                "corrected_at": c.corrected_at,
                "kind": c.kind,
                "text": c.text,
            }
            for c in page
        ]
        self.last_modified = max((c.corrected_at for c in page), default=None)
        return self.get_paginated_response(s.CorrectionSerializer(data, many=True).data)


# --------------------------------------------------------------------------- writes


def _validated_story(data) -> dict:
    try:
        return desk.validate(data)
    except FormatError as exc:
        raise InvalidDocument.of(exc) from None


def _run_checks(doc: dict, **kwargs) -> dict:
    # Imported here: the checks live in stories.checks, and only these endpoints need them.
    from stories.checks import run_checks

    return run_checks(doc, **kwargs)


class WriteView(ApiView):
    parser_classes = [JsonBodyParser]
    schema = RequiredBodySchema()


class CheckView(WriteView):
    """Run the publish checks on a desk/1 story and return the rubric. Nothing is saved.
    Any key (read or writer) or a staff session."""

    any_key_may_post = True

    @extend_schema(
        request={"application/json": DESK_STORY}, responses={200: s.RubricSerializer, **errors(400, 401, 403, 429)}
    )
    def post(self, request):
        doc = _validated_story(request.data)
        return Response(_run_checks(doc, exclude_story_id=doc["id"] or None))


class SubmissionView(WriteView):
    """A writer agent submits a desk/1 story: it is stored as a draft (any ``published_at`` is
    ignored), checked, and published at once only when its newsroom publishes automatically
    and every check passed. Writer keys only."""

    permission_classes = [IsWriter]

    @extend_schema(
        request={"application/json": DESK_STORY},
        responses={201: s.SubmissionSerializer, **errors(400, 401, 403, 409, 429)},
    )
    def post(self, request):
        from stories.actions import ActionError, import_story, publish_story

        doc = _validated_story(request.data)
        doc["published_at"] = None  # a submission is a draft until the checks (or an editor) say otherwise
        with transaction.atomic():
            if doc["id"]:
                existing = Story.objects.select_for_update().filter(pk=doc["id"]).first()
                if existing is not None and existing.status != Story.Status.DRAFT:
                    raise Conflict(f"story {doc['id']} is {existing.status}: submissions may only replace drafts")
            try:  # import_story resolves the references first: an unknown manifest is a 400, nothing stored
                story = import_story(doc, action="submission").story
            except FormatError as exc:
                raise InvalidDocument.of(exc) from None
            from stories.checks import check_and_record  # imported when used, see _run_checks

            result = check_and_record(story)
            if result.passed and story.newsroom.auto_publish:
                try:
                    story = publish_story(story=story)
                except ActionError:
                    pass  # publish re-runs the checks; should they now fail, the draft waits for an editor
        body = {"id": story.id, "status": story.status, "version": story.version, "rubric": result.rubric}
        return Response(body, status=status.HTTP_201_CREATED)


class ManifestImportView(WriteView):
    """Upsert the manifests (and their claims) of a hangingcontext.manifests/1 document.
    Writer keys only; all or nothing."""

    permission_classes = [IsWriter]

    @extend_schema(
        request={"application/json": MANIFESTS_DOCUMENT},
        responses={200: s.ManifestImportSerializer, **errors(400, 401, 403, 429)},
    )
    def post(self, request):
        try:
            counts = import_manifests_document(request.data)
        except FormatError as exc:
            raise InvalidDocument.of(exc) from None
        return Response(counts)


def not_found(request, rest=""):
    """Every other URL under /api/: a JSON 404 in the API's error shape (not the site's HTML
    page), or a 308 to the same URL with the trailing slash when that one exists."""
    from django.http import HttpResponsePermanentRedirect, JsonResponse
    from django.urls import Resolver404, resolve

    if not request.path.endswith("/"):
        try:
            match = resolve(request.path + "/")
        except Resolver404:
            match = None
        if match is not None and match.func is not not_found:
            query = request.META.get("QUERY_STRING", "")
            response = HttpResponsePermanentRedirect(request.path + "/" + (f"?{query}" if query else ""))
            response.status_code = 308  # keeps the method and body, unlike 301
            return response
    response = JsonResponse(
        {"error": {"code": "not_found", "message": f"no API endpoint at {request.path}"}}, status=404
    )
    response["Vary"] = "Authorization"
    return response
