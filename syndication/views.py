"""The partner API (``/api/v1/``): thin views over the named querysets and the format
modules. Reads serve published content only; writes call the same functions as the admin
and the commands (``stories.desk``, ``stories.actions``, ``manifests.formats``)."""

from django.conf import settings
from django.db import IntegrityError
from django.db.models import Prefetch
from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.response import Response
from rest_framework.views import APIView

from manifests.formats import SourcesRefused, import_manifests_document
from manifests.models import Claim, Manifest
from newsroom.infra.jsondoc import FormatError
from newsroom.models import Beat, Edition, Newsroom
from stories import desk
from stories.actions.submissions import SubmissionRefused, submit_draft
from stories.models import Cite, Correction, Story

from . import renderers
from . import serializers as s
from .auth import ApiKeyAuthentication, IsPartnerOrStaff, IsWriter, PartnerRateThrottle, api_key
from .conditional import ConditionalGetMixin
from .errors import InvalidDocument
from .fastpath import FastReadMixin
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


class StoryList(FastReadMixin, ReadView):
    """Published stories, oldest change first (``updated_at``, then ``id``): poll with
    ``updated_since`` and follow ``next`` to the end, then keep ``next_cursor``."""

    pagination_class = KeysetPagination
    keyset = ("updated_at", "id")
    fast_params = frozenset(["newsroom", "beat", "edition", "published_after", "updated_since", "page_size", "cursor"])

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


class StoryDetail(FastReadMixin, PublishedStoryMixin, ReadView):
    """One published story as hangingcontext.desk/1 JSON."""

    @extend_schema(responses={200: s.StoryDocumentSerializer, **errors(401, 404, 429)})
    def get(self, request, story_id):
        return Response(renderers.Encoded(self.get_representation(story_id, renderers.DESK).body))


class StoryNinjs(FastReadMixin, PublishedStoryMixin, ReadView):
    """One published story as IPTC ninjs 3.1."""

    @extend_schema(responses={200: s.NinjsSerializer, **errors(401, 404, 429)})
    def get(self, request, story_id):
        return Response(renderers.Encoded(self.get_representation(story_id, renderers.NINJS).body))


class NewsroomList(ReadView):
    """Every newsroom with a published story, with its beats that have one, and its count of
    published stories. A newsroom or beat only a draft uses stays private."""

    @extend_schema(responses={200: s.NewsroomSerializer(many=True), **errors(401, 429)})
    def get(self, request):
        newsrooms = (
            Newsroom.objects.having_published()
            .with_published_counts()
            .prefetch_related(Prefetch("beats", queryset=Beat.objects.having_published().order_by("slug")))
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
        if not Cite.objects.citing(manifest=manifest).of_published_stories().exists():
            # A source is public once a published story cites it: a draft's sources stay private.
            raise Http404("no published story cites this manifest")
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
    Any key (read or writer) or a staff session. A read key's checks read only the sources
    published stories cite (the ones it can read): any other is reported as unknown, so the
    rubric tells nothing of a draft's sources."""

    any_key_may_post = True

    @extend_schema(
        request={"application/json": DESK_STORY}, responses={200: s.RubricSerializer, **errors(400, 401, 403, 429)}
    )
    def post(self, request):
        doc = _validated_story(request.data)
        key = api_key(request)
        public_sources = key is not None and not key.can_write
        return Response(_run_checks(doc, exclude_story_id=doc["id"] or None, public_sources=public_sources))


class SubmissionView(WriteView):
    """A writer agent submits a desk/1 story: it is stored as the partner's draft (any
    ``published_at`` is ignored), checked, and published at once only when its newsroom
    publishes automatically and every check passed. Only the partner's own drafts can be
    replaced (409 otherwise, naming the story when it is published or the partner's own, or
    else only the taken ``id`` or ``slug``); corrections are refused. Writer keys only."""

    permission_classes = [IsWriter]

    @extend_schema(
        request={"application/json": DESK_STORY},
        responses={
            201: s.SubmissionSerializer,
            409: OpenApiResponse(
                s.ConflictSerializer,
                description="The document names a story that is not the partner's own draft; nothing was written. "
                "The story is named only when it is published or the partner's own; otherwise `path` names the "
                "field that is taken (`id` or `slug`).",
            ),
            **errors(400, 401, 403, 429),
        },
    )
    def post(self, request):
        doc = _validated_story(request.data)
        key = api_key(request)
        try:
            done = submit_draft(doc=doc, partner_slug=key.partner.slug, key_prefix=key.prefix)
        except FormatError as exc:
            raise InvalidDocument.of(exc) from None
        except SubmissionRefused as exc:
            error = {"code": "conflict", "message": str(exc), "path": exc.field}
            if exc.disclosed:  # published, or the partner's own: otherwise not the key's to see
                story = exc.story
                error["story"] = {"id": story.pk, "edition": story.edition_id, "slug": story.slug, "url": story.url}
            return Response({"error": error}, status=status.HTTP_409_CONFLICT)
        story = done.story
        body = {
            "id": story.id,
            "status": story.status,
            "version": story.version,
            "rubric": done.check.rubric,
            "failed_criteria": done.failed_criteria,
        }
        return Response(body, status=status.HTTP_201_CREATED)


class ManifestImportView(WriteView):
    """Add the manifests (and their claims) of a hangingcontext.manifests/1 document.
    Writer keys only; new manifests only; all or nothing.

    A manifest id that is already stored is a 409 naming it (and the published stories
    that cite it): a writer key may add sources, never rewrite one, since a rewritten
    source would change what live stories show and what their checks verified."""

    permission_classes = [IsWriter]

    @extend_schema(
        request={"application/json": MANIFESTS_DOCUMENT},
        responses={
            201: s.ManifestImportSerializer,
            **errors(400, 401, 403, 429),
            409: OpenApiResponse(
                s.ErrorSerializer, description="A manifest id already stored (names the published stories citing it)."
            ),
        },
    )
    def post(self, request):
        from stories.actions.sources import published_citations

        try:
            counts = import_manifests_document(request.data, via="api", new_only=True)
        except SourcesRefused as exc:
            cited = exc.cited_by or published_citations(exc.manifest_ids)
            message = exc.message
            if cited:
                message += ". Cited by published stories: " + "; ".join(
                    f"{mid}: {', '.join(ids)}" for mid, ids in cited.items()
                )
            error = {"code": "conflict", "message": message, "manifest_ids": exc.manifest_ids, "cited_by": cited}
            return Response({"error": error}, status=status.HTTP_409_CONFLICT)
        except FormatError as exc:
            raise InvalidDocument.of(exc) from None
        except IntegrityError:
            # Another request stored one of these ids between our look-up and our write.
            message = "a manifest of this document was stored by another request meanwhile (nothing written)"
            return Response({"error": {"code": "conflict", "message": message}}, status=status.HTTP_409_CONFLICT)
        return Response(counts, status=status.HTTP_201_CREATED)


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
