"""Import hangingcontext.manifests/1 files; upsert by id."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from manifests import formats
from newsroom.infra.jsondoc import FormatError, loads


class Command(BaseCommand):
    help = "Import hangingcontext.manifests/1 files: manifests and their claims, upserted by id."

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE")

    def handle(self, *args, files, **options):
        counts = {"created": 0, "updated": 0, "unchanged": 0}
        failed = []
        for name in files:
            try:
                for outcome, n in formats.import_manifests_document(loads(Path(name).read_bytes())).items():
                    counts[outcome] += n
            except FormatError as exc:
                failed.append(name)
                self.stderr.write(f"{name}: {exc} (nothing imported from this file)")
            except OSError as exc:
                failed.append(name)
                self.stderr.write(f"{name}: cannot read: {exc.strerror or exc}")
        self.stdout.write(
            f"manifests: {counts['created']} created, {counts['updated']} updated, {counts['unchanged']} unchanged"
        )
        if failed:
            raise CommandError(f"{len(failed)} file(s) rejected: {', '.join(failed)}")
