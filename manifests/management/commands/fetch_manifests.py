"""Fetch manifests and their claims from the manifest provider, by id or every one with stub claims."""

from django.core.management.base import BaseCommand, CommandError

from manifests import provider

# On a terminal only: the bar redraws one line (\r, then erase to the end of the line).
BAR_WIDTH = 30


class Command(BaseCommand):
    help = (
        "Fetch manifests and their claims from the manifest provider (MANIFEST_PROVIDER_URL) and upsert them. "
        "Exits 1 when a fetch failed, or when an id given on the command line was not found."
    )

    def add_arguments(self, parser):
        parser.add_argument("ids", nargs="*", metavar="ID", help="manifest ids to fetch")
        parser.add_argument(
            "--missing", action="store_true", help="also every manifest with claims that have no text yet (stubs)"
        )
        parser.add_argument(
            "--force", action="store_true", help="fetch even manifests fetched within MANIFEST_PROVIDER_FRESH_HOURS"
        )

    def handle(self, *args, ids, missing, force, verbosity, **options):
        if not ids and not missing:
            raise CommandError("name manifest ids, or use --missing")
        wanted = list(dict.fromkeys([*ids, *(provider.missing_manifest_ids() if missing else [])]))
        bar = self.stderr.isatty() and verbosity > 0
        summary = provider.fetch_manifests(wanted, force=force, progress=self._progress if bar else None)
        if bar:
            self.stderr.write("", style_func=_plain)
        self._report(summary, verbosity)
        self.stdout.write(f"manifests: {summary.line()}")
        problems = summary.with_outcome(provider.FAILED) + [
            r for r in summary.with_outcome(provider.NOT_FOUND) if r.manifest_id in ids
        ]
        if problems:
            raise CommandError(f"{len(problems)} manifest(s) not fetched: {', '.join(r.manifest_id for r in problems)}")

    def _progress(self, done: int, total: int, result: provider.Result) -> None:
        filled = BAR_WIDTH * done // total
        self.stderr.write(
            f"\r[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{total} {result.manifest_id} {result.outcome}\x1b[K",
            ending="",
            style_func=_plain,
        )
        self.stderr.flush()

    def _report(self, summary: provider.Summary, verbosity: int) -> None:
        """One line per id that needs attention (on stderr); every id with -v 2."""
        for result in summary.results:
            line = f"{result.manifest_id}: {result.outcome}" + (f": {result.message}" if result.message else "")
            if result.outcome in (provider.FAILED, provider.NOT_FOUND) or result.stubs_left:
                self.stderr.write(line)
            elif verbosity >= 2:
                self.stdout.write(line)


def _plain(text: str) -> str:
    """No colour: stderr's default style is the error red, and the bar is no error."""
    return text
