"""The desk's two roles. Editor: everything on stories, including publishing, overriding
the checks (with a reason) and recording corrections. Writer: edits drafts and runs the
checks; cannot publish, schedule, override or correct."""

from django.db import migrations

STORY_PARTS = ["story", "section", "paragraph", "keyfact", "cite", "citeclaim", "image", "relatedlink"]
READ_ONLY = ["correction", "revision", "auditentry", "checkresult", "storyfingerprint"]

WRITER = (
    # A writer drafts and edits stories and their parts; deleting a whole story is an editor's call.
    [
        f"stories.{verb}_{model}"
        for model in STORY_PARTS
        for verb in ("add", "change", "delete", "view")
        if (model, verb) != ("story", "delete")
    ]
    + [f"stories.view_{model}" for model in READ_ONLY]
    # Choosing a manifest and its claims for a cite needs to see them (admin autocomplete).
    + ["manifests.view_manifest", "manifests.view_claim", "manifests.view_publisher"]
    + ["newsroom.view_newsroom", "newsroom.view_beat", "newsroom.view_edition"]
    # A new story needs its hourly edition, which may not exist yet.
    + ["newsroom.add_edition"]
)
EDITOR = WRITER + [
    "stories.delete_story",
    "stories.publish_story",
    "stories.override_checks",
    "stories.add_correction",
    "manifests.add_manifest",
    "manifests.change_manifest",
    "manifests.add_claim",
    "manifests.change_claim",
    "manifests.add_publisher",
    "manifests.change_publisher",
    "newsroom.add_beat",
    "newsroom.change_beat",
]


def _ensure_permissions(apps):
    # Permissions are normally created after *all* migrations (post_migrate); a fresh
    # database has none yet at this point, so create them now.
    from django.contrib.auth.management import create_permissions

    for label in ("stories", "manifests", "newsroom"):
        config = apps.get_app_config(label)
        config.models_module = True
        create_permissions(config, verbosity=0, apps=apps)
        config.models_module = None


def create_groups(apps, schema_editor):
    _ensure_permissions(apps)
    fill_groups(apps)


def fill_groups(apps):
    """Create the groups with their permissions (which must exist). Also run after every
    migrate and flush by ``stories.apps.ensure_groups``."""
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for name, perms in (("Writer", WRITER), ("Editor", EDITOR)):
        group, _ = Group.objects.get_or_create(name=name)
        wanted = []
        for perm in perms:
            app_label, codename = perm.split(".")
            wanted.append(Permission.objects.get(content_type__app_label=app_label, codename=codename))
        group.permissions.add(*wanted)


def remove_groups(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=["Writer", "Editor"]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("stories", "0001_initial"),
        ("manifests", "0001_initial"),
        ("newsroom", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_groups, remove_groups)]
