"""The story caches, for the readers' pages and the API alike (generations, ETags:
``newsroom.infra.pagecache``).

What moves which generation:

- story events move ``lists``;
- a change to a manifest or claim moves ``sources:<story id>`` of each story citing it
  (and ``lists``, for the manifest pages);
- a change to the site profile or a label moves ``sources`` (every story shows its texts)
  and ``lists``.

The stored representations of stories (``representations``): a story page's rendering and
the API's documents alike. An entry's key holds what identifies the story's own content: id,
``version`` (bumped by every action, edit and import that changes it) and ``updated_at``
(set by every save), so a correction shows at once with no purge. What a story *shows* but
does not own moves ``sources`` or ``sources:<story id>``; an entry records the values they
had when it was rendered and is used only while both are still current.

The CDN in front of the site (``newsroom.infra.cdn``, off unless ``CDN_PURGE_URL`` is set)
is told to drop a story's pages and the lists showing it once a publication, correction or
unpublication commits: it would otherwise serve them for their ``s-maxage``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Q
from django.db.models.signals import post_delete, post_save
from django.urls import reverse

from manifests.models import Claim, Manifest
from newsroom.infra import cdn
from newsroom.infra.pagecache import CODE_VERSION, PAGE_TTL, bump, generation_key, read_generations, settled
from newsroom.models import SiteProfile

from . import signals


def story_changed(sender, story=None, signal=None, was_public=False, **kwargs):
    """An action changed a story: the lists (and what follows them) are made again, unless
    it was an update of a story no reader sees, nor saw until then (a draft, pending changes
    or a submission): those are on no public page."""
    from .models import Story

    if (
        signal is signals.story_updated
        and not was_public
        and story is not None
        and story.status != Story.Status.PUBLISHED
    ):
        return
    memo = signals.batch_memo()
    if memo is not None:
        if "lists bumped" in memo:
            return  # the stories of one action's batch: once is enough
        memo["lists bumped"] = True
    bump("lists")


def story_saved(sender, instance=None, **kwargs):
    """A write of a published story's row, including imports that send no story signal:
    story pages served from their URL's cache entry (``public.views.story``) follow
    ``lists``. A draft's row is shown nowhere (a story leaves the public pages through the
    actions, whose signals move ``lists``): saving one, as every submission does, keeps
    every list and stored answer."""
    from .models import Story

    if instance is None or instance.status == Story.Status.PUBLISHED:
        bump("lists")


def shown_everywhere_changed(sender, created=False, **kwargs):
    """Something every story page and API representation may show without owning it: the
    site profile's texts, or a label (newsroom title and slug, beat, publisher name). A new
    label is shown by no stored story yet (newsrooms and beats are listed once they have a
    published story; a publisher only through its manifests): adding one keeps the caches."""
    if created and sender is not SiteProfile:
        return
    bump("sources")
    bump("lists")


def citing_story_ids(manifest_id: str) -> set[str]:
    """The stories (any status) with a cite of this manifest."""
    from .models import Cite

    return set(Cite.objects.citing(manifest=manifest_id).values_list("story_id", flat=True))


def citing_claim_story_ids(claim_id: str) -> set[str]:
    """The stories (any status) with a cite of this claim, under whichever manifest."""
    from .models import Cite

    return set(Cite.objects.citing(claim=claim_id).values_list("story_id", flat=True))


def source_changed(sender, instance, update_fields=None, created=False, **kwargs):
    """A manifest or claim changed: refresh the stories that cite it, and every list
    (manifest pages list claims). Only the stories citing it re-render. A new manifest, or a
    new claim of a manifest no story cites, is on no page yet (a source's page is public once
    a published story cites it): adding one, as a writer key may, keeps every cache."""
    if update_fields and set(update_fields) <= {"fetched_at"}:
        return  # bookkeeping no page shows
    if created and sender is Manifest:
        return
    manifest_id = instance.pk if sender is Manifest else instance.manifest_id
    citing = citing_story_ids(manifest_id)
    if (
        sender is not Manifest
        and not created
        and (update_fields is None or not {"manifest", "manifest_id"}.isdisjoint(update_fields))
    ):
        # A claim moved to another manifest is still cited, under the old one, by the
        # stories that cited it there: their pages show its text too. (A save naming its
        # fields without the manifest, as a manifest's import does, cannot move it.)
        citing |= citing_claim_story_ids(instance.pk)
    if created and not citing:
        return
    for story_id in citing:
        bump(story_sources_key(story_id))
    bump("lists")


def story_sources_key(story_id: str) -> str:
    return f"sources:{story_id}"


def story_generations(story_id: str) -> tuple[str, str]:
    """The generations every representation of the story shows: the site's texts and
    labels, and the story's own sources."""
    return ("sources", story_sources_key(story_id))


