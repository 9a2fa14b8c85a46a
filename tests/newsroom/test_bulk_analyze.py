"""``analyze``: a large batch refreshes PostgreSQL's planner statistics of the tables it
wrote, again each time they have doubled within the transaction; a small batch, or
another database, sends nothing."""

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from newsroom.infra import bulk
from newsroom.infra.bulk import ANALYZE_FROM, analyze
from newsroom.models import Edition
from stories.models import CiteClaim, Story

postgresql_only = pytest.mark.skipif(connection.vendor != "postgresql", reason="ANALYZE is PostgreSQL's")

pytestmark = pytest.mark.django_db


def test_a_small_batch_sends_nothing():
    with CaptureQueriesContext(connection) as queries:
        analyze([Story, CiteClaim], rows=ANALYZE_FROM - 1)
    assert len(queries) == 0


def test_a_large_batch_analyzes_its_tables_on_postgresql_only():
    rows = max(ANALYZE_FROM, int(_counted(Story)) + 1)  # more new rows than the statistics counted
    with CaptureQueriesContext(connection) as queries:
        analyze([Story, CiteClaim], rows=rows)
    if connection.vendor == "postgresql":
        assert queries[-1]["sql"] == 'ANALYZE "stories_story", "stories_citeclaim"' and len(queries) == 2
    else:
        assert len(queries) == 0


def _analyzed(rows: int) -> bool:
    with CaptureQueriesContext(connection) as queries:
        analyze([Edition], rows=rows)
    return any(q["sql"].startswith("ANALYZE") for q in queries)


def _counted(model=Edition) -> float:
    """The rows the table's statistics counted (-1: never analyzed; 0 on other databases)."""
    if connection.vendor != "postgresql":
        return 0
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE oid = %s::regclass", [model._meta.db_table])
        return cursor.fetchone()[0]


@postgresql_only
def test_within_a_transaction_the_statistics_are_refreshed_each_time_the_tables_double():
    start = dt.datetime(2001, 1, 1, tzinfo=dt.UTC)
    hours = [start + dt.timedelta(hours=h) for h in range(2 * ANALYZE_FROM)]
    Edition.objects.bulk_create([Edition(id=t.strftime("%Y-%m-%dT%H"), starts_at=t) for t in hours])
    # More new rows than the statistics counted (ANALYZE writes what it counted even when
    # the transaction rolls back, so an earlier test's may stand)
    assert _analyzed(max(ANALYZE_FROM, int(_counted()) + 1))
    counted = _counted()
    assert counted >= 2 * ANALYZE_FROM  # the rows this transaction wrote count
    half = int(counted) // 2 + 1
    assert not _analyzed(half)  # not yet as many new rows as the statistics counted
    assert _analyzed(half)  # now more: refreshed
    assert not _analyzed(half)  # counted again from the refresh


@postgresql_only
def test_a_new_transaction_counts_its_own_rows_only():
    Edition.objects.bulk_create(
        [
            Edition(id=t.strftime("%Y-%m-%dT%H"), starts_at=t)
            for t in (dt.datetime(2001, 1, 1, tzinfo=dt.UTC) + dt.timedelta(hours=h) for h in range(ANALYZE_FROM * 4))
        ]
    )
    assert _analyzed(max(ANALYZE_FROM, int(_counted()) + 1))
    half = int(_counted()) // 2 + 1
    txid, _ = bulk._since_analyze[connection.alias]
    bulk._since_analyze[connection.alias] = (txid - 1, 10**9)  # many rows, written by an earlier transaction
    assert not _analyzed(half)
