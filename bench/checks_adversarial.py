"""Time the publish checks on the largest story desk/1 accepts, written to be slow.

The demo story, its first paragraphs replaced by one pattern repeated until the story holds
``desk.MAX_STORY_TEXT`` characters of paragraphs and key facts (runs of brackets, digits,
capitals, ranges...: the inputs that made the old scans quadratic). Each story is checked
``--runs`` times; the median and the slowest run are printed, with the rubric's size.

    DEBUG=1 DATABASE_URL=sqlite:////tmp/checks_adversarial.sqlite3 .venv/bin/python bench/checks_adversarial.py

The database is migrated and given the demo manifests on first use.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "newsroom.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from manifests.models import Manifest  # noqa: E402
from newsroom.infra.jsondoc import MAX_TEXT  # noqa: E402
from stories import desk  # noqa: E402
from stories.checks import run_checks  # noqa: E402

DEMO = ROOT / "demo" / "agent-training-stack.json"
MANIFESTS = ROOT / "demo" / "agent-training-stack.manifests.json"
UNITS = ["[", "1", "1 ", "[](", "1.5% ", "Aa b ", "A0 ", "Aa-B ", "from 1 to 2 ", "!", "."]
# What the meaning checks read: negations, number words, contrast and comparison frames,
# opposed terms and sentence openings, as one long sentence and as many short ones.
UNITS += ["not ", "nine ", "twenty-one ", ", not x ", "not a but ", "rather than ", "more than ", "from a to "]
UNITS += ["Cost, not speed. ", "Verifier quality matters less than rollout volume. ", "Google rose. "]


def largest_story(seed: dict, unit: str) -> dict:
    """The demo story with its first section's first paragraphs holding ``unit`` repeated,
    up to the size limit (each paragraph at most as long as a string may be)."""
    doc = copy.deepcopy(seed)
    paragraphs = doc["sections"][0]["paragraphs"]
    first_two = sum(len(p["markdown"]) for p in paragraphs[:2])
    total = sum(len(f["text"]) for f in doc["key_facts"]) + sum(
        len(p["markdown"]) for s in doc["sections"] for p in s["paragraphs"]
    )
    room = desk.MAX_STORY_TEXT - (total - first_two)
    text = (unit * (room // len(unit) + 1))[:room]
    chunk = MAX_TEXT - 10
    for i in range(0, len(text), chunk):
        if i // chunk < len(paragraphs):
            paragraphs[i // chunk]["markdown"] = text[i : i + chunk]
    return desk.validate(doc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    if not Manifest.objects.exists():
        call_command("import_manifests", str(MANIFESTS), verbosity=0)
    seed = json.loads(DEMO.read_text(encoding="utf-8"))
    print(f"{'pattern':<16} {'median s':>9} {'max s':>7} {'rubric KB':>10}")
    for unit in UNITS:
        doc = largest_story(seed, unit)
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            rubric = run_checks(doc)
            times.append(time.perf_counter() - start)
        size = len(json.dumps(rubric)) / 1024
        print(f"{unit!r:<16} {statistics.median(times):>9.3f} {max(times):>7.3f} {size:>10.1f}")


if __name__ == "__main__":
    main()
