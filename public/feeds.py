"""Feeds of published stories: Atom and RSS 2.0 (Django's syndication framework) and JSON
Feed 1.1, site-wide and per newsroom. A story's ``updated`` is its latest correction."""

from __future__ import annotations

import datetime as dt
import json

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed, Rss201rev2Feed
from django.utils.html import escape

from newsroom.infra.jsondoc import xml_text
from newsroom.infra.pagecache import list_page, public
from newsroom.models import Newsroom
from public.renderings import site_name
from stories.models import Story

FEED_SIZE = 50


def feed_stories(newsroom: Newsroom | None = None):
    """The newest published stories, with ``last_change`` = latest correction or publication."""
    qs = Story.objects.published().select_related("newsroom", "beat").with_last_change()
    if newsroom is not None:
        qs = qs.in_newsroom(newsroom)
    return qs.newest_first()[:FEED_SIZE]


def _rendering(story: Story, fmt: str) -> str:
    return reverse(f"story-{fmt}", args=[story.edition_id[:10], story.slug])


def _iso(value) -> str:
    return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _xml_text(value):
    """A feed field without the characters XML 1.0 cannot hold (``xml_text``); a list of
    texts (categories) each so."""
    if isinstance(value, str):
        return xml_text(value)
    if isinstance(value, (list, tuple)):
        return [_xml_text(v) for v in value]
    return value


class XmlTextFeedMixin:
    """A feed writer that leaves out of every text the characters XML 1.0 cannot hold (a
    control character in one headline would otherwise fail the whole feed, for everyone):
    desk/1 refuses them, but a story saved before they were refused may still hold one."""

    def __init__(self, **kwargs):
        super().__init__(**{key: _xml_text(value) for key, value in kwargs.items()})

    def add_item(self, **kwargs):
        super().add_item(**{key: _xml_text(value) for key, value in kwargs.items()})


class XmlTextAtom1Feed(XmlTextFeedMixin, Atom1Feed):
    pass


class XmlTextRss201rev2Feed(XmlTextFeedMixin, Rss201rev2Feed):
    pass


class StoryAtomFeed(Feed):
    feed_type = XmlTextAtom1Feed
    language = "en"
    kind = "atom"

    def get_object(self, request, slug=None):
        return get_object_or_404(Newsroom.objects.having_published(), slug=slug) if slug else None

    def title(self, obj):
        return f"{site_name()}: {obj.title}" if obj else site_name()

    def subtitle(self, obj):
        return "Cited, verified stories: every paragraph links to the claims it rests on."

    description = subtitle

    def link(self, obj):
        return settings.SITE_URL + (obj.get_absolute_url() if obj else reverse("home"))

    def feed_url(self, obj):
        return settings.SITE_URL + (
            reverse(f"newsroom-feed-{self.kind}", args=[obj.slug]) if obj else reverse(f"feed-{self.kind}")
        )

    def author_name(self, obj):
        return site_name()

    def items(self, obj):
        return feed_stories(obj)

    def item_title(self, item):
        return item.headline

    def item_description(self, item):
        # The dek is plain text, but Atom's <summary type="html"> and RSS's <description> are
        # read as HTML by feed readers: escaped, "<script>" in a dek shows as text there too.
        return escape(item.dek)

    def item_link(self, item):
        return item.url

    def item_guid(self, item):
        return item.url

    def item_pubdate(self, item):
        return item.published_at

    def item_updateddate(self, item):
        return item.last_change

    def item_categories(self, item):
        return [c for c in (item.newsroom.title, item.beat.slug if item.beat_id else None) if c]


class StoryRssFeed(StoryAtomFeed):
    feed_type = XmlTextRss201rev2Feed
    kind = "rss"


def json_feed_document(request, newsroom: Newsroom | None = None) -> dict:
    """JSON Feed 1.1 (https://jsonfeed.org/version/1.1)."""
    base = settings.SITE_URL
    home = base + (newsroom.get_absolute_url() if newsroom else reverse("home"))
    feed_url = base + (reverse("newsroom-feed-json", args=[newsroom.slug]) if newsroom else reverse("feed-json"))
    items = []
    for story in feed_stories(newsroom):
        items.append(
            {
                "id": story.url,
                "url": story.url,
                "title": story.headline,
                "summary": story.dek,
                "content_text": story.dek or story.headline,
                "date_published": _iso(story.published_at),
                "date_modified": _iso(story.last_change),
                "authors": [
                    {
                        "name": f"{site_name()} {story.newsroom.title} desk",
                        "url": base + story.newsroom.get_absolute_url(),
                    }
                ],
                "tags": [t for t in (story.newsroom.title, story.beat.slug if story.beat_id else None) if t],
                "language": "en",
                "_provenance": {
                    "json": base + _rendering(story, "json"),
                    "markdown": base + _rendering(story, "markdown"),
                },
            }
        )
    return {
        "version": "https://jsonfeed.org/version/1.1",
        "title": f"{site_name()}: {newsroom.title}" if newsroom else site_name(),
        "home_page_url": home,
        "feed_url": feed_url,
        "description": "Cited, verified stories: every paragraph links to the claims it rests on.",
        "language": "en",
        "authors": [{"name": site_name(), "url": base + reverse("home")}],
        "items": items,
    }


@public
@list_page
def json_feed(request, slug=None):
    newsroom = get_object_or_404(Newsroom.objects.having_published(), slug=slug) if slug else None
    body = json.dumps(json_feed_document(request, newsroom), ensure_ascii=False, indent=2)
    return HttpResponse(body, content_type="application/feed+json; charset=utf-8")


atom_feed = public(list_page(StoryAtomFeed()))
rss_feed = public(list_page(StoryRssFeed()))
