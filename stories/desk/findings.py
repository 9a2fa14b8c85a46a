"""The checks' findings in words, for people: where a finding stands ("Section 2,
paragraph 1") instead of its JSON path (``sections[1].paragraphs[0]``), what it says, and
what to do about it.

Pure functions of the rubric (``stories.checks.run_checks``); no database. A finding of a
kind this module does not know (a new criterion, a new detail) is shown with its own
message, so that the checks can grow without this module.
"""

from __future__ import annotations

import re

# key_facts[0], sections[1], sections[1].heading, sections[1].paragraphs[0] (and what follows).
_KEY_FACT = re.compile(r"^key_facts\[(\d+)\]")
_PARAGRAPH = re.compile(r"^sections\[(\d+)\]\.paragraphs\[(\d+)\]")
_SECTION = re.compile(r"^sections\[(\d+)\]")

# What an editor can do about a failing criterion (shown once per finding).
_HINTS = {
    "paragraphs_cited": "add a cite to it",
    "claims_support": "cite a claim that states it, or change the text",
    "claims_belong": "remove the cite and pick the claim again from the search",
    "manifests_exist": "cite a manifest that is in the database",
    "manifests_recent": "cite a more recent source, or move the story to an earlier edition",
    "not_a_repeat": "say what is new, or update the earlier story instead",
    "metadata_consistent": "save the story: the CMS derives these fields",
}


def owner_of(path: str) -> str | None:
    """The key of the key fact or paragraph a finding's path concerns, or None (the whole
    story, a section heading, a derived field)."""
    match = _PARAGRAPH.match(path or "") or _KEY_FACT.match(path or "")
    return match.group(0) if match else None


def anchor(owner: str | None) -> str:
    """The id of a key fact's or paragraph's place on the editing screen (``unit-k0``,
    ``unit-s1-p0``), or "" for the story as a whole."""
    if not owner:
        return ""
    if match := _PARAGRAPH.match(owner):
        return f"unit-s{match.group(1)}-p{match.group(2)}"
    if match := _KEY_FACT.match(owner):
        return f"unit-k{match.group(1)}"
    return ""


def where(path: str) -> str:
    """A finding's path as a reader of the story would name the place: ``Key fact 1``,
    ``Section 2, paragraph 1``, ``Section 2``, or ``The story``."""
    path = path or ""
    if match := _PARAGRAPH.match(path):
        return f"Section {int(match.group(1)) + 1}, paragraph {int(match.group(2)) + 1}"
    if match := _KEY_FACT.match(path):
        return f"Key fact {int(match.group(1)) + 1}"
    if match := _SECTION.match(path):
        return f"Section {int(match.group(1)) + 1}"
    return "The story"


def _text(value, limit: int = 200) -> str:
    text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def message(finding: dict) -> str:
    """What the finding says, in words (its own message for kinds not known here)."""
    if not isinstance(finding, dict):
        return "a finding the desk cannot read"
    if "figure" in finding and str(finding.get("message", "")).endswith("is not stated by any cited claim"):
        return f"{_text(finding['figure'])} is not stated by any cited claim"
    if "name" in finding and "is not named by" in str(finding.get("message", "")):
        return f"{_text(finding['name'])} is not named by any cited claim, manifest title or source"
    return _text(finding.get("message") or "a finding without a message", 1000)


def in_words(finding: dict, criterion: str = "") -> dict:
    """One finding for people: ``{"where", "words", "text", "severity", "owner", "anchor",
    "hint", "criterion", "sentence"}`` (``text`` is ``where: words``)."""
    words = message(finding)
    finding = finding if isinstance(finding, dict) else {}
    path = finding.get("path") if isinstance(finding.get("path"), str) else ""
    place = where(path)
    severity = finding.get("severity") if finding.get("severity") in ("error", "warning", "info") else "error"
    return {
        "where": place,
        "words": words,
        "text": f"{place}: {words}",
        "severity": severity,
        "owner": owner_of(path),
        "anchor": anchor(owner_of(path)),
        "hint": _HINTS.get(criterion, "") if severity == "error" else "",
        "criterion": criterion,
        "sentence": _text(finding["sentence"], 1000) if isinstance(finding.get("sentence"), str) else "",
    }


def rubric_in_words(rubric: dict | None) -> dict:
    """Every finding of a rubric in words, errors first: ``{"passed", "score", "criteria":
    [{"name", "passed", "score"}], "findings": [...], "by_owner": {owner: [...]},
    "general": [...]}``."""
    rubric = rubric if isinstance(rubric, dict) else {}
    criteria, findings = [], []
    for criterion in rubric.get("criteria") or []:
        if not isinstance(criterion, dict):
            continue
        name = str(criterion.get("name") or "")
        criteria.append({"name": name, "passed": bool(criterion.get("passed")), "score": criterion.get("score")})
        findings += [in_words(f, name) for f in criterion.get("findings") or []]
    rank = {"error": 0, "warning": 1, "info": 2}
    findings.sort(key=lambda f: rank[f["severity"]])
    by_owner: dict[str, list[dict]] = {}
    general = []
    for item in findings:
        if item["owner"]:
            by_owner.setdefault(item["owner"], []).append(item)
        else:
            general.append(item)
    return {
        "passed": bool(rubric.get("passed")),
        "score": rubric.get("score"),
        "criteria": criteria,
        "findings": findings,
        "by_owner": by_owner,
        "general": general,
    }
