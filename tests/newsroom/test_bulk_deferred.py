"""``check_deferred``: on PostgreSQL the foreign-key checks queued by the transaction's
writes so far run at the call (a dangling row is refused there, not at the commit), and the
writes after it are deferred again; elsewhere nothing is sent."""

import datetime as dt

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from newsroom.infra.bulk import check_deferred
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


@pytest.mark.skipif(connection.vendor == "postgresql", reason="the other databases")
def test_other_databases_are_sent_nothing():
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        check_deferred()
    assert [q["sql"] for q in queries if "CONSTRAINT" in q["sql"].upper() or "foreign_key" in q["sql"]] == []
