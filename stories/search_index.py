"""The search documents of published stories (``StorySearch``), kept by the commit step.

Every action ends in ``stories.actions.commit``; there, in the action's transaction,
``refresh(ids)`` rewrites the document of each of those stories that is published, from its
stored row and paragraphs, and drops the document of each that is not (unpublished, a
draft). PostgreSQL computes the vector (``to_tsvector``, English configuration: headline
weight A, dek B, paragraphs in reading order C), so a batch of stories is one statement
whatever its size. A bulk import's publish holds the ids (``held``) and sends that statement
without waiting for it (``send_refresh``), so that PostgreSQL computes the documents while
the import reads what comes next. On other databases search reads the text itself and this
does nothing.
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar

from django.db import connection

from newsroom.infra import inflight
from newsroom.infra.bulk import text_array

from .models import Paragraph, Section, Story, StorySearch

_HELD: ContextVar[list | None] = ContextVar("search_held", default=None)


def _sql() -> str:
    """One statement: drop the documents of the stories that are not published, and write
    (or rewrite) those of the stories that are. Each story's body is read by its own
    subquery (the section and paragraph indexes): the cost grows with the batch whatever the
    planner estimates, where a join against the batch's aggregated bodies could be planned as
    a nested loop that aggregates them again for every story (fresh rows, stale estimates)."""
    search, story = StorySearch._meta.db_table, Story._meta.db_table
    section, paragraph = Section._meta.db_table, Paragraph._meta.db_table
    published = Story.Status.PUBLISHED
    return f"""
        WITH dropped AS (
            DELETE FROM {search} d USING {story} s
            WHERE d.story_id = s.id AND s.id = ANY(%(ids)s) AND s.status <> '{published}'
        )
        INSERT INTO {search} (story_id, document)
        SELECT s.id,
               setweight(to_tsvector('english', s.headline), 'A')
               || setweight(to_tsvector('english', s.dek), 'B')
               || setweight(to_tsvector('english', coalesce((
                      SELECT string_agg(p.markdown, ' ' ORDER BY sec.position, sec.id, p.position, p.id)
                      FROM {section} sec JOIN {paragraph} p ON p.section_id = sec.id
                      WHERE sec.story_id = s.id
                  ), '')), 'C')
        FROM {story} s
        WHERE s.id = ANY(%(ids)s) AND s.status = '{published}'
        ON CONFLICT (story_id) DO UPDATE SET document = EXCLUDED.document
    """


def _to_refresh(ids) -> list:
    """The distinct ids, in order; none where there are no search documents (not PostgreSQL)."""
    return list(dict.fromkeys(ids)) if connection.vendor == "postgresql" else []


def refresh(ids) -> None:
    """Rewrite the search documents of the stories ``ids`` as they are stored now (call in
    the action's transaction, after its writes): one statement. Within ``held``, the ids
    are kept for the block's owner to refresh (``send_refresh``) instead."""
    ids = _to_refresh(ids)
    if not ids:
        return
    held = _HELD.get()
    if held is not None:
        held += ids
        return
    with connection.cursor() as cursor:
        cursor.execute(_sql(), {"ids": ids})


@contextlib.contextmanager
def held():
    """Within the block, ``refresh`` keeps the ids it is given, in the list this yields,
    for the caller to refresh once the block's writes are done (``send_refresh``)."""
    ids: list = []
    token = _HELD.set(ids)
    try:
        yield ids
    finally:
        _HELD.reset(token)


def send_refresh(ids) -> None:
    """``refresh(ids)`` sent without waiting for it (``newsroom.infra.inflight``): the caller
    goes on with work that does not use the database while PostgreSQL computes the
    documents, and the statement's result is read before the next one."""
    ids = _to_refresh(ids)
    if ids:
        inflight.send(_sql().replace("%(ids)s", "$1::text[]"), [text_array(ids)])


def refresh_all(batch: int = 5000) -> int:
    """Rewrite every published story's document (a new database, an archive loaded by other
    means): in batches of ``batch`` stories, each one statement. Returns how many stories
    were read."""
    if connection.vendor != "postgresql":
        return 0
    done, last = 0, ""
    while True:
        ids = list(
            Story.objects.filter(status=Story.Status.PUBLISHED, pk__gt=last)
            .order_by("pk")
            .values_list("pk", flat=True)[:batch]
        )
        if not ids:
            return done
        refresh(ids)
        done, last = done + len(ids), ids[-1]
