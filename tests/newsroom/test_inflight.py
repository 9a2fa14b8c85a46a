"""``newsroom.infra.inflight``: a statement sent without waiting, received before the next."""

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction

from newsroom.infra import inflight
from newsroom.infra.bulk import COPY_FROM, bulk_insert
from newsroom.models import Newsroom

pytestmark = pytest.mark.django_db
postgres_only = pytest.mark.skipif(connection.vendor != "postgresql", reason="sent without waiting on PostgreSQL only")


@postgres_only
def test_a_statement_sent_runs_while_the_process_goes_on_and_is_received_before_the_next():
    with inflight.receiving():
        inflight.send("SELECT pg_sleep(0.05)", [])
        assert inflight.in_flight()
        # the next statement through Django's cursors receives it first
        assert Newsroom.objects.filter(slug="sent").count() == 0
        assert not inflight.in_flight()
        inflight.send("UPDATE newsroom_newsroom SET title = $1 WHERE slug = $2", ["Renamed", "nowhere"])
    assert not inflight.in_flight()  # the block's end received it


@postgres_only
def test_an_error_is_raised_when_the_statement_is_received_as_django_s():
    existing = Newsroom.objects.create(slug="taken", title="Taken")
    with pytest.raises(IntegrityError, match="duplicate key"), transaction.atomic():
        inflight.send(
            "INSERT INTO newsroom_newsroom SELECT * FROM newsroom_newsroom WHERE id = $1::int", [str(existing.pk)]
        )
        assert inflight.in_flight()  # sent: the error comes with the result
        inflight.receive()
    assert not inflight.in_flight()
    assert Newsroom.objects.filter(slug="taken").count() == 1  # the savepoint rolled back; the connection works


@postgres_only
def test_a_statement_left_in_flight_is_never_passed_over_silently():
    """Outside ``receiving``, psycopg refuses the next statement while one is in flight."""
    inflight.send("SELECT pg_sleep(0.01)", [])
    with pytest.raises(DatabaseError), connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    inflight.receive()
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


@postgres_only
def test_an_error_ending_the_block_is_raised_and_the_statement_received():
    with pytest.raises(RuntimeError, match="the block's own"), inflight.receiving():
        inflight.send("SELECT pg_sleep(0.01)", [])
        raise RuntimeError("the block's own error")
    assert not inflight.in_flight()
    assert Newsroom.objects.count() >= 0  # the connection is usable


@postgres_only
def test_copy_receives_the_statement_in_flight_first():
    inflight.send("SELECT pg_sleep(0.01)", [])
    rows = [Newsroom(slug=f"copied-{i}", title=f"Copied {i}") for i in range(COPY_FROM)]
    bulk_insert(Newsroom, rows)
    assert not inflight.in_flight()
    assert Newsroom.objects.filter(slug__startswith="copied-").count() == COPY_FROM


@pytest.mark.skipif(connection.vendor == "postgresql", reason="PostgreSQL sends it without waiting")
def test_elsewhere_a_statement_sent_runs_at_once():
    Newsroom.objects.create(slug="here", title="Here")
    inflight.send("UPDATE newsroom_newsroom SET title = $1 WHERE slug = $2", ["Renamed", "here"])
    assert not inflight.in_flight()
    assert Newsroom.objects.get(slug="here").title == "Renamed"


@pytest.mark.skipif(connection.vendor == "postgresql", reason="PostgreSQL reads $n itself")
def test_elsewhere_numbered_parameters_are_read_as_postgresql_reads_them():
    Newsroom.objects.create(slug="here", title="Here")
    Newsroom.objects.create(slug="there", title="There")
    # out of order, one used twice, more than nine, and a literal percent sign
    params = ["here", "Ten%", *[f"unused {i}" for i in range(3, 10)], "10%"]
    inflight.send(
        "UPDATE newsroom_newsroom SET title = $2 || ' of ' || $10 || ' at 5%' WHERE slug = $1 OR slug = $1",
        params,
    )
    assert Newsroom.objects.get(slug="here").title == "Ten% of 10% at 5%"
    assert Newsroom.objects.get(slug="there").title == "There"


def test_a_numbered_parameter_beyond_those_given_is_refused_before_anything_runs():
    Newsroom.objects.create(slug="here", title="Here")
    with pytest.raises((ValueError, DatabaseError), match=r"\$2|parameter|bind"), transaction.atomic():
        inflight.send("UPDATE newsroom_newsroom SET title = $2 WHERE slug = $1", ["here"])
        inflight.receive()
    assert Newsroom.objects.get(slug="here").title == "Here"
