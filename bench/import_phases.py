"""Where an import's wall time goes, run by run (``bench/import_rate.py --phases``).

The import's steps are wrapped (attributes of ``stories.actions.imports`` and
``stories.checks.ahead``, for the length of the import only) to note when each run of new
stories (``Importer``: at most ``RUN_SIZE``) reaches them:

- **resolve**: ``resolve_batch_references`` (the run's manifests and claims read);
- **render**: to the fork of the checks' workers (``checks_ahead``): newsrooms, beats,
  editions, stubs, and every revision rendered and serialised; the workers start here;
- **write**: the rest of ``write_new``: the rows, the commit step of version 1, fingerprints;
- **publish**: ``publish_written``, after the next run is written: each story's rubric (the
  workers' results, or the checks run here), its publication and their rows.

``stolen`` counts the stories whose checks the importing process ran itself because no
worker had begun them when their turn came. The last line gives the time in which no run's
workers were running (the file read before the first run, the first run's resolve and
render, the last run's end, the commit): the importing process's alone.
"""

from __future__ import annotations

import contextlib
import time


@contextlib.contextmanager
def traced():
    """Within the block, the import's runs of new stories are timed; yields the list of
    their rows (dicts of ``time.perf_counter`` marks, ``stories`` and ``stolen``) and the
    intervals in which checks' workers were running."""
    from stories.actions import imports
    from stories.checks import ahead

    batches: list[dict] = []
    alive: list[list[float]] = []  # [forked, stopped] of each run's workers
    now = time.perf_counter
    saved = {name: getattr(imports, name) for name in ("resolve_batch_references", "checks_ahead", "write_new")}
    create_new, publish_waiting = imports.Importer._create_new, imports.Importer._publish_waiting
    check_here = ahead.Ahead._check_one_here

    def creating(self, run):
        if not run:
            return create_new(self, run)
        batch = {"stories": len(run), "stolen": 0, "start": now()}
        batches.append(batch)
        try:
            create_new(self, run)
        finally:
            batch.setdefault("resolved", now())  # refused before its references were read
            batch.setdefault("written", now())

    def publishing(self):
        waiting = self.waiting
        if waiting is None:
            return publish_waiting(self)
        batch = next(b for b in batches if b.get("run") is waiting.reads)
        batch["publish_start"] = now()
        try:
            publish_waiting(self)
        finally:
            batch["published"] = now()

    def mark(name, key, after=True):
        def wrapped(*args, **kwargs):
            if not after:
                batches[-1][key] = now()
            out = saved[name](*args, **kwargs)
            if after:
                batches[-1][key] = now()
            return out

        return wrapped

    @contextlib.contextmanager
    def checks_ahead(reads, handed):
        batches[-1]["forked"] = now()
        batches[-1]["run"] = reads
        interval = [now(), None]
        alive.append(interval)
        try:
            with saved["checks_ahead"](reads, handed) as started:
                yield started
        finally:
            interval[1] = now()

    def stealing(self):
        before = len(self.here)
        check_here(self)
        batch = next((b for b in batches if "publish_start" in b and "published" not in b), None)
        if batch is not None:
            batch["stolen"] += len(self.here) > before

    imports.resolve_batch_references = mark("resolve_batch_references", "resolved")
    imports.checks_ahead = checks_ahead
    imports.write_new = mark("write_new", "written")
    imports.Importer._create_new = creating
    imports.Importer._publish_waiting = publishing
    ahead.Ahead._check_one_here = stealing
    try:
        yield batches, alive
    finally:
        for name, value in saved.items():
            setattr(imports, name, value)
        imports.Importer._create_new, imports.Importer._publish_waiting = create_new, publish_waiting
        ahead.Ahead._check_one_here = check_here


def report(traced: tuple[list[dict], list[list[float]]], started: float, finished: float) -> str:
    """A Markdown table of the runs' phases in seconds, and the time no worker ran."""
    batches, alive = traced
    lines = [
        "| run | stories | resolve | render | write | publish | stolen |",
        "|---|---|---|---|---|---|---|",
    ]
    for number, b in enumerate(batches, 1):
        forked = b.get("forked", b["resolved"])  # no workers: nothing forked
        cells = [b["resolved"] - b["start"], forked - b["resolved"], b["written"] - forked]
        publish = b["published"] - b["publish_start"] if "published" in b else 0.0
        lines.append(
            f"| {number} | {b['stories']} | "
            + " | ".join(f"{c:.2f}" for c in cells)
            + f" | {publish:.2f} | {b['stolen']} |"
        )
    # The time in which no run's workers were running: the importing process alone.
    covered, end = 0.0, started
    for forked, stopped in sorted(alive):
        stopped = finished if stopped is None else stopped
        if stopped > end:
            covered += stopped - max(forked, end)
            end = stopped
    lines.append("")
    lines.append(
        f"the importing process alone (no checks' worker running): {finished - started - covered:.2f} s "
        f"of {finished - started:.2f} s"
    )
    return "\n".join(lines)
