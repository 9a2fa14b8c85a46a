"""``bulk_insert``: ``bulk_create`` for many new rows, through ``COPY`` on PostgreSQL (and
``bulk_insert_rows`` for rows given as tuples, with no model instances);
``bulk_update_rows``: ``bulk_update`` in one ``UPDATE … FROM unnest(…)`` there.

Django 5.2's ``bulk_create`` on PostgreSQL sends the rows as arrays (``INSERT … SELECT *
FROM UNNEST(…)``), and psycopg builds each text array in Python, escaping every element:
for a batch of bulk-imported stories that costs more client time than everything else
together. ``COPY … FROM STDIN`` sends the rows as they are (psycopg formats them in C), and
is the cheapest way in for the server too. Ids are taken from the table's sequence first,
in row order (as an INSERT would take them), when the caller needs them.
"""

from __future__ import annotations

import contextlib
import gc
import time

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import AutoField, BigAutoField, SmallAutoField
from django.db.models import fields as f_
from django.db.models.expressions import RawSQL

from . import inflight

COPY_FROM = 200  # rows: fewer go through bulk_create (a single story's parts, tests)
_AUTO = (AutoField, BigAutoField, SmallAutoField)
# Fields whose Python values psycopg writes as they are (get_db_prep_save would return them
# unchanged): no call per value to build the rows.
# (Exact types: a subclass such as OrderedJSONField converts its values.)
_AS_IS = {
    f_.CharField,
    f_.SlugField,
    f_.URLField,
    f_.TextField,
    f_.IntegerField,
    f_.PositiveIntegerField,
    f_.BooleanField,
    f_.DateTimeField,
    f_.DateField,
    *_AUTO,
}
_sequences: dict[str, str] = {}
# Allocations less deallocations between collections of the youngest generation (Python's:
# 700). A run of an import holds its objects until it is written and published, then frees
# them by their reference counts, which lowers the count again: at this threshold the
# collector passes over them seldom (once in an import of 3,000 stories; 24 times at 50,000).
FEW_COLLECTIONS = 250_000


@contextlib.contextmanager
def few_collections(threshold: int = FEW_COLLECTIONS):
    """Within the block, the cyclic garbage collector looks at the youngest objects every
    ``threshold`` allocations instead of every 700. A bulk import allocates millions of
    objects that live until their batch is written and almost none in cycles (freed by
    their reference counts); at Python's default it scanned them over and over, a sixth of
    the importing process's time. Cycles are still collected, less often; the thresholds
    of the older generations are kept, and all three restored after."""
    old = gc.get_threshold()
    gc.set_threshold(threshold, *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


def bulk_insert(model, objs: list, *, ids: bool = True) -> list:
    """Insert new, unsaved ``objs`` of ``model`` and return them, their primary keys set
    when ``ids`` (or when the primary key is not an auto field). Fires no signals, like
    ``bulk_create``; auto_now fields are stamped the same way."""
    if not objs:
        return objs
    inflight.receive()  # COPY goes around Django's execute wrappers; so may the caller's bulk_create
    connection = connections[DEFAULT_DB_ALIAS]  # the connection itself, not the per-access proxy
    if connection.vendor != "postgresql" or len(objs) < COPY_FROM:
        return model.objects.bulk_create(objs)
    meta = model._meta
    pk = meta.pk
    auto_pk = isinstance(pk, _AUTO)
    if auto_pk and ids:
        for obj, value in zip(objs, _next_ids(connection, meta.db_table, pk.column, len(objs))):
            setattr(obj, pk.attname, value)
    fields = [f for f in meta.local_concrete_fields if not (f is pk and auto_pk and not ids)]
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    sql = f"COPY {connection.ops.quote_name(meta.db_table)} ({columns}) FROM STDIN"
    values = [_reader(f, connection) for f in fields]
    start = time.monotonic()
    # wrap_database_errors: psycopg's errors as Django's (IntegrityError...), as execute() has them.
    with connection.cursor() as cursor, connection.wrap_database_errors, cursor.cursor.copy(sql) as copy:
        for obj in objs:
            copy.write_row([value(obj) for value in values])
    if connection.queries_logged:  # visible to DEBUG's query log and the tests' query counts
        connection.queries_log.append({"sql": f"{sql} -- {len(objs)} rows", "time": f"{time.monotonic() - start:.3f}"})
    for obj in objs:
        obj._state.adding = False
        obj._state.db = connection.alias
    return objs


def bulk_insert_rows(model, names: tuple[str, ...], rows: list[tuple], *, ids: bool = True) -> list | None:
    """``bulk_insert`` of new rows given as tuples: the values, in the order of ``names``
    (attnames), of every concrete field but an auto primary key. On PostgreSQL they go to
    ``COPY`` as they are, without a model instance per row (Django's ``Model.__init__``
    costs more than the row does); elsewhere, or for a few rows, through ``bulk_insert``.
    Returns the new rows' primary keys in row order when ``ids``, else None."""
    meta = model._meta
    pk = meta.pk
    auto_pk = isinstance(pk, _AUTO)
    fields = [f for f in meta.concrete_fields if not (f is pk and auto_pk)]
    if sorted(names) != sorted(f.attname for f in fields):
        raise ValueError(f"{model.__name__} rows must give every field but the id: {sorted(f.attname for f in fields)}")
    connection = connections[DEFAULT_DB_ALIAS]
    if not rows:
        return [] if ids else None
    inflight.receive()  # COPY goes around Django's execute wrappers; so may bulk_insert's bulk_create
    if connection.vendor != "postgresql" or len(rows) < COPY_FROM:
        objs = bulk_insert(model, [model(**dict(zip(names, row))) for row in rows], ids=ids)
        return [obj.pk for obj in objs] if ids else None
    by_name = {f.attname: f for f in fields}
    ordered = [by_name[name] for name in names]
    convert = [None if type(f.target_field if f.is_relation else f) in _AS_IS else f for f in ordered]
    if any(getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False) for f in ordered):
        raise ValueError(f"{model.__name__} has auto_now fields: use bulk_insert")
    if any(convert):
        rows = [
            tuple(v if c is None else c.get_db_prep_save(v, connection) for v, c in zip(row, convert)) for row in rows
        ]
    qn = connection.ops.quote_name
    new_ids = _next_ids(connection, meta.db_table, pk.column, len(rows)) if auto_pk and ids else None
    columns = ([pk] if new_ids is not None else []) + ordered
    sql = f"COPY {qn(meta.db_table)} ({', '.join(qn(f.column) for f in columns)}) FROM STDIN"
    start = time.monotonic()
    with connection.cursor() as cursor, connection.wrap_database_errors, cursor.cursor.copy(sql) as copy:
        if new_ids is None:
            for row in rows:
                copy.write_row(row)
        else:
            for new_id, row in zip(new_ids, rows):
                copy.write_row((new_id, *row))
    if connection.queries_logged:
        connection.queries_log.append({"sql": f"{sql} -- {len(rows)} rows", "time": f"{time.monotonic() - start:.3f}"})
    if not ids:
        return None
    return new_ids if new_ids is not None else [row[names.index(pk.attname)] for row in rows]


