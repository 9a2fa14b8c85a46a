"""Comparing a story's revisions: a unified diff of their pretty desk/1 JSON."""

from __future__ import annotations

import difflib

from . import desk
from .models import Revision


def diff_lines(old: dict | None, new: dict | None, *, old_label: str, new_label: str) -> list[dict]:
    """The unified diff of two desk/1 documents as ``[{"kind": "add"|"del"|"hunk"|"ctx", "text": ...}]``
    (plain text: templates escape it)."""
    a = desk.dumps(old).splitlines() if old is not None else []
    b = desk.dumps(new).splitlines() if new is not None else []
    out = []
    for line in difflib.unified_diff(a, b, fromfile=old_label, tofile=new_label, lineterm="", n=2):
        if line.startswith(("---", "+++")):
            kind = "file"
        elif line.startswith("@@"):
            kind = "hunk"
        elif line.startswith("+"):
            kind = "add"
        elif line.startswith("-"):
            kind = "del"
        else:
            kind = "ctx"
        out.append({"kind": kind, "text": line})
    return out


def compare_versions(story_id: str, old_version: int, new_version: int) -> tuple[list[dict], dict[int, Revision]]:
    """The diff between two stored revisions of a story (a missing one diffs as empty)."""
    revisions = {
        r.version: r
        for r in Revision.objects.filter(story_id=story_id, version__in=[old_version, new_version]).select_related(
            "created_by"
        )
    }
    old, new = revisions.get(old_version), revisions.get(new_version)
    lines = diff_lines(
        old.data if old else None,
        new.data if new else None,
        old_label=f"version {old_version}",
        new_label=f"version {new_version}",
    )
    return lines, revisions
