"""Load the demo newsroom: the demo story and its manifests (demo/). Idempotent."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import transaction

from manifests import formats
from newsroom.infra.jsondoc import loads
from newsroom.models import SiteProfile
from stories import desk

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
                story_counts[desk.import_story(desk.parse(path.read_bytes()), action="loaddemo").outcome] += 1
        self.stdout.write(
            "demo: manifests {created} created, {updated} updated, {unchanged} unchanged; ".format(**manifest_counts)
            + "stories {created} created, {updated} updated, {unchanged} unchanged".format(**story_counts)
        )
