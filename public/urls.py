"""Everything readers get but a story's own renderings (``public.story_urls``): lists, feeds,
sitemaps, sources, site pages."""

from django.urls import path

from . import feeds, sitemaps
from .views import manifest, policies, site, story

urlpatterns = [
    path("corrections/", story.corrections, name="corrections"),
    path("search/", story.search, name="search"),
    path("feed.atom", feeds.atom_feed, name="feed-atom"),
    path("feed.rss", feeds.rss_feed, name="feed-rss"),
    path("feed.json", feeds.json_feed, name="feed-json"),
    path("n/<slug:slug>/feed.atom", feeds.atom_feed, name="newsroom-feed-atom"),
    path("n/<slug:slug>/feed.rss", feeds.rss_feed, name="newsroom-feed-rss"),
    path("n/<slug:slug>/feed.json", feeds.json_feed, name="newsroom-feed-json"),
    # The index keeps its historical name: robots.txt and the CDN purge reverse it.
    path("sitemap.xml", sitemaps.sitemap_index, name="django.contrib.sitemaps.views.sitemap"),
    path("sitemaps/pages.xml", sitemaps.pages_sitemap, name="sitemap-pages"),
    path("sitemaps/<str:month>.xml", sitemaps.month_sitemap, name="sitemap-month"),
    path("sitemap-news.xml", sitemaps.news_sitemap, name="sitemap-news"),
    path("manifests/<str:manifest_id>/", manifest.manifest_detail, name="manifest-detail"),
    path("", site.home, name="home"),
    path("n/<slug:slug>/", site.newsroom_detail, name="newsroom-detail"),
    path("editions/<str:edition_id>/", site.edition_detail, name="edition-detail"),
    path(".well-known/reuse.json", site.reuse_json, name="reuse-json"),
    path("terms/reuse/", site.reuse_terms, name="reuse-terms"),
    path("robots.txt", site.robots_txt, name="robots-txt"),
    path("policies/<slug:slug>/", policies.policy, name="policy"),
    path("trust.txt", policies.trust_txt, name="trust-txt"),
    path(".well-known/trust.txt", policies.trust_txt, name="trust-txt-well-known"),
    path("license.xml", policies.license_rsl, name="license-rsl"),
]
