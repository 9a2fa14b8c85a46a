"""Concurrency on PostgreSQL (SQLite serialises writers, so these prove nothing there):
two editors saving one story at once, and many corrections and publishes at once.

Each thread has its own database connection (Django's are per thread), so the row locks
(``select_for_update``) in ``stories.actions.save_document`` and ``stories.actions`` really contend.
"""

import copy
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection, connections, transaction

from stories import actions, desk
from stories.actions import publish_story, record_correction
from stories.models import AuditEntry, Correction, Revision, Story

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks contend only on PostgreSQL"),
]


def in_thread(fn):
    """Run ``fn`` and close this thread's connection (else the test database cannot be dropped)."""

    def run(*args):
        try:
            return fn(*args)
        finally:
            connections.close_all()

    return run


def test_two_editors_saving_one_story_at_once_one_wins_one_gets_the_conflict(transactional_db, seed_doc):
    story = actions.import_story(desk.validate(seed_doc), restore=True).story
    opened_at = story.version
    barrier = threading.Barrier(2)

    @in_thread
    def save(headline):
        doc = copy.deepcopy(seed_doc)
        doc["headline"] = headline
        barrier.wait()
        try:
            with transaction.atomic():
                actions.save_document(desk.validate(doc), action="edit", expected_version=opened_at)
            return "saved", headline
        except desk.VersionConflict as exc:
            return "conflict", exc.story.version

    with ThreadPoolExecutor(2) as pool:
        outcomes = list(pool.map(save, ["Editor A's headline", "Editor B's headline"]))

    assert sorted(o[0] for o in outcomes) == ["conflict", "saved"]
    winner = next(o[1] for o in outcomes if o[0] == "saved")
    story = Story.objects.get(pk=story.pk)
    assert story.headline == winner
    assert story.version == opened_at + 1
    assert next(o[1] for o in outcomes if o[0] == "conflict") == opened_at + 1  # the loser is told where it stands


def test_twenty_corrections_of_one_story_at_once_none_lost_versions_strictly_increase(transactional_db, seed_doc):
    story = actions.import_story(desk.validate(seed_doc), restore=True).story
    start = story.version
    barrier = threading.Barrier(8)

    @in_thread
    def correct(i):
        if i < 8:
            barrier.wait()
        return record_correction(story=story, text=f"Correction {i}", kind="correction").pk

    with ThreadPoolExecutor(8) as pool:
        ids = list(pool.map(correct, range(20)))

    assert len(set(ids)) == 20
    assert sorted(Correction.objects.filter(story=story).values_list("text", flat=True)) == sorted(
        f"Correction {i}" for i in range(20)
    )
    assert Story.objects.get(pk=story.pk).version == start + 20
    versions = list(
        AuditEntry.objects.filter(story=story, action="correct").order_by("id").values_list("version", flat=True)
    )
    assert versions == list(range(start + 1, start + 21))  # in commit order, each one higher
    assert set(Revision.objects.filter(story=story).values_list("version", flat=True)) >= set(
        range(start + 1, start + 21)
    )
    # the last revision holds all twenty, oldest first
    last = Revision.objects.get(story=story, version=start + 20).data
    assert len(last["corrections"]) == 20
    assert [c["corrected_at"] for c in last["corrections"]] == sorted(c["corrected_at"] for c in last["corrections"])


def test_twenty_stories_published_and_corrected_in_parallel(transactional_db, seed_doc, manifests_loaded):
    stories = []
    for i in range(20):
        doc = copy.deepcopy(seed_doc)
        doc.update(id=f"9{i:02d}", slug=f"parallel-{i}", published_at=None, corrections=[])
        stories.append(actions.import_story(desk.validate(doc), restore=True).story)

    @in_thread
    def publish_then_correct(story):
        published = publish_story(story=story, override_reason="concurrency test")
        record_correction(story=published, text=f"Fixed {story.pk}", kind="update")
        return story.pk

    with ThreadPoolExecutor(8) as pool:
        done = list(pool.map(publish_then_correct, stories))

    assert sorted(done) == sorted(s.pk for s in stories)
    for story in Story.objects.filter(pk__in=done):
        assert story.status == Story.Status.PUBLISHED
        assert list(story.corrections.values_list("text", flat=True)) == [f"Fixed {story.pk}"]
        rows = list(AuditEntry.objects.filter(story=story).order_by("id").values_list("action", "version"))
        assert [a for a, _ in rows][-2:] == ["publish", "correct"]
        assert [v for _, v in rows] == sorted({v for _, v in rows})  # strictly increasing, no repeats
