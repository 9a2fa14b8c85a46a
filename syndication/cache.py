"""Cached API representations of published stories: the JSON bytes of a story's desk/1
document (``stories/<id>/`` and each item of ``stories/``) and of its ninjs.

An entry's key holds what identifies the story's own content: id, ``version`` (bumped by
every action, edit and import that changes it) and ``updated_at`` (set by every save).
What a story *shows* but does not own moves a generation (``newsroom.infra.pagecache``), and an
entry records the generations it was rendered under and is used only while they are all
still current:

- ``sources`` (site profile: reuse, disclosure, sponsor, "run these manifests"; and the
  labels: newsroom titles and slugs, beats, publisher names);
- ``sources:<story id>`` (the manifests and claims the story cites: titles, publishers,
  self-reported flags).

``stories.cache`` moves both, for the story pages and this cache alike.

So one ``get_many`` (the entries and the generations together) tells which stories can be
served as stored; the rest are loaded in one batch with ``with_everything()``, rendered and
stored with one ``set_many``. A cache that keeps nothing (``dummycache://``) renders every
time, as before.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

from django.core.cache import cache
from rest_framework.renderers import JSONRenderer

from newsroom.infra.pagecache import CODE_VERSION, PAGE_TTL, generation, generation_key
from stories.cache import story_sources_key

# Bump when the desk/1 export, ninjs or their JSON encoding change: no entry outlives a deploy.
API_CODE_VERSION = "api-1"
DESK, NINJS = "desk", "ninjs"

_renderer = JSONRenderer()


def encode(data) -> bytes:
    """``data`` as the API's JSON renderer writes it (compact, UTF-8, U+2028/9 escaped)."""
    return _renderer.render(data, None, {})


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


@dataclass(frozen=True)
class Rendered:
    """A story's representation and the row state it was made from."""

    id: str
    version: int
    updated_at: dt.datetime
    body: bytes


def _key(fmt: str, story_id: str, version: int, updated_at: dt.datetime) -> str:
    return f"api:{CODE_VERSION}:{API_CODE_VERSION}:{fmt}:{story_id}:{version}:{updated_at.timestamp():.6f}"


def _generation_names(story_id: str) -> tuple[str, ...]:
    return ("sources", story_sources_key(story_id))


def _render(story, fmt: str, profile) -> bytes:
    from stories import desk

    from .ninjs import to_ninjs

    doc = desk.export_story(story, profile=profile)
    return encode(to_ninjs(doc, version=story.version) if fmt == NINJS else doc)


def representations(rows, fmt: str = DESK) -> dict[str, Rendered]:
    """The representation of each published story in ``rows`` (objects with ``id``,
    ``version`` and ``updated_at``), by id. One cache round trip when all are stored; the
    misses cost one ``with_everything()`` batch (a fixed number of queries, whatever their
    count) and one ``set_many``. A story unpublished since ``rows`` were read is left out."""
    from newsroom.models import SiteProfile
    from stories.models import Story

    rows = list(rows)
    if not rows:
        return {}
    keys = {row.id: _key(fmt, row.id, row.version, row.updated_at) for row in rows}
    names = list(dict.fromkeys(name for row in rows for name in _generation_names(row.id)))
    got = cache.get_many([*keys.values(), *(generation_key(name) for name in names)])
    current = {}
    for name in names:
        value = got.get(generation_key(name))
        current[name] = value if value is not None else generation(name)  # made when missing

    out: dict[str, Rendered] = {}
    missing = []
    for row in rows:
        entry = got.get(keys[row.id])
        if entry is not None and entry[0] == tuple(current[n] for n in _generation_names(row.id)):
            out[row.id] = Rendered(row.id, row.version, row.updated_at, entry[1])
        else:
            missing.append(row.id)
    if missing:
        profile = SiteProfile.load()
        new = {}
        for story in Story.objects.published().with_everything().filter(pk__in=missing):
            rendered = Rendered(story.id, story.version, story.updated_at, _render(story, fmt, profile))
            out[story.id] = rendered
            # Under the generations read *before* loading: a change made meanwhile has moved
            # them on, so this entry is never used, rather than used while stale.
            gens = tuple(current[n] for n in _generation_names(story.id))
            new[_key(fmt, story.id, story.version, story.updated_at)] = (gens, rendered.body)
        cache.set_many(new, PAGE_TTL)
    return out
