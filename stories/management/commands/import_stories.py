"""Import desk/1 stories: one per .json file, one per line of a .jsonl file; upsert by id."""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from stories import desk


class Command(BaseCommand):
    help = "Import hangingcontext.desk/1 stories (.json: one story; .jsonl: one per line). Upserts by story id."

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE")

    def handle(self, *args, files, **options):
        counts = {"created": 0, "updated": 0, "unchanged": 0}
        failed = []
        for name in files:
            try:
                for outcome, n in import_file(Path(name), progress=self._progress).items():
                    counts[outcome] += n
            except desk.DeskError as exc:
                failed.append(name)
                self.stderr.write(f"{name}: {exc} (nothing imported from this file)")
            except OSError as exc:
                failed.append(name)
                self.stderr.write(f"{name}: cannot read: {exc.strerror or exc}")
        self.stdout.write(
            f"stories: {counts['created']} created, {counts['updated']} updated, {counts['unchanged']} unchanged"
        )
        if failed:
            raise CommandError(f"{len(failed)} file(s) rejected: {', '.join(failed)}")

    def _progress(self, n: int) -> None:
        if self.stderr.isatty() and n % 100 == 0:
            self.stderr.write(f"\r{n} stories", ending="")
            self.stderr.flush()


def import_file(path: Path, *, progress=None) -> dict[str, int]:
    """Import one file atomically: on any error nothing from the file is written.
    Errors name the file's line (JSONL) and the JSON path."""
    counts = {"created": 0, "updated": 0, "unchanged": 0}
    with transaction.atomic():
        if path.suffix == ".jsonl":
            with path.open("rb") as fh:
                for lineno, line in enumerate(fh, start=1):
                    if not line.strip():
                        continue
                    try:
                        doc = desk.parse(line)
                        counts[desk.import_story(doc).outcome] += 1
                    except desk.DeskError as exc:
                        raise desk.DeskError(f"line {lineno}: {exc.path}", exc.message) from None
                    if progress:
                        progress(sum(counts.values()))
        else:
            doc = desk.parse(path.read_bytes())
            counts[desk.import_story(doc).outcome] += 1
    return counts
