"""Keeps the public pages' caches honest: story events move the ``lists`` generation,
changes to sources or site texts move the ``sources`` generation (``newsroom.pagecache``).

Story pages need no purge: their cache key holds the story version, which every action
bumps, so a correction shows at once.
"""

from django.db.models.signals import post_delete, post_save

from manifests.models import Claim, Manifest
from newsroom.models import SiteProfile
from newsroom.pagecache import bump

from . import signals


def story_changed(sender, **kwargs):
    bump("lists")


def sources_changed(sender, **kwargs):
    bump("sources")
    bump("lists")


def connect():
    for signal in (signals.story_published, signals.story_unpublished, signals.story_corrected, signals.story_updated):
        signal.connect(story_changed, dispatch_uid=f"stories.cache.{id(signal)}")
    for model in (Manifest, Claim, SiteProfile):
        post_save.connect(sources_changed, sender=model, dispatch_uid=f"stories.cache.save.{model.__name__}")
        post_delete.connect(sources_changed, sender=model, dispatch_uid=f"stories.cache.delete.{model.__name__}")
