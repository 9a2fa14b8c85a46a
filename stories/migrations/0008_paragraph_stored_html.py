from django.db import migrations, models


def fill_html(apps, schema_editor):
    """Every stored paragraph's Markdown rendered once, as the commit step now stores it."""
    from stories.markup import to_html

    Paragraph = apps.get_model("stories", "Paragraph")
    batch = []
    for p in Paragraph.objects.only("id", "markdown").iterator(chunk_size=2000):
        p.html = to_html(p.markdown)
        batch.append(p)
        if len(batch) == 2000:
            Paragraph.objects.bulk_update(batch, ["html"])
            batch = []
    Paragraph.objects.bulk_update(batch, ["html"])


class Migration(migrations.Migration):
    dependencies = [
        ("stories", "0007_story_review"),
    ]

    operations = [
        migrations.AddField(
            model_name="paragraph",
            name="html",
            field=models.TextField(blank=True, default="", editable=False),
        ),
        migrations.RunPython(fill_html, migrations.RunPython.noop, elidable=True),
    ]
