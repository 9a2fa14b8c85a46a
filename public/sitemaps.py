"""Sitemaps: every published story, newsroom and edition page (django.contrib.sitemaps),
and a Google News sitemap of the last two days' stories."""

from __future__ import annotations

import datetime as dt
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.sitemaps import Sitemap
from django.shortcuts import render
from django.utils import timezone

from newsroom.infra.pagecache import list_page, public
from newsroom.models import Edition, Newsroom
from public.renderings import site_name
from stories.models import Story

NEWS_WINDOW = dt.timedelta(days=2)
NEWS_LIMIT = 1000


class SiteUrlSitemap(Sitemap):
    """URLs on ``settings.SITE_URL``, whatever host the sitemap was asked for on."""

    protocol = urlsplit(settings.SITE_URL).scheme or "https"

    def get_domain(self, site=None):
        return urlsplit(settings.SITE_URL).netloc


class StorySitemap(SiteUrlSitemap):
    changefreq = "hourly"
    limit = 5000

    def items(self):
        return (
            Story.objects.published()
            .with_last_change()
            .only("id", "slug", "edition_id", "published_at", "updated_at")
            .order_by("-published_at", "id")
        )

    def location(self, item):
        return item.path

    def lastmod(self, item):
        return item.last_change


class NewsroomSitemap(SiteUrlSitemap):
    changefreq = "hourly"

    def items(self):
        return Newsroom.objects.having_published().order_by("slug")


class EditionSitemap(SiteUrlSitemap):
    changefreq = "daily"

    def items(self):
        return Edition.objects.having_published().order_by("-starts_at")


SITEMAPS = {"stories": StorySitemap, "newsrooms": NewsroomSitemap, "editions": EditionSitemap}


@public
@list_page
def news_sitemap(request):
    """Google News sitemap: stories published in the last two days, at most 1,000."""
    since = timezone.now() - NEWS_WINDOW
    stories = (
        Story.objects.published().filter(published_at__gte=since).only("slug", "edition_id", "published_at", "headline")
    )
    stories = stories.order_by("-published_at", "-id")[:NEWS_LIMIT]
    return render(
        request,
        "public/sitemap_news.xml",
        {"stories": stories, "site_url": settings.SITE_URL, "publication": site_name()},
        content_type="application/xml; charset=utf-8",
    )
