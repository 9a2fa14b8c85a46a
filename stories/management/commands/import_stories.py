"""Import desk/1 stories: one per .json file, one per line of a .jsonl file; upsert by id.

Through the gate: a story marked as published is published by the publish action, checks
included; one the checks refuse is imported as a draft, named with its file, line and
failing criteria, and the command exits non-zero. ``--restore`` restores a backup: every
story keeps the state it was exported in (no checks), audited as ``restore``."""

import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction

from newsroom.infra.bulk import few_collections
from stories import actions, desk

BATCH_SIZE = 500  # documents validated, then written together (stories.actions.bulk)
PROGRESS_INTERVAL = 0.2  # seconds between redraws of the progress bar
BAR_WIDTH = 30


class Command(BaseCommand):
    help = (
        "Import hangingcontext.desk/1 stories (.json: one story; .jsonl: one per line). Upserts by story id. "
        "Stories marked as published are published only when they pass the checks (otherwise imported as drafts)."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument(
            "--restore",
            action="store_true",
            help="Restore a backup (export_stories): keep every story's state as exported, run no checks; "
            "audited as restore.",
        )

    def handle(self, *args, files, restore=False, **options):
        counts = {"created": 0, "updated": 0, "unchanged": 0}
        failed, held = [], 0
        for name in files:
            progress = Progress(self.stderr, name)
            refused = []
            try:
                file_counts = import_file(Path(name), progress=progress, restore=restore, refused=refused)
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
            for entry in refused:
                self.stderr.write(f"{name}:{entry.line}: {refusal(entry)}")
            held += len(refused)
        self.stdout.write(
            f"stories: {counts['created']} created, {counts['updated']} updated, {counts['unchanged']} unchanged"
        )
        problems = []
        if failed:
            problems.append(f"{len(failed)} file(s) rejected: {', '.join(failed)}")
        if held:
            problems.append(
                f"{held} {'story' if held == 1 else 'stories'} not published (imported as drafts): the checks failed"
            )
        if problems:
            raise CommandError("; ".join(problems))


def refusal(entry: actions.Refused) -> str:
    """What to tell of a story the checks refused to publish: the criteria that failed."""
    return (
        f"story {entry.story_id} imported as a draft, not published: the checks failed "
        f"(score {entry.score:.2f}; failing: {', '.join(entry.failing)})"
    )


class Progress:
    """A progress bar on a terminal: share of the file's bytes read, stories read, rate and
    time left, redrawn as lines are read, at most every ``PROGRESS_INTERVAL`` seconds; silent
    when standard error is not a terminal (logs, CI)."""

    def __init__(self, out, name: str):
        self.out, self.name = out, name
        self.tty = out.isatty()
        self.total = self.read = self.count = 0
        self.started = self.drawn_at = time.monotonic()
        self.shown = None

    def start(self, total_bytes: int) -> None:
        self.total = total_bytes
        self.started = time.monotonic()

    def __call__(self, read_bytes: int, count: int) -> None:
        self.read, self.count = read_bytes, count
        if self.tty and self.shown != (read_bytes, count) and time.monotonic() - self.drawn_at >= PROGRESS_INTERVAL:
            self._show()

    def _show(self) -> None:
        now = time.monotonic()
        share = min(1.0, self.read / self.total) if self.total else 1.0
        filled = round(share * BAR_WIDTH)
        elapsed = now - self.started
        rate = self.count / elapsed if elapsed > 0 else 0.0
        # Time left from the bytes still to read at the bytes-per-second so far.
        eta = elapsed * (1 - share) / share if share > 0 else None
        line = (
            f"\r{self.name}: [{'#' * filled}{'-' * (BAR_WIDTH - filled)}] {share:4.0%} "
            f"{self.count} {'story' if self.count == 1 else 'stories'}, {rate:.0f}/s, ETA {_clock(eta)}"
        )
        # Plain text (the stderr wrapper would colour it as an error); \x1b[K clears what a
        # longer line drawn before left behind.
        self.out.write(line + "\x1b[K", ending="", style_func=str)
        self.out.flush()
        self.drawn_at, self.shown = now, (self.read, self.count)

    def done(self) -> None:
        """Draw the final state and end the line, so that later output starts on its own."""
        if self.tty and self.count:
            if self.shown != (self.read, self.count):
                self._show()
            self.out.write("", style_func=str)


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "--:--"
    minutes, secs = divmod(int(seconds + 0.5), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


def import_file(
    path: Path, *, progress=None, batch_size: int | None = None, restore: bool = False, refused: list | None = None
) -> dict[str, int]:
    """Import one file atomically: on any error nothing from the file is written. A story
    the checks refuse to publish is no error: it is imported as a draft, and its
    ``actions.Refused`` (line, story id, score, failing criteria) added to ``refused``.
    A ``.jsonl`` file is read line by line (never whole into memory), inside one transaction,
    ``BATCH_SIZE`` documents at a time: each is validated, then the batch is written
    (``stories.actions.Importer``, which publishes what it wrote in file order, while it
    writes what comes next). Errors name the file's line (JSONL) and the JSON path; the first
    error in the file's order is the one reported."""
    batch_size = batch_size or BATCH_SIZE
    counts = {"created": 0, "updated": 0, "unchanged": 0}
    refused = [] if refused is None else refused

    def write(batch) -> None:
        importer.add(batch)
        # With DEBUG on, Django keeps the last 9,000 queries' SQL, and a batch's INSERTs are
        # megabytes each: drop them (unless a test is capturing queries).
        if not connection.force_debug_cursor:
            connection.queries_log.clear()

    with transaction.atomic(), few_collections(), actions.Importer(counts, restore=restore) as importer:
        if path.suffix.lower() == ".jsonl":
            with path.open("rb") as fh:
                if progress:
                    progress.start(path.stat().st_size)
                batch, read = [], 0
                for lineno, line in enumerate(fh, start=1):
                    read += len(line)
                    if not line.strip():
                        continue
                    try:
                        doc = desk.parse(line)
                    except desk.DeskError as exc:
                        write(batch)  # an error on an earlier line comes first
                        raise desk.DeskError(f"line {lineno}: {exc.path}", exc.message) from None
                    batch.append((lineno, doc))
                    if len(batch) >= batch_size:
                        write(batch)
                        batch = []
                    if progress:
                        progress(read, sum(counts.values()) + len(batch))
                write(batch)
                refused.extend(importer.finish())
                if progress:
                    progress(read, sum(counts.values()))
        else:
            if progress:
                progress.start(path.stat().st_size)
            data = path.read_bytes()
            doc = desk.parse(data)
            result = actions.import_story(doc, restore=restore)
            counts[result.outcome] += 1
            if result.refused is not None:
                refused.append(actions.Refused.of(1, result.story, result.refused))
            if progress:
                progress(len(data), 1)
    return counts
