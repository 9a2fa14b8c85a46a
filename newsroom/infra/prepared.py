"""Queries compiled once: the public pages' and the API's fixed handfuls of small queries.

An uncached story page, or the API's cold story list, makes a fixed handful of queries;
building each one's SQL (filters, joins, ordering, an ``IN`` list of a page's ids) costs
Django more than running it. A ``Prepared`` query is an ordinary queryset, built and
compiled by the ORM the first time it runs on a database (so the SQL is the ORM's own, for
whichever backend), with a sample value standing for each argument; later runs reuse the
compiled SQL, its columns and their converters, with the arguments put where the samples
were. A query whose samples cannot be told apart in the compiled parameters is built afresh
every time, exactly as before. ``padded`` keeps the lengths of ``IN`` lists, and so the
compiled shapes, few.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from django.core.exceptions import EmptyResultSet
from django.db import connections, router
from django.db.models.query import get_related_populators


class Prepared:
    """``build(*args)`` -> a queryset; ``samples``: one value per argument, of its type and
    unlike any other parameter the query may have (a list argument takes ``n`` values and
    is compiled once per length)."""

    def __init__(self, build: Callable, *samples):
        self.build = build
        self.samples = samples
        self.compiled: dict = {}
        self.model = None

    def _compiler(self, args: tuple):
        shape = tuple(len(a) if isinstance(a, list | tuple | set | frozenset) else None for a in args)
        key = (self._alias(), shape)
        got = self.compiled.get(key)
        if got is None:
            got = self.compiled[key] = self._compile(shape)
        if got is False:
            return None
        base, sql, slots = got
        flat = [v for a, n in zip(args, shape, strict=True) for v in (a if n is not None else (a,))]
        params = list(base.prepared_params)
        for position, index, kind in slots:
            params[position] = flat[index] if kind is None else kind(flat[index])
        compiler = copy.copy(base)
        compiler.connection = connections[key[0]]
        params = tuple(params)
        compiler.as_sql = lambda *a, **k: (sql, params)
        return compiler

    def _alias(self) -> str:
        if self.model is None:
            self.model = self.build(*self.samples).model
        return router.db_for_read(self.model)

    def _compile(self, shape):
        samples = []
        for sample, n in zip(self.samples, shape, strict=True):
            samples.append([self._nth(sample, i) for i in range(n)] if n is not None else sample)
        queryset = self.build(*samples)
        compiler = queryset.query.get_compiler(using=queryset.db)
        try:
            sql, params = compiler.as_sql()
        except EmptyResultSet:  # an empty list: built afresh, which costs nothing to run
            return False
        flat = [v for s, n in zip(samples, shape, strict=True) for v in (s if n is not None else (s,))]
        slots = []
        for index, value in enumerate(flat):
            # A backend may pass a value as text (a date on SQLite), or wrapped in a type of
            # its own (an integer as ``Int4`` with psycopg): it is passed so again.
            found = [(p, kind) for p, got in enumerate(params) if (kind := _passed_as(got, value)) is not False]
            if len(found) != 1:
                return False
            slots.append((found[0][0], index, found[0][1]))
        if len(slots) != len({p for p, _, _ in slots}):
            return False
        compiler.prepared_params = params
        # The columns' converters too (they depend on the columns and the backend only: each is
        # called with the connection of the run).
        converters = compiler.get_converters([col[0] for col in compiler.select[0 : compiler.col_count]])
        compiler.get_converters = lambda expressions: converters
        return compiler, sql, slots

    @staticmethod
    def _nth(sample, i: int):
        value = sample[0] if isinstance(sample, list | tuple) else sample
        return value + i if isinstance(value, int) else f"{value}{i}"

    def values(self, *args) -> list[tuple]:
        """The rows of a ``values_list()`` queryset, as tuples."""
        compiler = self._compiler(args)
        if compiler is None:
            return list(self.build(*args))
        return [tuple(row) for row in compiler.results_iter(tuple_expected=True)]

    def objects(self, *args) -> list:
        """The model instances of a queryset (with its ``select_related`` and annotations,
        not its ``prefetch_related``), as ``ModelIterable`` makes them."""
        compiler = self._compiler(args)
        if compiler is None:
            return list(self.build(*args))
        db = compiler.using
        results = compiler.execute_sql()
        select, klass_info, annotations = compiler.select, compiler.klass_info, compiler.annotation_col_map
        model = klass_info["model"]
        fields = klass_info["select_fields"]
        start, end = fields[0], fields[-1] + 1
        names = [f[0].target.attname for f in select[start:end]]
        populators = get_related_populators(klass_info, select, db)
        out = []
        for row in compiler.results_iter(results):
            obj = model.from_db(db, names, row[start:end])
            for populator in populators:
                populator.populate(row, obj)
            for name, position in (annotations or {}).items():
                setattr(obj, name, row[position])
            out.append(obj)
        return out


def _passed_as(got, value):
    """How the compiled parameter ``got`` passes the sample ``value``: None as it is, ``str``
    as text, a subclass of its type (psycopg's ``Int4``) wrapped so; False when it is
    another value."""
    if type(got) is type(value) and got == value:
        return None
    if isinstance(got, str) and got == str(value):
        return str
    if isinstance(got, type(value)) and not isinstance(value, bool) and got == value:
        return type(got)
    return False


def padded(values) -> list:
    """``values`` as a list whose length is a power of two, or 50 from 33 to 50, the last value
    repeated: the same ``IN`` condition, compiled once per such length rather than once per
    length. (psycopg keeps its conversion of a statement of at most 50 parameters: a page of
    50, the API's default, keeps it.)"""
    values = list(values)
    if len(values) > 1:
        size = 50 if 32 < len(values) <= 50 else 1 << (len(values) - 1).bit_length()
        values += values[-1:] * (size - len(values))
    return values
