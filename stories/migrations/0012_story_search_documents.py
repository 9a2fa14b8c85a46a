"""The search documents of published stories (``StorySearch``), GIN-indexed on PostgreSQL.

On PostgreSQL the GIN index is made and every published story's document is written, in one
statement, as ``stories.search_index`` writes it (so a large archive spends that statement's
time here once, instead of every search reading every paragraph); Django's LIKE copy of the
table's text primary key is dropped (nothing looks a story's id up with LIKE). On other
databases search reads the text itself and the table stays empty.
"""

from django.db import migrations

INDEX = "storysearch_document"

BACKFILL = """
    INSERT INTO stories_storysearch (story_id, document)
    SELECT s.id,
           setweight(to_tsvector('english', s.headline), 'A')
           || setweight(to_tsvector('english', s.dek), 'B')
           || setweight(to_tsvector('english', coalesce(body.text, '')), 'C')
    FROM stories_story s
    LEFT JOIN (
        SELECT sec.story_id, string_agg(p.markdown, ' ' ORDER BY sec.position, sec.id, p.position, p.id) AS text
        FROM stories_paragraph p JOIN stories_section sec ON sec.id = p.section_id
        GROUP BY sec.story_id
    ) body ON body.story_id = s.id
    WHERE s.status = 'published'
"""


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
            "AND tablename = 'stories_storysearch' AND indexdef LIKE '%%pattern_ops%%'"
        )
        for (name,) in cursor.fetchall():
            schema_editor.execute(f"DROP INDEX {schema_editor.connection.ops.quote_name(name)}")
    schema_editor.execute(f"CREATE INDEX {INDEX} ON stories_storysearch USING gin (document)")
    schema_editor.execute(BACKFILL)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [
        ("stories", "0011_story_search"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
