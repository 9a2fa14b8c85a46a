"""``analyze``: a large batch refreshes PostgreSQL's planner statistics of the tables it
wrote; a small batch, or another database, sends nothing."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from newsroom.infra.bulk import ANALYZE_FROM, analyze
from stories.models import CiteClaim, Story

pytestmark = pytest.mark.django_db


def test_a_small_batch_sends_nothing():
    with CaptureQueriesContext(connection) as queries:
        analyze([Story, CiteClaim], rows=ANALYZE_FROM - 1)
    assert len(queries) == 0


def test_a_large_batch_analyzes_its_tables_on_postgresql_only():
    with CaptureQueriesContext(connection) as queries:
        analyze([Story, CiteClaim], rows=ANALYZE_FROM)
    if connection.vendor == "postgresql":
        assert [q["sql"] for q in queries] == ['ANALYZE "stories_story", "stories_citeclaim"']
    else:
        assert len(queries) == 0
