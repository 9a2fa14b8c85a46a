from django.contrib.sitemaps import views as sitemap_views
from django.urls import path

from newsroom.pagecache import list_page, public

from . import feeds, sitemaps, views

story = "stories/<str:date>/<slug:slug>/"

urlpatterns = [
    path(story, views.story_detail, name="story-detail"),
    path(story + "index.json", views.story_json, name="story-json"),
    path(story + "index.md", views.story_markdown, name="story-markdown"),
    path(story + "index.txt", views.story_text, name="story-text"),
    path("corrections/", views.corrections, name="corrections"),
    path("search/", views.search, name="search"),
    path("feed.atom", feeds.atom_feed, name="feed-atom"),
    path("feed.rss", feeds.rss_feed, name="feed-rss"),
    path("feed.json", feeds.json_feed, name="feed-json"),
    path("n/<slug:slug>/feed.atom", feeds.atom_feed, name="newsroom-feed-atom"),
    path("n/<slug:slug>/feed.rss", feeds.rss_feed, name="newsroom-feed-rss"),
    path("n/<slug:slug>/feed.json", feeds.json_feed, name="newsroom-feed-json"),
    path(
        "sitemap.xml",
        public(list_page(sitemap_views.sitemap)),
        {"sitemaps": sitemaps.SITEMAPS},
        name="django.contrib.sitemaps.views.sitemap",
    ),
    path("sitemap-news.xml", sitemaps.news_sitemap, name="sitemap-news"),
]
