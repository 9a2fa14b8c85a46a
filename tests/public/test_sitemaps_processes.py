"""With no CACHE_URL, what a command changes in another process is on the server's very
next request in every worker: a story taken down by an editor's action in a shell leaves,
and the same story published again by cron (``publish_scheduled``) comes back to, its
month's sitemap (404 while the month has no story), the sitemap index, the lists and the
feeds. The import of stories by a command is covered in
``tests/newsroom/test_cache_coherence_processes.py``."""

import time
import urllib.error
import urllib.request

import pytest

from tests.newsroom.test_cache_coherence_processes import get, server, site  # noqa: F401 (fixtures)

pytestmark = pytest.mark.slow

STORY = "/stories/2026-10-16/agent-training-stack/"
MONTH = "/sitemaps/2026-10.xml"
LISTED = ["/", "/n/artificial-intelligence/", "/feed.atom", "/feed.json"]

TAKE_DOWN = """
import datetime as dt
from django.utils import timezone
from stories import actions
from stories.models import Story
story = actions.unpublish_story(story=Story.objects.get(pk="81"), reason="back to the desk")
actions.schedule_story(story=story, when=timezone.now() + dt.timedelta(seconds=3))
"""


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, ""


def seen(base: str) -> dict[str, bool]:
    """Where the demo story is, as the server answers now (a newsroom page without a
    published story, a month's sitemap without one, and the story taken down are 404)."""
    found = {path: "agent-training-stack" in fetch(base + path)[1] for path in LISTED}
    found["index"] = MONTH in get(base + "/sitemap.xml")
    found["month"] = "agent-training-stack" in fetch(base + MONTH)[1]
    found["story"] = fetch(base + STORY)[0] == 200
    return found


def test_a_story_taken_down_and_published_by_cron_is_seen_on_the_next_request(server):  # noqa: F811
    base, manage, _ = server
    everywhere = dict.fromkeys([*LISTED, "index", "month", "story"], True)
    nowhere = dict.fromkeys(everywhere, False)
    for _ in range(4):  # every worker has rendered (and cached) every page
        assert seen(base) == everywhere

    manage("shell", "--no-imports", "-c", TAKE_DOWN)
    due = time.monotonic() + 3
    for _ in range(4):
        assert seen(base) == nowhere
    assert fetch(base + MONTH)[0] == 404

    time.sleep(max(0.0, due - time.monotonic()) + 0.5)
    assert "81: published" in manage("publish_scheduled").stdout
    for _ in range(4):
        assert seen(base) == everywhere
