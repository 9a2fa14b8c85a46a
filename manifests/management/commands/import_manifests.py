"""Import hangingcontext.manifests/1 files; upsert by id.

A file that would change a manifest or claim that a published story cites (its fields, a
claim's text or ``self_reported``) is refused as a whole, naming the manifest and the
stories; adding claims and giving stub claims their text are allowed (and audited on the
citing stories). See docs/editor-guide.md, "Editing a cited claim"."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from manifests import formats
from newsroom.infra.jsondoc import FormatError, loads


class Command(BaseCommand):
    help = (
        "Import hangingcontext.manifests/1 files: manifests and their claims, upserted by id. "
        "A file that would change a source cited by a published story is refused as a whole."
    )

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
