import importlib

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def ensure_groups(sender, using="default", **kwargs):
    """Keep the Editor and Writer groups present after every migrate and flush (a test
    flush empties auth tables; the data migration that made them does not run again)."""
    from django.apps import apps as global_apps
    from django.contrib.auth.models import Group

    if Group.objects.using(using).filter(name__in=["Editor", "Writer"]).count() == 2:
        return
    roles = importlib.import_module("stories.migrations.0002_editor_and_writer_groups")
    roles.fill_groups(global_apps)


class StoriesConfig(AppConfig):
    name = "stories"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from . import cache
        from .actions import sources

        cache.connect()
        sources.connect()
        post_migrate.connect(ensure_groups, sender=self, dispatch_uid="stories.ensure_groups")
