"""The stories' text keys indexed once.

On PostgreSQL, Django gives each indexed text column (a story id in a foreign key, a slug) a
second index with ``varchar_pattern_ops``, for ``LIKE 'prefix%'``; no query of these columns
uses LIKE, and every row written has to update both. Some single-column indexes were also
covered by a unique index that starts with the same column (a cite's claims, a story's
revisions, a story's pending draft, an editor's autosaves), and four were on columns no
query looks up (a story's audience, trust label and partner, a related link's slug).

The state moves the kept indexes to ``Meta.indexes`` (no pattern-ops copy). The database
keeps each kept index, renamed, rather than building it again, and drops the rest: on a
large archive this takes moments, not an index build or a foreign key's re-validation.
"""

from django.conf import settings
from django.db import migrations, models

import django.db.models.deletion

# (model, column, the name its index is kept under; None: its indexes are dropped)
CHANGES = [
    ("auditentry", "story_id", "auditentry_story"),
    ("autosave", "user_id", None),  # autosave_one_per_user_and_story (user_id, key)
    ("checkresult", "story_id", "checkresult_story"),
    ("cite", "manifest_id", "cite_manifest"),
    ("citeclaim", "cite_id", None),  # cite_claim_once (cite_id, claim_id)
    ("citeclaim", "claim_id", "citeclaim_claim"),
    ("correction", "story_id", "correction_story"),
    ("image", "story_id", "image_story"),
    ("keyfact", "story_id", "keyfact_story"),
    ("relatedlink", "slug", None),
    ("relatedlink", "story_id", "relatedlink_story"),
    ("revision", "story_id", None),  # revision_once_per_version (story_id, version)
    ("section", "story_id", "section_story"),
    ("story", "audience", None),
    ("story", "created_by_partner", None),
    ("story", "draft_of_id", None),  # story_one_pending_draft (draft_of_id)
    ("story", "edition_id", "story_edition"),
    ("story", "slug", "story_slug"),
    ("story", "trust", None),
]


def _django_indexes(schema_editor, table: str, column: str) -> tuple[str, str]:
    """The names Django gave the column's index and its pattern-ops copy (other indexes an
    operator may have added are left alone)."""
    plain = schema_editor._create_index_name(table, [column])
    return plain, schema_editor._create_index_name(table, [column], suffix="_like")


def forwards(apps, schema_editor):
    connection = schema_editor.connection
    qn = connection.ops.quote_name
    for model_name, column, kept in CHANGES:
        table = apps.get_model("stories", model_name)._meta.db_table
        plain, like = _django_indexes(schema_editor, table, column)
        with connection.cursor() as cursor:
            present = connection.introspection.get_constraints(cursor, table)
        if like in present:
            schema_editor.execute(f"DROP INDEX {qn(like)}")
        if kept is None:
            if plain in present:
                schema_editor.execute(f"DROP INDEX {qn(plain)}")
        elif plain in present and connection.features.can_rename_index:
            schema_editor.execute(f"ALTER INDEX {qn(plain)} RENAME TO {qn(kept)}")
        else:
            if plain in present:
                schema_editor.execute(f"DROP INDEX {qn(plain)}")
            schema_editor.execute(f"CREATE INDEX {qn(kept)} ON {qn(table)} ({qn(column)})")


def backwards(apps, schema_editor):
    """Django's own indexes again: each column's, and on PostgreSQL its pattern-ops copy."""
    qn = schema_editor.connection.ops.quote_name
    postgresql = schema_editor.connection.vendor == "postgresql"
    for model_name, column, kept in CHANGES:
        meta = apps.get_model("stories", model_name)._meta
        table = meta.db_table
        field = next(f for f in meta.concrete_fields if f.column == column)
        plain, like = _django_indexes(schema_editor, table, column)
        if kept is not None:
            schema_editor.execute(f"DROP INDEX IF EXISTS {qn(kept)}")
        schema_editor.execute(f"CREATE INDEX {qn(plain)} ON {qn(table)} ({qn(column)})")
        if postgresql and field.db_type(schema_editor.connection).startswith("varchar"):
            schema_editor.execute(f"CREATE INDEX {qn(like)} ON {qn(table)} ({qn(column)} varchar_pattern_ops)")