def any_of(values, *, using: str = DEFAULT_DB_ALIAS):
    """The right-hand side of an ``__in`` look-up of many text values (ids): on PostgreSQL one
    parameter (``IN (SELECT unnest(%s::text[]))``), the values as one array literal
    (``text_array``), instead of a placeholder per value that Django prepares and psycopg
    converts one by one (for a batch of imported stories, tens of thousands of claim ids);
    elsewhere the values themselves."""
    values = list(values)
    if connections[using].vendor != "postgresql":
        return values
    return RawSQL("SELECT unnest(%s::text[])", [text_array(values)])


def text_array(values: list[str]) -> str:
    """The PostgreSQL array literal of the strings ``values`` (``{"a","b"}``), for a
    ``%s::text[]`` parameter: one string, made by joining. Given the list itself, psycopg
    writes the literal in Python, with a look-up of the element's dumper and a regular
    expression per element: for the claim ids of a bulk import's batch, about 3% of what each
    story costs. Every element is quoted, so commas, braces, blanks and the word NULL are text
    like any other; a backslash or a double quote is escaped with a backslash."""
    if not {str}.issuperset(map(type, values)):
        raise TypeError("text_array takes strings only")
    if not values:
        return "{}"
    joined = '","'.join(values)
    if "\\" in joined or '"' in "".join(values):  # the separators hold quotes: look in the values
        joined = '","'.join(value.replace("\\", "\\\\").replace('"', '\\"') for value in values)
    return '{"' + joined + '"}'


def bulk_update_rows(model, objs: list, fields: list[str]) -> None:
    """``bulk_update(objs, fields)`` in one statement. On PostgreSQL, ``UPDATE … FROM
    unnest(…)`` with one array per field, which psycopg sends as it is: Django 5.2's
    ``bulk_update`` builds a CASE expression with a WHEN for every row and field, which
    costs the client more than the rows do. Fires no signals; auto_now fields are not
    stamped (set them)."""
    if not objs:
        return
    connection = connections[DEFAULT_DB_ALIAS]
    meta = model._meta
    columns = [meta.get_field(name) for name in fields]
    if connection.vendor != "postgresql" or any(f.is_relation or type(f) not in _AS_IS for f in columns):
        model.objects.bulk_update(objs, fields)
        return
    qn = connection.ops.quote_name
    pk, table = meta.pk, qn(meta.db_table)
    arrays = [[getattr(obj, f.attname) for obj in objs] for f in [pk, *columns]]
    types = ", ".join(f"%s::{f.db_type(connection)}[]" for f in [pk, *columns])
    names = ", ".join(["pk", *(f"v{i}" for i in range(len(columns)))])
    sets = ", ".join(f"{qn(f.column)} = v.v{i}" for i, f in enumerate(columns))
    sql = f"UPDATE {table} SET {sets} FROM unnest({types}) AS v({names}) WHERE {table}.{qn(pk.column)} = v.pk"
    with connection.cursor() as cursor:
        cursor.execute(sql, arrays)


