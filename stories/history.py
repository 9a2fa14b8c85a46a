"""Comparing versions of a story: a unified diff of their pretty desk/1 JSON (revisions),
and a diff of their prose for people (pending changes of a live story)."""

from __future__ import annotations

import difflib
from collections import deque

from . import desk
from .models import Revision


def diff_lines(old: dict | None, new: dict | None, *, old_label: str, new_label: str) -> list[dict]:
    """The unified diff of two desk/1 documents as ``[{"kind": "add"|"del"|"hunk"|"ctx", "text": ...}]``
    (plain text: templates escape it), two lines of context around each change, as
    ``difflib.unified_diff`` writes it; within ``MAX_DIFF_WORK`` pairs of lines weighed
    (``_opcodes``), so a long story's versions cost bounded time."""
    a = desk.dumps(old).splitlines() if old is not None else []
    b = desk.dumps(new).splitlines() if new is not None else []
    groups = list(_BoundedMatcher(a, b, DiffBudget()).get_grouped_opcodes(2)) if a != b else []
    if not groups:
        return []
    out = [{"kind": "file", "text": f"--- {old_label}"}, {"kind": "file", "text": f"+++ {new_label}"}]
    for group in groups:
        first, last = group[0], group[-1]
        old_range, new_range = _unified_range(first[1], last[2]), _unified_range(first[3], last[4])
        out.append({"kind": "hunk", "text": f"@@ -{old_range} +{new_range} @@"})
        for op, i1, i2, j1, j2 in group:
            if op == "equal":
                out += [{"kind": "ctx", "text": " " + line} for line in a[i1:i2]]
                continue
            out += [{"kind": "del", "text": "-" + line} for line in a[i1:i2]]
            out += [{"kind": "add", "text": "+" + line} for line in b[j1:j2]]
    return out


def _unified_range(start: int, stop: int) -> str:
    """A hunk's range as ``unified_diff`` writes it (lines counted from 1; an empty range
    names the line before it)."""
    length = stop - start
    beginning = start + 1 if length else start
    return str(beginning) if length == 1 else f"{beginning},{length}"


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


# difflib weighs pairs of tokens that could match, again on each piece left between the
# matches it finds: its time grows with the product of the two sides' lengths, and more
# (a paragraph of 4,000 repeated words took seconds; 5,000 words against 199, a hundred
# million pairs). One comparison of two versions lets its scans weigh at most this many
# pairs in all (``_WeighedMatcher``); past them, a text's common beginning and end are
# matched directly and its middle shows as one replaced block (``_opcodes``).
MAX_DIFF_WORK = 1_000_000
# difflib's own autojunk stays on: in a sequence of 200 items or more, an item that is more
# than 1% of them (a JSON document's ``"cites": [``, the word "the") is not weighed as a
# match. Weighing every repeat costs time that no count of pairs bounds (a thousand lines of
# two repeated values took seconds within the budget).


class DiffBudget:
    """The token pairs difflib may still weigh for one comparison of versions."""

    def __init__(self, work: int = MAX_DIFF_WORK):
        self.left = work


class _OverBudget(Exception):
    """difflib's next scan would pass the comparison's budget."""


class _WeighedMatcher(difflib.SequenceMatcher):
    """difflib's matcher, each of its scans charged to ``budget``: ``find_longest_match``
    weighs up to (ahi - alo) × bhi pairs, and difflib calls it again on every piece left
    between the matches it finds, so the scans, not the sides' product, are what it costs."""

    def __init__(self, a: list, b: list, budget: DiffBudget):
        self._budget = budget
        super().__init__(a=a, b=b)

    def find_longest_match(self, alo=0, ahi=None, blo=0, bhi=None):
        ahi = len(self.a) if ahi is None else ahi
        bhi = len(self.b) if bhi is None else bhi
        cost = (ahi - alo) * bhi
        if cost > self._budget.left:
            raise _OverBudget
        self._budget.left -= cost
        return super().find_longest_match(alo, ahi, blo, bhi)


