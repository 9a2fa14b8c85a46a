"""Import desk/1 stories: one per .json file, one per line of a .jsonl file; upsert by id."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from stories import desk

PROGRESS_EVERY = 100


class Command(BaseCommand):
    help = "Import hangingcontext.desk/1 stories (.json: one story; .jsonl: one per line). Upserts by story id."

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE")

    def handle(self, *args, files, **options):
        counts = {"created": 0, "updated": 0, "unchanged": 0}
        failed = []
        for name in files:
            progress = Progress(self.stderr, name)
            try:
                file_counts = import_file(Path(name), progress=progress)
            except desk.DeskError as exc:
                progress.done()
                failed.append(name)
                self.stderr.write(f"{name}: {exc} (nothing imported from this file)")
                continue
            except OSError as exc:
                progress.done()
                failed.append(name)
                self.stderr.write(f"{name}: cannot read: {exc.strerror or exc}")
                continue
            progress.done()
            for outcome, n in file_counts.items():
                counts[outcome] += n
        self.stdout.write(
            f"stories: {counts['created']} created, {counts['updated']} updated, {counts['unchanged']} unchanged"
        )
        if failed:
            raise CommandError(f"{len(failed)} file(s) rejected: {', '.join(failed)}")


class Progress:
    """A line on a terminal counting the stories read from a file, redrawn every
    ``PROGRESS_EVERY`` stories; silent when standard error is not a terminal (logs, CI)."""

    def __init__(self, out, name: str):
        self.out, self.name, self.count, self.shown = out, name, 0, 0
        self.tty = out.isatty()

    def __call__(self, n: int) -> None:
        self.count = n
        if self.tty and n % PROGRESS_EVERY == 0:
            self._show(n)

    def _show(self, n: int) -> None:
        # Plain text: the stderr wrapper would colour it as an error otherwise.
        self.out.write(f"\r{self.name}: {n} {'story' if n == 1 else 'stories'} read", ending="", style_func=str)
        self.out.flush()
        self.shown = n

    def done(self) -> None:
        """Finish the line (with the final count) so that later output starts on its own."""
        if self.tty and self.count:
            if self.count != self.shown:
                self._show(self.count)
            self.out.write("", style_func=str)


def import_file(path: Path, *, progress=None) -> dict[str, int]:
    """Import one file atomically: on any error nothing from the file is written.
    A ``.jsonl`` file is read line by line (never whole into memory), inside one transaction.
    Errors name the file's line (JSONL) and the JSON path."""
    counts = {"created": 0, "updated": 0, "unchanged": 0}
    with transaction.atomic():
        if path.suffix.lower() == ".jsonl":
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
            if progress:
                progress(1)
    return counts
