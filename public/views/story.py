"""The public story pages and every rendering of a story.

A plain warm read is answered from the worker's copy of the signed answer after one read of
the ``lists`` generation (``public.views.copies``; none at all within ``PAGE_LOCAL_TTL``).
Otherwise a warm request costs one cache round trip and no query (the URL's entry, see "The
fast path" below, which every worker shares); else two queries when the rendering
is cached (the story's row and the site profile) and a fixed seven more when it
is not (the stored revision of its live version and what changes without a new version:
``public.storypage``), whatever the story's size.
Drafts and scheduled stories are not found: every lookup starts from ``published()``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re

from django.core.cache import cache
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.http import urlencode
from django.views.decorators.http import condition, require_safe

from newsroom.infra.keyset import Keyset, Page
from newsroom.infra.pagecache import (
    CODE_VERSION,
    PAGE_TTL,
    generation,
    generation_key,
    generation_time,
    list_page,
    make_etag,
    mount_point,
    public,
    settled,
)
from newsroom.infra.prepared import Prepared
from newsroom.models import SiteProfile
from public import presenters, renderings, storypage
from stories import desk
from stories.cache import representations, story_generations
from stories.models import Correction, Story

CANONICAL_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")

FORMATS = {
    "html": "text/html; charset=utf-8",
    "json": "application/json; charset=utf-8",
    "md": "text/markdown; charset=utf-8",
    "txt": "text/plain; charset=utf-8",
    "checks": "application/json; charset=utf-8",
}


# Compiled once (``newsroom.infra.prepared``): the lookup's queries cost more to build than to run.
_STORY_AT = Prepared(
    lambda date, slug: (
        Story.objects.published()
        .filter(edition_date=date, slug=slug)
        .select_related("newsroom", "beat", "created_by")[:1]
    ),
    dt.date(1901, 2, 3),
    "\x1fslug",
)
_PROFILE = Prepared(lambda: SiteProfile.objects.filter(singleton=True)[:1])


class _Lookup:
    """The story row and site profile a request needs, fetched once per request (the
    ``condition`` decorator asks for the ETag and Last-Modified before the view runs), and
    the mount point its links are made under (``mount_point()``)."""

    def __init__(self, date: str, slug: str, mount: str):
        self.mount = mount
        # Only the canonical YYYY-MM-DD: fromisoformat() also takes 20261016 and 2026-W42-5,
        # which would serve one story under several URLs and cache keys.
        try:
            if not CANONICAL_DATE.fullmatch(date):
                raise ValueError(date)
            dt.date.fromisoformat(date)
        except ValueError:
            raise Http404("no such story") from None
        # The whole row, with its newsroom, beat and creator: an uncached rendering reuses it.
        rows = _STORY_AT.objects(dt.date.fromisoformat(date), slug)
        if not rows:
            raise Http404("no such story")
        self.story = rows[0]
        profiles = _PROFILE.objects()
        self.profile = profiles[0] if profiles else SiteProfile.load()
        self.source_keys = story_generations(self.story.id)
        generations = [generation(k) for k in self.source_keys]
        self.sources_generation = "/".join(generations)
        # Sources read before the replicas have caught up with their change: an ETag that no
        # later request (which reads them again) gives, so no stale copy is validated.
        self.sources_settled = settled(*generations)

    @classmethod
    def of(cls, request, date, slug) -> _Lookup:
        if not hasattr(request, "_story_lookup"):
            request._story_lookup = cls(date, slug, mount_point())
        return request._story_lookup

    def profile_state(self) -> str:
        p = self.profile
        text = json.dumps(
            [p.run_these_manifests, p.command_one, p.command_all, p.sponsor, p.disclosure, p.reuse], sort_keys=True
        )
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def etag(self, fmt: str) -> str:
        s = self.story
        unsettled = () if self.sources_settled else ("unsettled",)
        return make_etag(
            "story",
            fmt,
            self.mount,
            s.id,
            s.version,
            s.updated_at.isoformat(),
            self.profile_state(),
            self.sources_generation,
            *unsettled,
        )

    def last_modified(self) -> dt.datetime:
        return max(self.story.updated_at, *(generation_time(k) for k in self.source_keys))


def _etag_func(fmt):
    return lambda request, date, slug: _Lookup.of(request, date, slug).etag(fmt)


def _last_modified(request, date, slug):
    return _Lookup.of(request, date, slug).last_modified()


def _renderer(fmt: str, request):
    """``render(story, profile)`` for the story representation cache (``stories.cache``)."""

    def render(story, profile):
        extra = {}
        if isinstance(story, storypage.StoryPage):  # from its live version's revision
            page, story = story, story.story
            d, extra = page.export(profile), {"html": page.html, "claims": page.claims}
        else:
            d = desk.export_story(story, profile=profile)
        if fmt == "json":
            return renderings.to_json(d)
        if fmt == "md":
            return renderings.to_markdown(d, presenters.provenance_of(story, d))
        if fmt == "txt":
            return renderings.to_text(d)
        if fmt == "checks":
            return renderings.to_checks_json(d, presenters.provenance_of(story, d))
        return render_to_string(
            "public/story_detail.html", presenters.story_context(story, d, profile, **extra), request=request
        )

    return render


# The fast path. A warm request for a story URL costs one cache round trip and no query:
# one ``get_many`` of the URL's entry (ETag, Last-Modified, canonical link, body) and of the
# ``lists`` generation. The entry holds the generation it was made under and is used only
# while that is still current. ``lists`` moves on every change that can alter a story page
# (story actions and saves, its manifests and claims, the site profile: ``stories.cache``),
# so an entry never outlives what it shows; after a move, the next request takes the full
# path (story row, profile, generations: the ETag as before) and makes a new entry. In front
# of this, each worker answers plain reads from its own copies (``public.views.copies``).


def _url_key(fmt: str, date: str, slug: str, mount: str) -> str:
    """The URL's entry: its path within the site (the format, date and slug name it) and
    the mount point (``mount_point()``) its links are made under; at the root, no more."""
    # With the code version: an entry made by the previous deploy's templates is never served.
    key = f"page:story-url:{CODE_VERSION}:{fmt}:{date}:{slug}"
    return f"{key}:{mount}" if mount else key


def _kind(fmt: str, mount: str) -> str:
    """The story representation cache's name for the format's rendering under ``mount``."""
    return f"{fmt}:{mount}" if mount else fmt


def _fast_entry(request, fmt: str, date: str, slug: str, mount: str) -> dict | None:
    """The URL's cache entry when still current; else None, and the generation read (made
    when missing) is kept on the request, so an entry stored later is as old as this read."""
    key, gen_key = _url_key(fmt, date, slug, mount), generation_key("lists")
    got = cache.get_many([key, gen_key])
    current, entry = got.get(gen_key), got.get(key)
    if entry is not None and current is not None and entry["generation"] == current:
        request._story_entry = entry
        return entry
    request._story_generation = current if current is not None else generation("lists")
    return None


@condition(
    etag_func=lambda request, *args: request._story_entry["etag"],
    last_modified_func=lambda request, *args: request._story_entry["last_modified"],
)
def _from_entry(request, date, slug, fmt):
    return HttpResponse(request._story_entry["body"], content_type=FORMATS[fmt])


def _story_view(fmt: str):
    @condition(etag_func=_etag_func(fmt), last_modified_func=_last_modified)
    def conditional(request, date, slug):
        lookup = _Lookup.of(request, date, slug)
        stored = representations(
            [lookup.story],
            _kind(fmt, lookup.mount),
            _renderer(fmt, request),
            profile=lookup.profile,
            load=lambda ids, one: storypage.load(ids, one, row=lookup.story),
        )
        if lookup.story.id not in stored:  # unpublished since the lookup, a moment ago
            raise Http404("no such story")
        return HttpResponse(stored[lookup.story.id].body, content_type=FORMATS[fmt])

    @require_safe
    @public
    def view(request, date, slug):
        try:
            dt.date.fromisoformat(date)  # before the date goes into a cache key
        except ValueError:
            raise Http404("no such story") from None
        mount = mount_point()
        entry = _fast_entry(request, fmt, date, slug, mount)
        if entry is not None:
            response = _from_entry(request, date, slug, fmt)
            response["Link"] = entry["link"]
            return response
        response = conditional(request, date, slug)
        lookup = _Lookup.of(request, date, slug)
        # On 304s too: a cache revalidating any rendering learns the canonical page.
        response["Link"] = f'<{lookup.story.url}>; rel="canonical"'
        if response.status_code == 200 and request.method == "GET" and settled(request._story_generation):
            entry = {
                "generation": request._story_generation,
                "etag": lookup.etag(fmt),
                "last_modified": lookup.last_modified(),
                "link": response["Link"],
                "body": response.content,
            }
            cache.set(_url_key(fmt, date, slug, mount), entry, PAGE_TTL)
        return response

    view.__name__ = f"story_{fmt}"
    return view


story_detail = _story_view("html")
story_json = _story_view("json")
story_markdown = _story_view("md")
story_text = _story_view("txt")
story_checks = _story_view("checks")


# --------------------------------------------------------------------------- lists

PAGE_SIZE = 20
CORRECTIONS_PAGE_SIZE = 50
SEARCH_PAGES = 50  # a search result list ends here: ranked pages go by OFFSET


def search_page(request, queryset, query: str) -> Page:
    """The requested page of ranked results, without a total: one more row than a page
    says whether another follows. Past the first, an empty page is not found."""
    try:
        number = int(request.GET.get("page") or 1)
    except ValueError:
        raise Http404("no such page") from None
    if not 1 <= number <= SEARCH_PAGES:
        raise Http404("no such page")
    per_page = PAGE_SIZE
    start = (number - 1) * per_page
    rows = list(queryset[start : start + per_page + 1])
    if number > 1 and not rows:
        raise Http404("no such page")

    def url(n):
        return f"{request.path}?{urlencode({'q': query, **({'page': n} if n > 1 else {})})}"

    older = url(number + 1) if len(rows) > per_page and number < SEARCH_PAGES else None
    return Page(rows[:per_page], url(number - 1) if number > 1 else None, older, number)


@require_safe
@public
@list_page(params=("before", "page"))
def corrections(request):
    """Every correction on a published story, newest first, ``?before=`` pages (``newsroom.infra.keyset``)."""
    rows = Correction.objects.filter(Story.published_q("story")).select_related("story")
    pages = Keyset(request, rows, "corrected_at", per_page=CORRECTIONS_PAGE_SIZE)
    moved = pages.legacy_redirect()
    if moved is not None:
        return moved
    return render(request, "public/corrections.html", {"page": pages.page()})


@require_safe
@public
@list_page(params=("q", "page"))
def search(request):
    """``/search/?q=``: ranked full-text search on PostgreSQL, a plain match elsewhere."""
    query = " ".join(request.GET.get("q", "").split())[:200]
    results = None
    if query:
        results = search_page(
            request, Story.objects.published().select_related("newsroom", "beat").search(query), query
        )
    return render(request, "public/search.html", {"query": query, "page": results})