class Migration(migrations.Migration):
    dependencies = [
        ("manifests", "0002_alter_manifest_source_url"),
        ("newsroom", "0002_site_profile_trust_and_policies"),
        ("stories", "0009_revision_data_lz4"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(forwards, backwards)],
            state_operations=[
                migrations.AlterField(
                    model_name="autosave",
                    name="user",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                migrations.AlterField(
                    model_name="auditentry",
                    name="story",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="audit_entries",
                        to="stories.story",
                    ),
                ),
                migrations.AlterField(
                    model_name="checkresult",
                    name="story",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="check_results",
                        to="stories.story",
                    ),
                ),
                migrations.AlterField(
                    model_name="cite",
                    name="manifest",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="cites",
                        to="manifests.manifest",
                    ),
                ),
                migrations.AlterField(
                    model_name="citeclaim",
                    name="cite",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="claims",
                        to="stories.cite",
                    ),
                ),
                migrations.AlterField(
                    model_name="citeclaim",
                    name="claim",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="citations",
                        to="manifests.claim",
                    ),
                ),
                migrations.AlterField(
                    model_name="correction",
                    name="story",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="corrections",
                        to="stories.story",
                    ),
                ),
                migrations.AlterField(
                    model_name="image",
                    name="story",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="images",
                        to="stories.story",
                    ),
                ),
                migrations.AlterField(
                    model_name="keyfact",
                    name="story",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="key_facts",
                        to="stories.story",
                    ),
                ),
                migrations.AlterField(
                    model_name="relatedlink",
                    name="slug",
                    field=models.SlugField(blank=True, db_index=False, max_length=200),
                ),
                migrations.AlterField(
                    model_name="relatedlink",
                    name="story",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="related_links",
                        to="stories.story",
                    ),
                ),
                migrations.AlterField(
                    model_name="revision",
                    name="story",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="revisions",
                        to="stories.story",
                    ),
                ),
                migrations.AlterField(
                    model_name="section",
                    name="story",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="sections",
                        to="stories.story",
                    ),
                ),
                migrations.AlterField(
                    model_name="story",
                    name="audience",
                    field=models.SlugField(blank=True, db_index=False, max_length=100),
                ),
                migrations.AlterField(
                    model_name="story",
                    name="created_by_partner",
                    field=models.SlugField(
                        blank=True,
                        db_index=False,
                        help_text="The syndication partner whose API key submitted the story (its slug).",
                        max_length=100,
                    ),
                ),
                migrations.AlterField(
                    model_name="story",
                    name="draft_of",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        help_text="For pending changes to a live story: the live story they will replace when published.",
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="pending_drafts",
                        to="stories.story",
                    ),
                ),
                migrations.AlterField(
                    model_name="story",
                    name="edition",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="stories",
                        to="newsroom.edition",
                    ),
                ),
                migrations.AlterField(
                    model_name="story",
                    name="slug",
                    field=models.SlugField(db_index=False, max_length=200),
                ),
                migrations.AlterField(
                    model_name="story",
                    name="trust",
                    field=models.SlugField(
                        db_index=False, default="reported", help_text="The editorial label, e.g. reported."
                    ),
                ),
                migrations.AddIndex(
                    model_name="auditentry",
                    index=models.Index(fields=["story"], name="auditentry_story"),
                ),
                migrations.AddIndex(
                    model_name="checkresult",
                    index=models.Index(fields=["story"], name="checkresult_story"),
                ),
                migrations.AddIndex(
                    model_name="cite",
                    index=models.Index(fields=["manifest"], name="cite_manifest"),
                ),
                migrations.AddIndex(
                    model_name="citeclaim",
                    index=models.Index(fields=["claim"], name="citeclaim_claim"),
                ),
                migrations.AddIndex(
                    model_name="correction",
                    index=models.Index(fields=["story"], name="correction_story"),
                ),
                migrations.AddIndex(
                    model_name="image",
                    index=models.Index(fields=["story"], name="image_story"),
                ),
                migrations.AddIndex(
                    model_name="keyfact",
                    index=models.Index(fields=["story"], name="keyfact_story"),
                ),
                migrations.AddIndex(
                    model_name="relatedlink",
                    index=models.Index(fields=["story"], name="relatedlink_story"),
                ),
                migrations.AddIndex(
                    model_name="section",
                    index=models.Index(fields=["story"], name="section_story"),
                ),
                migrations.AddIndex(
                    model_name="story",
                    index=models.Index(fields=["edition"], name="story_edition"),
                ),
                migrations.AddIndex(
                    model_name="story",
                    index=models.Index(fields=["slug"], name="story_slug"),
                ),
            ],
        ),
    ]