def _reader(field, connection):
    """obj -> the field's database value, as bulk_create would send it."""
    attname = field.attname
    if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
        return lambda obj: field.get_db_prep_save(field.pre_save(obj, True), connection)
    target = field.target_field if field.is_relation else field
    if type(target) in _AS_IS:
        return lambda obj: getattr(obj, attname)
    return lambda obj: field.get_db_prep_save(getattr(obj, attname), connection)


def _next_ids(connection, table: str, column: str, n: int) -> list[int]:
    with connection.cursor() as cursor:
        if table not in _sequences:
            cursor.execute("SELECT pg_get_serial_sequence(%s, %s)", [table, column])
            _sequences[table] = cursor.fetchone()[0]
        cursor.execute("SELECT nextval(%s) FROM generate_series(1, %s) ORDER BY 1", [_sequences[table], n])
        return [row[0] for row in cursor.fetchall()]


ANALYZE_FROM = 100  # new rows of a batch that make its tables' statistics worth refreshing
# Per database alias: (the transaction, rows written by analyze()'s callers since its last
# ANALYZE in it). One entry per alias: a new transaction starts over.
_since_analyze: dict[str, tuple[int, int]] = {}


def analyze(models, *, rows: int, using: str = DEFAULT_DB_ALIAS) -> None:
    """After a batch of ``rows`` new rows (of the first model; the others' grow with it),
    refresh PostgreSQL's planner statistics of the ``models``' tables (the rows this
    transaction wrote count): queries that follow in the same transaction (the checks'
    look-ups through the cite tables) are otherwise planned as if the tables held what they
    held before the import.

    Refreshed when the rows written since the statistics were last made are at least as
    many as they counted (the first model's ``reltuples``): the first batch into empty
    tables, then each time the tables have doubled, so a transaction of many batches
    refreshes them a logarithmic number of times (an ANALYZE of the story tables took
    0.4 s at 10,000 stories), and a batch into a large archive not at all. Nothing on
    other databases or for a batch of fewer than ``ANALYZE_FROM`` rows."""
    connection = connections[using]
    if connection.vendor != "postgresql" or rows < ANALYZE_FROM:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT txid_current(), reltuples FROM pg_class WHERE oid = %s::regclass", [models[0]._meta.db_table]
        )
        txid, counted = cursor.fetchone()
        seen, written = _since_analyze.get(using, (None, 0))
        written = rows + (written if seen == txid else 0)
        if written < counted:  # reltuples is -1 for a table never analyzed
            _since_analyze[using] = (txid, written)
            return
        tables = ", ".join(connection.ops.quote_name(m._meta.db_table) for m in models)
        cursor.execute(f"ANALYZE {tables}")
        _since_analyze[using] = (txid, 0)


def check_deferred(using: str = DEFAULT_DB_ALIAS) -> None:
    """On PostgreSQL, run now the foreign-key checks that the transaction's writes so far
    have queued for its commit (Django's ``check_constraints``: ``SET CONSTRAINTS ALL
    IMMEDIATE``, which runs them in bulk as the commit would, then ``DEFERRED`` again for the
    writes after). A bulk import calls it at the end of each batch: a missing row is
    reported inside the batch's savepoint, and the checks run while the checks' workers
    are busy rather than all in a commit that nothing else runs beside. Elsewhere it does
    nothing (SQLite's way to check them now scans whole tables): the commit checks them."""
    connection = connections[using]
    if connection.vendor == "postgresql" and connection.in_atomic_block:
        connection.check_constraints()


def send_check_deferred(using: str = DEFAULT_DB_ALIAS) -> None:
    """``check_deferred``, sent without waiting for it (``inflight``): PostgreSQL runs the
    foreign-key checks while the caller goes on with work that does not use the database;
    a missing row is raised when the statements are received (``inflight.receive``, which
    the caller makes before its next statement, in the same savepoint)."""
    connection = connections[using]
    if connection.vendor == "postgresql" and connection.in_atomic_block:
        inflight.send("SET CONSTRAINTS ALL IMMEDIATE; SET CONSTRAINTS ALL DEFERRED", [], using=using)
