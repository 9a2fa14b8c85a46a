"""``check_deferred``: on PostgreSQL the foreign-key checks queued by the transaction's
writes so far run at the call (a dangling row is refused there, not at the commit), and the
writes after it are deferred again; elsewhere nothing is sent."""

import datetime as dt

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from newsroom.infra import inflight
from newsroom.infra.bulk import check_deferred, send_check_deferred
from stories.models import Correction

pytestmark = pytest.mark.django_db
postgresql_only = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL defers them to the commit")

WHEN = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def dangling() -> Correction:
    """A correction of a story that does not exist: its foreign key fails when checked."""
    return Correction.objects.create(story_id="no-such-story", corrected_at=WHEN, kind="correction", text="x")


@postgresql_only
def test_a_dangling_row_is_refused_at_the_call():
    with pytest.raises(IntegrityError, match="stories_story"), transaction.atomic():
        dangling()  # deferred: written without complaint
        check_deferred()
    assert not Correction.objects.exists()


@postgresql_only
def test_the_writes_after_the_call_are_deferred_again():
    written = []
    with pytest.raises(IntegrityError, match="stories_story"), transaction.atomic():
        check_deferred()  # nothing queued: nothing to refuse
        written.append(dangling())  # deferred again, or this write would fail here
        check_deferred()
    assert len(written) == 1 and not Correction.objects.exists()


@postgresql_only
def test_sent_without_waiting_a_dangling_row_is_refused_when_received():
    """``send_check_deferred``: the checks run while the caller goes on; the refusal comes
    with their result, and the writes after are deferred again."""
    with pytest.raises(IntegrityError, match="stories_story"), transaction.atomic():
        dangling()
        send_check_deferred()
        assert inflight.in_flight()
        inflight.receive()
    assert not inflight.in_flight() and not Correction.objects.exists()
    written = []
    with pytest.raises(IntegrityError, match="stories_story"), transaction.atomic():
        send_check_deferred()
        inflight.receive()  # nothing queued: nothing to refuse
        written.append(dangling())  # deferred again
        check_deferred()
    assert len(written) == 1


@postgresql_only
def test_a_run_with_a_dangling_row_is_refused_in_its_savepoint(monkeypatch, manifests_loaded, story_doc):
    """The checks sent while a run's fingerprints are computed refuse a dangling row inside
    the run's savepoint: the run is rolled back and its stories imported one at a time (so
    that an error would name its line), and nothing of the run's first attempt is left."""
    import importlib

    from stories.actions import imports
    from stories.models import Story
    from tests.stories.test_desk_bulk import import_in_bulk, variant

    commit = importlib.import_module("stories.actions.commit")
    real_insert, real_send, real_one = commit.bulk_insert, commit.send_check_deferred, imports.Importer._one
    sent, one_by_one = [], []

    def with_a_dangling_row(model, objs, **kwargs):
        if model.__name__ == "AuditEntry":
            dangling()
        return real_insert(model, objs, **kwargs)

    monkeypatch.setattr(commit, "bulk_insert", with_a_dangling_row)
    monkeypatch.setattr(commit, "send_check_deferred", lambda: sent.append(True) or real_send())
    monkeypatch.setattr(
        imports.Importer, "_one", lambda self, line, doc: one_by_one.append(line) or real_one(self, line, doc)
    )
    after_the_write = []
    monkeypatch.setattr(imports, "check_deferred", lambda: after_the_write.append(True))
    docs = [variant(story_doc, 1), variant(story_doc, 2)]
    assert import_in_bulk(docs)["created"] == 2
    assert sent and len(one_by_one) == 2  # refused in bulk, then one at a time
    assert not after_the_write  # refused by the checks sent with the fingerprints, before the run's own call
    assert not inflight.in_flight() and not Correction.objects.filter(story_id="no-such-story").exists()
    assert Story.objects.filter(pk__in=[d["id"] for d in docs]).count() == 2


@pytest.mark.skipif(connection.vendor == "postgresql", reason="the other databases")
def test_other_databases_are_sent_nothing():
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        check_deferred()
        send_check_deferred()
    assert not inflight.in_flight()
    assert [q["sql"] for q in queries if "CONSTRAINT" in q["sql"].upper() or "foreign_key" in q["sql"]] == []
