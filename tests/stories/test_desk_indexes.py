"""The story tables' indexes: each one a query or a constraint uses, none kept twice.

Every row a story writes (its sections, paragraphs, key facts, cites, claims, revisions,
audit rows) updates every index of its table, so an index that nothing reads is a cost
without a use."""

import pytest
from django.apps import apps
from django.db import connection

from stories.models import CiteClaim, Revision, Story

pytestmark = pytest.mark.django_db


def _indexes(table: str) -> dict[str, dict]:
    with connection.cursor() as cursor:
        return {
            name: c
            for name, c in connection.introspection.get_constraints(cursor, table).items()
            if c["index"] or c["unique"] or c["primary_key"]
        }


def _story_tables() -> list[str]:
    return sorted(m._meta.db_table for m in apps.get_app_config("stories").get_models())


@pytest.mark.skipif(connection.vendor != "postgresql", reason="pattern-ops indexes are PostgreSQL's")
def test_no_text_key_has_a_pattern_ops_copy_but_the_primary_keys():
    """Django adds a ``varchar_pattern_ops`` copy (for LIKE) of each indexed text column; no
    query of a story table's keys uses LIKE. Django adds one to a text primary key whatever
    the model says: those two remain."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tablename, indexname FROM pg_indexes WHERE schemaname = current_schema() "
            "AND tablename = ANY(%s) AND indexdef LIKE %s ORDER BY 1",
            [_story_tables(), "%pattern_ops%"],
        )
        copies = cursor.fetchall()
    assert [table for table, _ in copies] == ["stories_story", "stories_storyfingerprint"]
    assert all(name.endswith("_like") for _, name in copies)


def test_no_index_is_the_start_of_another():
    """A plain index on the columns another index starts with (a longer one, or a unique one
    on the same columns) is that index again."""
    redundant = []
    for table in _story_tables():
        found = _indexes(table)
        for name, c in found.items():
            if c["unique"] or c["primary_key"] or name.endswith("_like"):
                continue
            cols = c["columns"]
            for other, o in found.items():
                starts = other != name and o["columns"][: len(cols)] == cols
                if starts and (len(o["columns"]) > len(cols) or o["unique"] or o["primary_key"]):
                    redundant.append((table, name, other))
    assert redundant == []


def test_the_keys_the_pages_and_checks_look_up_are_indexed():
    def leads(model, column: str) -> bool:
        return any(c["columns"][:1] == [column] for c in _indexes(model._meta.db_table).values())

    assert leads(CiteClaim, "claim_id") and leads(CiteClaim, "cite_id")  # the latter by cite_claim_once
    assert leads(Revision, "story_id")  # by revision_once_per_version
    assert leads(Story, "edition_id") and leads(Story, "slug") and leads(Story, "draft_of_id")
    for name in ("section", "keyfact", "image", "relatedlink", "correction", "auditentry", "checkresult"):
        assert leads(apps.get_model("stories", name), "story_id"), name
