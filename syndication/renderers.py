"""How the API writes JSON, and its stored story documents.

A story's desk/1 document (``stories/<id>/`` and each item of ``stories/``) and its ninjs
are kept as JSON bytes in the story representation cache (``stories.cache``), shared with
the story pages: keyed by the story's id, version and update time, and used only while the
generations it shows are current. ``ApiJSONRenderer`` writes those bytes as they are, so a
stored body costs no encoding.
"""

from __future__ import annotations

import json

from rest_framework.compat import LONG_SEPARATORS, SHORT_SEPARATORS
from rest_framework.renderers import JSONRenderer

from stories.cache import Rendered, representations

# Bump when the desk/1 export, ninjs or their JSON encoding change: no entry outlives a deploy.
API_CODE_VERSION = "api-3"
DESK, NINJS = "desk", "ninjs"

_renderer = JSONRenderer()
# The encoder ``JSONRenderer.render`` makes for each call (``json.dumps`` with its class and
# options, unindented), made once.
_encoder = _renderer.encoder_class(
    ensure_ascii=_renderer.ensure_ascii,
    allow_nan=not _renderer.strict,
    separators=SHORT_SEPARATORS if _renderer.compact else LONG_SEPARATORS,
)


def encode(data) -> bytes:
    """``data`` as the API's JSON renderer writes it (compact, UTF-8, U+2028/9 escaped)."""
    if data is None:
        return b""
    return _encoder.encode(data).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").encode()


class Encoded:
    """A response body already encoded by ``encode``; ``ApiJSONRenderer`` writes it as is."""

    def __init__(self, body: bytes):
        self.body = body


class ApiJSONRenderer(JSONRenderer):
    """DRF's JSON renderer, passing an ``Encoded`` body through. A client asking for indented
    JSON (``Accept: application/json; indent=2``) gets it re-rendered from the same data."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, Encoded):
            if self.get_indent(accepted_media_type, renderer_context or {}) is None:
                return data.body
            data = json.loads(data.body)
        return super().render(data, accepted_media_type, renderer_context)


def writer_of(story) -> str | None:
    """ "agent" when a writer agent wrote the story (named in it, or submitted with a
    partner's writer key), "person" when someone wrote it in the admin, else None."""
    if story.writer_agent or story.created_by_partner:
        return "agent"
    return "person" if story.created_by_id else None


def policy_links(profile) -> list[tuple[str, str, str]]:
    """(schema.org property, title, URL) of each policy page the site states."""
    from django.conf import settings
    from django.urls import reverse

    from newsroom import policies

    return [
        (p.schema_property, p.title, settings.SITE_URL + reverse("policy", args=[p.slug]))
        for p in policies.stated(profile)
    ]


def _render(fmt: str):
    def render(story, profile) -> bytes:
        from stories import desk

        from . import storydocs
        from .ninjs import to_ninjs

        doc = storydocs.export(story, profile)
        if fmt == NINJS:
            row = storydocs.story_row(story)
            return encode(
                to_ninjs(
                    doc,
                    version=row.version,
                    revised_at=desk.format_time(row.revised_at),
                    writer=writer_of(row),
                    policies=policy_links(profile),
                )
            )
        return encode(doc)

    return render


def stored_documents(rows, fmt: str = DESK) -> dict[str, Rendered]:
    """The ``fmt`` document of each published story in ``rows`` (objects with ``id``,
    ``version`` and ``updated_at``), by id: see ``stories.cache.representations``. The
    stories not stored are read from their versions' revisions (``storydocs.load``)."""
    from . import storydocs

    return representations(rows, f"{API_CODE_VERSION}:{fmt}", _render(fmt), load=storydocs.load)
