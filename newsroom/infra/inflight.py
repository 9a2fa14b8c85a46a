"""One statement sent to PostgreSQL without waiting for it, its result read later.

A connection runs one statement at a time, and psycopg waits for each one's result before
it returns: while PostgreSQL works on a long statement, the process that sent it does
nothing. ``send`` sends a statement and returns at once; ``receive`` waits for its result
and raises its error (as Django's database errors). In between, the process may do any
work that does not use the connection. The statement runs where it was sent, in the
transaction as it stood then, so it must be received before the next statement, and in
particular before any savepoint is created, released or rolled back: within ``receiving``
(an execute wrapper) every statement through Django's cursors receives it first, and the
block's end receives it; anything that uses the connection otherwise (``COPY``) receives it
first itself (``newsroom.infra.bulk``). A statement left in flight is never lost silently:
psycopg refuses the next one ("another command is already in progress").

On other databases ``send`` runs the statement at once: there is nothing to overlap.
"""

from __future__ import annotations

import contextlib
import re
import weakref

from django.db import DEFAULT_DB_ALIAS, connections

# Django's connection (one per thread and alias) -> the SQL of its statement in flight
_SENT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def send(sql: str, params: list[str], *, using: str = DEFAULT_DB_ALIAS) -> None:
    """Send ``sql`` (parameters ``$1``, ``$2``…, each a string, cast in the SQL as needed)
    without waiting for its result, on PostgreSQL; elsewhere run it now (``$1``… become
    the driver's placeholders). Without parameters, ``sql`` may be several statements
    (PostgreSQL's simple protocol), received together."""
    receive(using)
    connection = connections[using]
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(*_driver_placeholders(sql, params))
        return
    from psycopg import generators

    connection.ensure_connection()
    raw = connection.connection
    with connection.wrap_database_errors:
        if params:
            raw.pgconn.send_query_params(sql.encode(), [p.encode() for p in params])
        else:
            raw.pgconn.send_query(sql.encode())
        raw.wait(generators.send(raw.pgconn))
    _SENT[connection] = sql
    if connection.queries_logged:  # visible to DEBUG's query log and the tests' query counts
        connection.queries_log.append({"sql": f"{sql} -- sent, not waited for", "time": "0.000"})


_NUMBERED = re.compile(r"\$(\d+)")


def _driver_placeholders(sql: str, params: list[str]) -> tuple[str, list[str]]:
    """``sql`` with each ``$n`` as the driver's ``%s`` (and a literal ``%`` doubled), and the
    parameters in the order the placeholders come: ``$2 … $1`` and a parameter used twice
    read as PostgreSQL reads them. A ``$n`` beyond the parameters is refused."""
    ordered: list[str] = []

    def placeholder(match: re.Match) -> str:
        n = int(match[1])
        if not 1 <= n <= len(params):
            raise ValueError(f"${n} in the statement, but {len(params)} parameters given")
        ordered.append(params[n - 1])
        return "%s"

    return _NUMBERED.sub(placeholder, sql.replace("%", "%%")), ordered


def in_flight(using: str = DEFAULT_DB_ALIAS) -> bool:
    """Whether a statement sent on ``using`` (this thread's connection) is not received yet."""
    return connections[using] in _SENT


def receive(using: str = DEFAULT_DB_ALIAS) -> None:
    """Wait for the statement in flight on ``using``, if any, and raise its error."""
    connection = connections[using]
    if _SENT.pop(connection, None) is None or connection.connection is None:
        return
    from psycopg import errors, generators, pq

    raw = connection.connection
    with connection.wrap_database_errors:
        results = raw.wait(generators.fetch_many(raw.pgconn))
        for result in results:
            if result.status == pq.ExecStatus.FATAL_ERROR:
                raise errors.error_from_result(result, encoding=raw.info.encoding)


def _receive_first(execute, sql, params, many, context):
    receive(context["connection"].alias)
    return execute(sql, params, many, context)


@contextlib.contextmanager
def receiving(using: str = DEFAULT_DB_ALIAS):
    """Within the block, every statement through Django's cursors on ``using`` first
    receives the one in flight; the block's end receives it. When an error ends the block,
    the statement is still received (so the transaction can be rolled back), and the error
    that ended the block is the one raised."""
    connection = connections[using]
    try:
        with connection.execute_wrapper(_receive_first):
            yield
    except BaseException:
        with contextlib.suppress(Exception):
            receive(using)
        raise
    receive(using)
