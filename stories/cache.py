"""Keeps the public pages' caches honest (generations: ``newsroom.infra.pagecache``):

- story events move ``lists``;
- a change to a manifest or claim moves ``sources:<story id>`` of each story citing it
  (and ``lists``, for the manifest pages);
- a change to the site profile moves ``sources`` (every story shows its texts) and ``lists``.

Story pages need no purge: their cache key holds the story version, which every action
bumps, so a correction shows at once.
"""

from django.db.models.signals import post_delete, post_save

from manifests.models import Claim, Manifest
from newsroom.infra.pagecache import bump
from newsroom.models import SiteProfile

from . import signals


def story_changed(sender, **kwargs):
    bump("lists")


def story_saved(sender, **kwargs):
    """Any write of a story row, including imports that send no story signal: story pages
    served from their URL's cache entry (``public.views.story``) follow ``lists``."""
    bump("lists")


def shown_everywhere_changed(sender, **kwargs):
    """Something every story page and API representation may show without owning it: the
    site profile's texts, or a label (newsroom title and slug, beat, publisher name)."""
    bump("sources")
    bump("lists")


def citing_story_ids(manifest_id: str) -> set[str]:
    """The stories (any status) with a cite of this manifest."""
    from .models import Cite

    return set(Cite.objects.citing(manifest=manifest_id).values_list("story_id", flat=True))


def source_changed(sender, instance, update_fields=None, **kwargs):
    """A manifest or claim changed: refresh the stories that cite it, and every list
    (manifest pages list claims). Only the stories citing it re-render."""
    if update_fields and set(update_fields) <= {"fetched_at"}:
        return  # bookkeeping no page shows
    manifest_id = instance.pk if sender is Manifest else instance.manifest_id
    for story_id in citing_story_ids(manifest_id):
        bump(story_sources_key(story_id))
    bump("lists")


def story_sources_key(story_id: str) -> str:
    return f"sources:{story_id}"


def connect():
    for signal in (signals.story_published, signals.story_unpublished, signals.story_corrected, signals.story_updated):
        signal.connect(story_changed, dispatch_uid=f"stories.cache.{id(signal)}")
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
