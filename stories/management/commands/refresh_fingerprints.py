"""Compute the ``StoryFingerprint`` of every story (or the given ones): for data imported
before fingerprints existed, or after changing the fingerprint recipe."""

from django.core.management.base import BaseCommand
from django.db import transaction

from stories import desk
from stories.fingerprints import fingerprint_of
from stories.models import Story, StoryFingerprint

BATCH = 500


class Command(BaseCommand):
    help = "Recompute the fingerprints that not_a_repeat compares (all stories, or the given ids)."

    def add_arguments(self, parser):
        parser.add_argument("ids", nargs="*", metavar="ID")

    def handle(self, *args, ids, **options):
        qs = Story.objects.order_by("pk")
        if ids:
            qs = qs.filter(pk__in=ids)
        pks = list(qs.values_list("pk", flat=True))
        for start in range(0, len(pks), BATCH):
            batch = Story.objects.with_everything().filter(pk__in=pks[start : start + BATCH])
            rows = []
            for story in batch:
                sig, claim_ids = fingerprint_of(desk.stored_fields(story))
                rows.append(StoryFingerprint(story=story, minhash=sig, claim_ids=claim_ids))
            with transaction.atomic():
                StoryFingerprint.objects.filter(story_id__in=[r.story_id for r in rows]).delete()
                StoryFingerprint.objects.bulk_create(rows)
        self.stdout.write(f"fingerprints: {len(pks)} refreshed")
