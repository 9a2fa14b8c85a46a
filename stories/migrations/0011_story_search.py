"""The search document of each published story (``StorySearch``): the table; the next
migration indexes it and writes the documents."""

import django.contrib.postgres.search
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("stories", "0010_text_key_indexes"),
    ]

    operations = [
        migrations.CreateModel(
            name="StorySearch",
            fields=[
                (
                    "story",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="search",
                        serialize=False,
                        to="stories.story",
                    ),
                ),
                ("document", django.contrib.postgres.search.SearchVectorField()),
            ],
        ),
    ]