# --------------------------------------------------------------------------- representations


@dataclass(frozen=True)
class Rendered:
    """A story's representation and the row state it was made from."""

    id: str
    version: int
    updated_at: dt.datetime
    body: bytes


def _entry_key(kind: str, story_id: str, version: int, updated_at: dt.datetime) -> str:
    return f"story:{CODE_VERSION}:{kind}:{story_id}:{version}:{updated_at.timestamp():.6f}"


def _load(story_ids: list[str], one: bool):
    """The published stories ``story_ids`` with everything a rendering reads: one story in
    ``loaded()``'s eleven queries, several in ``with_everything()``'s fixed number."""
    from .models import Story

    if one:
        story = Story.objects.published().loaded(story_ids[0])
        return [story] if story is not None else []
    return Story.objects.published().with_everything().filter(pk__in=story_ids)


def representations(rows, kind: str, render, profile: SiteProfile | None = None, load=None) -> dict[str, Rendered]:
    """The ``kind`` representation of each published story in ``rows`` (objects with ``id``,
    ``version`` and ``updated_at``), by id; ``render(story, profile)`` makes one (bytes, or
    text written as UTF-8) from a story loaded with everything. ``kind`` names the
    representation and whatever else its bytes depend on (a format's own code version).

    One cache round trip (the entries and the generations together) when all are stored;
    the misses cost one load (a fixed number of queries, whatever their count), the site
    profile unless given, and one ``set_many``. A story unpublished since ``rows`` were read
    is left out. A cache that keeps nothing (``dummycache://``) renders every time.
    ``load(story_ids, one)`` loads the misses when given (``_load``'s signature), returning
    what ``render`` takes (objects with ``id``, ``version`` and ``updated_at``).
    """
    rows = list(rows)
    if not rows:
        return {}
    keys = {row.id: _entry_key(kind, row.id, row.version, row.updated_at) for row in rows}
    names = list(dict.fromkeys(name for row in rows for name in story_generations(row.id)))
    got = cache.get_many([*keys.values(), *(generation_key(name) for name in names)])
    current = read_generations(got, names)

    out: dict[str, Rendered] = {}
    missing = []
    for row in rows:
        entry = got.get(keys[row.id])
        if entry is not None and entry[0] == tuple(current[n] for n in story_generations(row.id)):
            out[row.id] = Rendered(row.id, row.version, row.updated_at, entry[1])
        else:
            missing.append(row.id)
    if missing:
        if profile is None:
            profile = SiteProfile.load()
        new = {}
        for story in (load or _load)(missing, one=len(rows) == 1):
            body = render(story, profile)
            if isinstance(body, str):
                body = body.encode("utf-8")
            out[story.id] = Rendered(story.id, story.version, story.updated_at, body)
            # Under the generations read *before* loading: a change made meanwhile has moved
            # them on, so this entry is never used, rather than used while stale.
            gens = tuple(current[n] for n in story_generations(story.id))
            if settled(*gens):  # read after the replicas have caught up with the change
                new[_entry_key(kind, story.id, story.version, story.updated_at)] = (gens, body)
        if new:
            cache.set_many(new, PAGE_TTL)
    return out


# --------------------------------------------------------------------------- CDN


def story_page_urls(story) -> list[str]:
    """The pages a CDN may hold that show the story: its renderings, the lists, feeds and
    sitemaps it appears in, and the page of each source it cites (which lists the published
    stories citing it)."""
    from .models import Cite

    cited = (
        Cite.objects.filter(Q(paragraph__section__story=story) | Q(key_fact__story=story))
        .order_by("manifest_id")
        .values_list("manifest_id", flat=True)
        .distinct()
    )
    story_args = [story.edition_id[:10], story.slug]
    newsroom = [story.newsroom.slug]
    return [
        *(
            reverse(name, args=story_args)
            for name in ("story-detail", "story-json", "story-markdown", "story-text", "story-checks")
        ),
        reverse("home"),
        reverse("newsroom-detail", args=newsroom),
        reverse("edition-detail", args=[story.edition_id]),
        reverse("corrections"),
        *(reverse(name) for name in ("feed-atom", "feed-rss", "feed-json")),
        *(reverse(name, args=newsroom) for name in ("newsroom-feed-atom", "newsroom-feed-rss", "newsroom-feed-json")),
        reverse("django.contrib.sitemaps.views.sitemap"),
        *([reverse("sitemap-month", args=[f"{story.published_at:%Y-%m}"])] if story.published_at else []),
        reverse("sitemap-news"),
        *(reverse("manifest-detail", args=[manifest_id]) for manifest_id in cited),
    ]


