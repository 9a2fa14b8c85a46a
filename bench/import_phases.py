"""Where an import's wall time goes, batch by batch (``bench/import_rate.py --phases``).

The import's steps are wrapped (module attributes of ``stories.actions.imports`` and
``stories.checks.ahead``, for the length of the import only) to note when each batch of new
stories reaches them:

- **read**: from the end of the previous batch (or the start) to this batch's start: the
  file's lines read, parsed and validated (``import_stories``);
- **resolve**: ``resolve_batch_references`` (the batch's manifests and claims read);
- **render**: to the fork of the checks' workers (``checks_ahead``): newsrooms, beats,
  editions, stubs, and every revision rendered and serialised; the workers start here;
- **write**: the rest of ``write_new``: the rows, the commit step of version 1, fingerprints;
- **publish**: ``publish_written``: each story's rubric (the workers' results, or the
  checks run here), its publication and their rows;

and, after the last batch, **commit**: the file's transaction committed. Only the phases from
the fork to the end of the publish can run beside the workers; the rest is the importing
process's alone. ``stolen`` counts the stories whose checks the importing process ran itself
because no worker had begun them when their turn came.
"""

from __future__ import annotations

import contextlib
import time


@contextlib.contextmanager
def traced():
    """Within the block, the import's batches are timed; yields the list of their rows
    (dicts of ``time.perf_counter`` marks, ``stories`` and ``stolen``)."""
    from stories.actions import imports
    from stories.checks import ahead

    batches: list[dict] = []
    now = time.perf_counter
    saved = {
        name: getattr(imports, name)
        for name in ("_create_new", "resolve_batch_references", "checks_ahead", "write_new", "publish_written")
    }
    check_here = ahead.Ahead._check_one_here

    def create_new(run, *args, **kwargs):
        if not run:
            return saved["_create_new"](run, *args, **kwargs)
        batch = {"stories": len(run), "stolen": 0, "start": now()}
        batches.append(batch)
        try:
            saved["_create_new"](run, *args, **kwargs)
        finally:
            batch["end"] = now()
            batch.setdefault("resolved", batch["end"])  # refused before its references were read
            batch.setdefault("written", batch["end"])

    def mark(name, key, after=True):
        def wrapped(*args, **kwargs):
            if not after:
                batches[-1][key] = now()
            out = saved[name](*args, **kwargs)
            if after:
                batches[-1][key] = now()
            return out

        return wrapped

    def stealing(self):
        before = len(self.here)
        check_here(self)
        batches[-1]["stolen"] += len(self.here) > before

    imports._create_new = create_new
    imports.resolve_batch_references = mark("resolve_batch_references", "resolved")
    imports.checks_ahead = mark("checks_ahead", "forked", after=False)
    imports.write_new = mark("write_new", "written")
    imports.publish_written = mark("publish_written", "published")
    ahead.Ahead._check_one_here = stealing
    try:
        yield batches
    finally:
        for name, value in saved.items():
            setattr(imports, name, value)
        ahead.Ahead._check_one_here = check_here


def report(batches: list[dict], started: float, finished: float) -> str:
    """A Markdown table of the batches' phases in seconds, and the commit after them."""
    lines = [
        "| batch | stories | read | resolve | render | write | publish | stolen |",
        "|---|---|---|---|---|---|---|---|",
    ]
    previous = started
    for number, b in enumerate(batches, 1):
        forked = b.get("forked", b["resolved"])  # no workers: nothing forked
        published = b.get("published", b["written"])
        cells = [
            b["start"] - previous,
            b["resolved"] - b["start"],
            forked - b["resolved"],
            b["written"] - forked,
            published - b["written"],
        ]
        lines.append(f"| {number} | {b['stories']} | " + " | ".join(f"{c:.2f}" for c in cells) + f" | {b['stolen']} |")
        previous = b["end"]
    alone = sum(b.get("forked", b["resolved"]) - s for b, s in zip(batches, [started] + [b["end"] for b in batches]))
    lines.append("")
    lines.append(
        f"commit and the rest after the last batch: {finished - previous:.2f} s; the importing process alone "
        f"(read, resolve, render, commit): {alone + finished - previous:.2f} s of {finished - started:.2f} s"
    )
    return "\n".join(lines)
