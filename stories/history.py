"""Comparing versions of a story: a unified diff of their pretty desk/1 JSON (revisions),
and a diff of their prose for people (pending changes of a live story)."""

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


# --------------------------------------------------------------------------- prose


def prose_units(doc: dict) -> list[tuple[str, str]]:
    """The words readers read, in reading order, each with where it stands: headline, dek,
    key facts, then each section's heading and paragraphs (``doc``: desk/1 stored fields)."""
    units = [("Headline", doc.get("headline") or ""), ("Dek", doc.get("dek") or "")]
    units += [(f"Key fact {i}", fact["text"]) for i, fact in enumerate(doc.get("key_facts", []), 1)]
    for i, section in enumerate(doc.get("sections", []), 1):
        units.append((f"Section {i} heading", section["heading"]))
        units += [(f"Section {i}, paragraph {j}", p["markdown"]) for j, p in enumerate(section["paragraphs"], 1)]
    return units


def word_diff(old: str, new: str) -> list[dict]:
    """``old`` → ``new`` word by word: ``[{"op": "eq"|"del"|"ins", "text": ...}]`` (plain text)."""
    a, b = old.split(), new.split()
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append({"op": "eq", "text": " ".join(a[i1:i2])})
            continue
        if i2 > i1:
            out.append({"op": "del", "text": " ".join(a[i1:i2])})
        if j2 > j1:
            out.append({"op": "ins", "text": " ".join(b[j1:j2])})
    return out


def prose_diff(old: dict, new: dict) -> list[dict]:
    """What changed in the prose between two versions of a story, for people: one item per
    changed, added or removed piece of text, ``{"kind": "changed"|"added"|"removed",
    "where": ..., "old": ..., "new": ..., "words": word_diff}``."""
    a, b = prose_units(old), prose_units(new)
    matcher = difflib.SequenceMatcher(a=[t for _, t in a], b=[t for _, t in b], autojunk=False)
    out = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        olds, news = list(range(i1, i2)), list(range(j1, j2))
        # A changed text is one of the same kind (a paragraph for a paragraph...), in order.
        pairs = []
        for i in olds:
            j = next((j for j in news if _kind(b[j][0]) == _kind(a[i][0])), None)
            if j is not None:
                news.remove(j)
                pairs.append((i, j))
        paired = {i for i, _ in pairs}
        for i in olds:
            if i not in paired:
                where, text = a[i]
                out.append(
                    {"kind": "removed", "where": where, "old": text, "new": "", "words": [{"op": "del", "text": text}]}
                )
        for i, j in pairs:
            (_, old_text), (where, new_text) = a[i], b[j]
            out.append(
                {
                    "kind": "changed",
                    "where": where,
                    "old": old_text,
                    "new": new_text,
                    "words": word_diff(old_text, new_text),
                }
            )
        for j in news:
            where, text = b[j]
            out.append(
                {"kind": "added", "where": where, "old": "", "new": text, "words": [{"op": "ins", "text": text}]}
            )
    return out


def _kind(where: str) -> str:
    """ "Section 2, paragraph 3" -> "paragraph"; "Key fact 1" -> "Key fact"; "Headline"."""
    if where.startswith("Section"):
        return "heading" if where.endswith("heading") else "paragraph"
    return where.rstrip("0123456789 ")


_OTHER_PARTS = {
    "beat": "beat",
    "audience": "audience",
    "angle": "angle",
    "trust": "trust label",
    "images": "images",
    "related": "related stories",
    "unresolved": "unresolved points",
    "decision_card": "decision card",
    "writer": "writer",
}


def other_changes(old: dict, new: dict) -> list[str]:
    """What else changed besides the prose: cites, images, related stories, labels..."""
    changed = [label for key, label in _OTHER_PARTS.items() if old.get(key) != new.get(key)]

    def cites(doc):
        owners = doc.get("key_facts", []) + [p for s in doc.get("sections", []) for p in s["paragraphs"]]
        return [owner["cites"] for owner in owners]

    if cites(old) != cites(new):
        changed.insert(0, "cites")
    return changed
