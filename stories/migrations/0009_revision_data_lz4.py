"""Revisions' documents compressed with lz4 on PostgreSQL.

A revision holds a story's whole desk/1 document (about 14 kB for the demo story), which
PostgreSQL compresses when it stores it and decompresses whenever a page, a feed or the API
reads it. lz4 does both several times faster than PostgreSQL's default (pglz). Values
already stored keep their compression until rewritten. Nothing on other databases, or on a
PostgreSQL server built without lz4 (or older than 14).
"""

from django.db import migrations

TABLE, COLUMN = "stories_revision", "data"


def _lz4_available(connection) -> bool:
    if connection.vendor != "postgresql" or connection.pg_version < 140000:
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'")
        row = cursor.fetchone()
    return bool(row and row[0])


def _set_compression(method: str):
    def run(apps, schema_editor):
        connection = schema_editor.connection
        if _lz4_available(connection):
            qn = connection.ops.quote_name
            schema_editor.execute(f"ALTER TABLE {qn(TABLE)} ALTER COLUMN {qn(COLUMN)} SET COMPRESSION {method}")

    return run


class Migration(migrations.Migration):
    dependencies = [("stories", "0008_paragraph_stored_html")]

    operations = [migrations.RunPython(_set_compression("lz4"), _set_compression("default"))]
