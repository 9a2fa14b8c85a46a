"""Story signals -> outbox rows, in the signal's (the action's) transaction. No network here."""

from stories import signals
from stories.desk import format_time
from stories.models import Story

from . import webhooks


def on_published(sender, story, **kwargs):
    webhooks.enqueue("story.published", story)


def on_unpublished(sender, story, **kwargs):
    webhooks.enqueue("story.unpublished", story)


def on_corrected(sender, story, correction=None, **kwargs):
    extra = {}
    if correction is not None:
        extra["correction"] = {
            "corrected_at": format_time(correction.corrected_at),
            "kind": correction.kind,
            "text": correction.text,
        }
    webhooks.enqueue("story.corrected", story, extra=extra)


def connect() -> None:
    signals.story_published.connect(on_published, sender=Story, dispatch_uid="syndication.published")
    signals.story_unpublished.connect(on_unpublished, sender=Story, dispatch_uid="syndication.unpublished")
    signals.story_corrected.connect(on_corrected, sender=Story, dispatch_uid="syndication.corrected")
