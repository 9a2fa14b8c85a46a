"""Every rendering of a story, under ``/stories/``: the root URLconf resolves these first,
since they are most of what readers and crawlers ask for. Each worker answers plain reads
of them from its own copy while current (``public.views.copies``)."""

from django.urls import path

from newsroom.infra.signing import signed

from .views import copies, story

story_url = "<str:date>/<slug:slug>/"

urlpatterns = [
    path(story_url, copies.kept(signed(story.story_detail)), name="story-detail"),
    path(story_url + "index.json", copies.kept(signed(story.story_json)), name="story-json"),
    path(story_url + "index.md", copies.kept(signed(story.story_markdown)), name="story-markdown"),
    path(story_url + "index.txt", copies.kept(signed(story.story_text)), name="story-text"),
    path(story_url + "checks.json", copies.kept(story.story_checks), name="story-checks"),
]
