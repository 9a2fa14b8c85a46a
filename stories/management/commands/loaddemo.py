"""Load the demo newsroom: the demo story and its manifests (demo/). Idempotent.

The story goes through the actions like any import, audited as ``loaddemo``, and is
published by the publish action (it passes its checks)."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from manifests import formats
from newsroom.infra.jsondoc import loads
from newsroom.models import SiteProfile
from stories import actions, desk

DEMO_DIR = Path(settings.BASE_DIR) / "demo"


class Command(BaseCommand):
    help = "Load the demo newsroom (the demo story and its four manifests). Running it twice changes nothing."

    def handle(self, **options):
        with transaction.atomic():
            SiteProfile.load()
            manifest_counts = {"created": 0, "updated": 0, "unchanged": 0}
            for path in sorted(DEMO_DIR.glob("*.manifests.json")):
                for k, v in formats.import_manifests_document(loads(path.read_bytes())).items():
                    manifest_counts[k] += v
            story_counts = {"created": 0, "updated": 0, "unchanged": 0}
            for path in sorted(DEMO_DIR.glob("*.json")):
                if path.name.endswith(".manifests.json"):
                    continue
                result = actions.import_story(desk.parse(path.read_bytes()), action="loaddemo")
                if result.refused is not None:
                    raise CommandError(f"{path.name}: the demo story does not pass its checks; nothing loaded")
                story_counts[result.outcome] += 1
        self.stdout.write(
            "demo: manifests {created} created, {updated} updated, {unchanged} unchanged; ".format(**manifest_counts)
            + "stories {created} created, {updated} updated, {unchanged} unchanged".format(**story_counts)
        )
