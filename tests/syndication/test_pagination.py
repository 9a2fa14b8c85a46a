"""Keyset pagination over (updated_at, id): stable while stories change, constant cost."""

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from newsroom.infra.pagecache import bump
from stories.models import Story

pytestmark = pytest.mark.django_db


@pytest.fixture
def many(make_story):
    """120 published stories, updated a second apart (oldest first)."""
    stories = [make_story() for _ in range(120)]
    start = timezone.now() - dt.timedelta(days=1)
    for i, story in enumerate(stories):
        Story.objects.filter(pk=story.pk).update(updated_at=start + dt.timedelta(seconds=i))
    return [s.pk for s in stories]


def walk(api, url="/api/v1/stories/", params=None):
    """Follow `next` to the end: (ids in order, (id, version) pairs, final next_cursor)."""
    ids, seen, response = [], [], api.get(url, params or {})
    while True:
        body = response.json()
        ids += [item["id"] for item in body["results"]]
        seen += [(item["id"], item.get("version")) for item in body["results"]]
        if body["next"] is None:
            return ids, seen, body["next_cursor"]
        response = api.get(body["next"])


def test_pages_of_fifty_by_default_in_updated_order(api, many):
    first = api.get("/api/v1/stories/").json()
    assert [item["id"] for item in first["results"]] == many[:50]
    ids, _, _ = walk(api)
    assert ids == many


def test_page_size_up_to_a_hundred(api, many):
    body = api.get("/api/v1/stories/", {"page_size": 100}).json()
    assert len(body["results"]) == 100
    assert [item["id"] for item in api.get(body["next"]).json()["results"]] == many[100:]


def test_ties_on_updated_at_are_broken_by_id(api, make_story):
    stories = [make_story() for _ in range(7)]
    moment = timezone.now() - dt.timedelta(hours=2)
    Story.objects.filter(pk__in=[s.pk for s in stories]).update(updated_at=moment)
    ids, _, _ = walk(api, params={"page_size": 2})
    assert ids == sorted(s.pk for s in stories)


def test_a_deep_page_costs_the_same_queries_as_the_first(api, many):
    api.get("/api/v1/stories/", {"page_size": 10})  # the day's usage row exists from here on
    with CaptureQueriesContext(connection) as first:
        body = api.get("/api/v1/stories/", {"page_size": 10}).json()
    cursor = body["next_cursor"]
    for _ in range(9):
        body = api.get("/api/v1/stories/", {"page_size": 10, "cursor": cursor}).json()
        cursor = body["next_cursor"]
    with CaptureQueriesContext(connection) as deep:
        body = api.get("/api/v1/stories/", {"page_size": 10, "cursor": cursor}).json()
    assert [item["id"] for item in body["results"]] == many[100:110]
    assert len(deep) == len(first)
    story_query = next(q["sql"] for q in deep.captured_queries if 'FROM "stories_story"' in q["sql"])
    assert "OFFSET" not in story_query.upper()
    assert "LIMIT 11" in story_query.upper()


def test_walk_while_stories_are_updated_misses_nothing_and_repeats_nothing(api, many):
    """A poller walks; meanwhile a story it has seen and a story it has not yet reached are
    updated. Both move to the end: it sees every story, the unseen one once, the seen one
    again only at its new version, and never the same version twice."""
    page = api.get("/api/v1/stories/", {"page_size": 25}).json()
    seen = [(item["id"], item["version"]) for item in page["results"]]
    already, ahead = many[3], many[80]
    for pk in (already, ahead):
        Story.objects.filter(pk=pk).update(version=2, updated_at=timezone.now())
    bump("lists")  # as every write path does (an action, or a bulk import once per batch)
    _, rest, cursor = walk(api, page["next"])
    seen += rest
    assert len(seen) == len(set(seen)), "an (id, version) was served twice"
    assert {pk for pk, _ in seen} == set(many)
    assert [v for pk, v in seen if pk == ahead] == [2]
    assert [v for pk, v in seen if pk == already] == [1, 2]
    assert [pk for pk, _ in rest[-2:]] == [already, ahead]

    # The next poll resumes from the kept cursor: nothing new, then only what changed.
    assert api.get("/api/v1/stories/", {"cursor": cursor}).json()["results"] == []
    Story.objects.filter(pk=many[0]).update(version=3, updated_at=timezone.now())
    bump("lists")
    after = api.get("/api/v1/stories/", {"cursor": cursor}).json()
    assert [(i["id"], i["version"]) for i in after["results"]] == [(many[0], 3)]


def test_updated_since_with_cursor(api, many):
    since = Story.objects.get(pk=many[100]).updated_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    ids, _, _ = walk(api, params={"updated_since": since, "page_size": 7})
    assert ids == many[100:]


def test_corrections_and_editions_pages_use_cursors_too(api, make_story):
    from stories import actions
    from tests.factories import EditionFactory

    story = make_story()
    for i in range(5):
        actions.record_correction(story=story, text=f"Correction {i}.", kind="correction")
    ids, _, _ = walk(api, "/api/v1/corrections/", {"page_size": 2})
    assert len(ids) == len(set(ids)) == 5
    for hour in range(3):
        make_story(edition=EditionFactory(id=f"2026-10-18T0{hour}"))
    ids, _, _ = walk(api, "/api/v1/editions/", {"page_size": 2})
    assert ids == ["2026-10-18T02", "2026-10-18T01", "2026-10-18T00", "2026-10-16T00"]