def _matched(a: list, b: list, budget: DiffBudget) -> list[tuple] | None:
    """difflib's opcodes of ``a`` -> ``b``, or None when its scans would pass ``budget``."""
    if len(a) * len(b) > budget.left:
        return None
    try:
        return _WeighedMatcher(a, b, budget).get_opcodes()
    except _OverBudget:
        return None


def _opcodes(a: list, b: list, budget: DiffBudget) -> list[tuple]:
    """``SequenceMatcher(a=a, b=b).get_opcodes()`` while ``budget`` allows;
    past it, the common beginning and end, and between them difflib's opcodes if the budget
    allows them, else one replaced block."""
    if a == b:  # what difflib finds, without weighing anything
        return [("equal", 0, len(a), 0, len(b))] if a else []
    if (ops := _matched(a, b, budget)) is not None:
        return ops
    shorter = min(len(a), len(b))
    start = 0
    while start < shorter and a[start] == b[start]:
        start += 1
    end = 0
    while end < shorter - start and a[-1 - end] == b[-1 - end]:
        end += 1
    a_end, b_end = len(a) - end, len(b) - end
    ops = [("equal", 0, start, 0, start)] if start else []
    middle_a, middle_b = a[start:a_end], b[start:b_end]
    inner = _matched(middle_a, middle_b, budget) if middle_a and middle_b else None
    if inner is not None:
        ops += [(op, i1 + start, i2 + start, j1 + start, j2 + start) for op, i1, i2, j1, j2 in inner]
    elif middle_a or middle_b:
        op = "replace" if middle_a and middle_b else ("delete" if middle_a else "insert")
        ops.append((op, start, a_end, start, b_end))
    if end:
        ops.append(("equal", a_end, len(a), b_end, len(b)))
    return ops


class _BoundedMatcher(difflib.SequenceMatcher):
    """A matcher whose opcodes are ``_opcodes``' within ``budget``: difflib groups them into
    hunks as it groups its own."""

    def __init__(self, a: list, b: list, budget: DiffBudget):  # difflib's would index b, which is not used here
        self.a, self.b, self.opcodes, self._budget = a, b, None, budget

    def get_opcodes(self) -> list[tuple]:
        if self.opcodes is None:
            self.opcodes = _opcodes(self.a, self.b, self._budget)
        return self.opcodes


def word_diff(old: str, new: str, budget: DiffBudget | None = None) -> list[dict]:
    """``old`` → ``new`` word by word: ``[{"op": "eq"|"del"|"ins", "text": ...}]`` (plain text).
    ``budget``: what difflib may still weigh for this comparison of versions (``MAX_DIFF_WORK``
    when not given)."""
    a, b = old.split(), new.split()
    out = []
    for op, i1, i2, j1, j2 in _opcodes(a, b, budget or DiffBudget()):
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
    "where": ..., "old": ..., "new": ..., "words": word_diff}``. The texts and their words
    share one ``DiffBudget``."""
    a, b = prose_units(old), prose_units(new)
    budget = DiffBudget()
    out = []
    for op, i1, i2, j1, j2 in _opcodes([t for _, t in a], [t for _, t in b], budget):
        if op == "equal":
            continue
        # A changed text is one of the same kind (a paragraph for a paragraph...), in order:
        # each old text takes the first new one of its kind not yet taken.
        waiting: dict[str, deque] = {}
        for j in range(j1, j2):
            waiting.setdefault(_kind(b[j][0]), deque()).append(j)
        pairs = []
        for i in range(i1, i2):
            if queue := waiting.get(_kind(a[i][0])):
                pairs.append((i, queue.popleft()))
        paired_old, paired_new = {i for i, _ in pairs}, {j for _, j in pairs}
        for i in range(i1, i2):
            if i not in paired_old:
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
                    "words": word_diff(old_text, new_text, budget),
                }
            )
        for j in range(j1, j2):
            if j not in paired_new:
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