def naming_story_ids(story_id: str) -> list[str]:
    """The published stories whose recorded checks name ``story_id`` (``not_a_repeat``'s
    near-duplicate finding, kept in a failed rubric): their public record names it only while
    it is published (``public.presenters.public_rubric``)."""
    from .models import CheckResult, Story

    return list(
        CheckResult.objects.filter(
            passed=False, story__status=Story.Status.PUBLISHED, rubric__contains=f'"story_id": "{story_id}"'
        )
        .exclude(story_id=story_id)
        .order_by()
        .values_list("story_id", flat=True)
        .distinct()
    )


def story_pulled(sender, story, **kwargs):
    """Once an unpublish commits, the renderings of the stories whose record names the pulled
    story are made again (their sources' generation moves; a CDN purges them), so that none
    keeps its id or headline from the cache. Unpublishing is rare, and the look-up reads
    only failed rubrics of published stories."""

    def refresh():
        naming = naming_story_ids(story.pk)
        for story_id in naming:
            bump(story_sources_key(story_id))
        if naming:
            # The commit moved ``lists`` before this ran: a page of one of those stories made
            # in between, still naming the pulled story, is kept under it (the workers'
            # copies and the story URL entries follow ``lists``); moving it again retires it.
            bump("lists")
        if naming and settings.CDN_PURGE_URL:
            from .models import Story

            for other in Story.objects.filter(pk__in=naming).select_related("newsroom"):
                cdn.purge(story_page_urls(other)[:5])  # its renderings

    transaction.on_commit(refresh)


def purge_story_pages(sender, story, uncited=(), **kwargs):
    """Sent inside the action's transaction: the purge goes out once it commits, so the CDN
    cannot fetch the page again from before the change. ``uncited``: the manifests whose
    cites published changes removed, whose pages listed the story until then."""
    if settings.CDN_PURGE_URL:
        dropped = [reverse("manifest-detail", args=[manifest_id]) for manifest_id in uncited]
        cdn.purge_on_commit([*story_page_urls(story), *dropped])


def purge_updated_public_story(sender, story, was_public=False, uncited=(), **kwargs):
    """``story_updated`` of a story that readers see, or saw until this change (a restored
    backup written over it): its pages are purged as a publish purges them."""
    from .models import Story

    if story.status == Story.Status.PUBLISHED or was_public:
        purge_story_pages(sender, story, uncited=uncited)


def connect():
    for signal in (signals.story_published, signals.story_unpublished, signals.story_corrected, signals.story_updated):
        signal.connect(story_changed, dispatch_uid=f"stories.cache.{id(signal)}")
    for signal in (signals.story_published, signals.story_unpublished, signals.story_corrected):
        signal.connect(purge_story_pages, dispatch_uid=f"stories.cache.cdn.{id(signal)}")
    signals.story_updated.connect(purge_updated_public_story, dispatch_uid="stories.cache.cdn.updated")
    signals.story_unpublished.connect(story_pulled, dispatch_uid="stories.cache.pulled")
    from .models import Story

    post_save.connect(story_saved, sender=Story, dispatch_uid="stories.cache.save.Story")
    post_delete.connect(story_saved, sender=Story, dispatch_uid="stories.cache.delete.Story")
    from manifests.models import Publisher
    from newsroom.models import Beat, Newsroom

    post_save.connect(shown_everywhere_changed, sender=SiteProfile, dispatch_uid="stories.cache.save.SiteProfile")
    for model in (Newsroom, Beat, Publisher):
        post_save.connect(shown_everywhere_changed, sender=model, dispatch_uid=f"stories.cache.save.{model.__name__}")
        post_delete.connect(
            shown_everywhere_changed, sender=model, dispatch_uid=f"stories.cache.delete.{model.__name__}"
        )
    for model in (Manifest, Claim):
        post_save.connect(source_changed, sender=model, dispatch_uid=f"stories.cache.save.{model.__name__}")
        post_delete.connect(source_changed, sender=model, dispatch_uid=f"stories.cache.delete.{model.__name__}")
