"""The editing screen's working document: what the screen sends (headline, dek, key facts,
sections and paragraphs with their cites, and for a new story its newsroom, slug and
edition), turned into a desk/1 document the checks and the save read; and the three-way
merge of a save made while someone else saved the story.

The screen edits the story's words and cites; everything else of the story (images,
related links, labels, the decision card...) is kept as stored.
"""

from __future__ import annotations

from django.utils import timezone
from django.utils.text import slugify

from stories import desk

# What the screen edits; the rest of a story is kept as stored.
EDITED = ("headline", "dek", "key_facts", "sections")
MAX_BODY = 1_000_000  # bytes of JSON the screen may send (a story of MAX_STORY_TEXT and its cites fits)


MAX_VERSION = 2**31 - 1  # the largest version a story's version column holds


def is_version(value) -> bool:
    """A version number the database can hold (not a bool, not out of range)."""
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_VERSION


class Refused(Exception):
    """The screen sent something the desk cannot take: ``path`` and ``message`` say what."""

    def __init__(self, path: str, message: str):
        self.path, self.message = path, message
        super().__init__(f"{path}: {message}")


def _obj(value, path: str) -> dict:
    if not isinstance(value, dict):
        raise Refused(path, "must be an object")
    return value


def _list(value, path: str) -> list:
    if not isinstance(value, list):
        raise Refused(path, "must be a list")
    return value


def _text(value, path: str) -> str:
    """Text, or nothing (``None``: empty); anything else is refused, so an autosave keeps
    only what the screen edits (text), never an arbitrary JSON value."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise Refused(path, "must be text")
    return value


def _cites(value, path: str) -> list[dict]:
    out = []
    for i, cite in enumerate(_list(value if value is not None else [], path)):
        cite = _obj(cite, f"{path}[{i}]")
        manifest_id = cite.get("manifest_id")
        if manifest_id is not None and not isinstance(manifest_id, str):
            raise Refused(f"{path}[{i}].manifest_id", "must be a manifest id")
        claim_ids = _list(cite.get("claim_ids", []), f"{path}[{i}].claim_ids")
        for j, claim_id in enumerate(claim_ids):
            if not isinstance(claim_id, str):
                raise Refused(f"{path}[{i}].claim_ids[{j}]", "must be a claim id")
        out.append({"manifest_id": manifest_id, "claim_ids": claim_ids})
    return out


def edited_fields(payload: dict) -> dict:
    """The edited fields of the screen's ``story`` object, in desk/1's shape (not yet
    validated: ``desk.validate`` does that, naming the path of a problem)."""
    story = _obj(payload.get("story") if isinstance(payload, dict) else None, "story")
    facts = []
    for i, fact in enumerate(_list(story.get("key_facts", []), "key_facts")):
        fact = _obj(fact, f"key_facts[{i}]")
        facts.append(
            {
                "text": _text(fact.get("text"), f"key_facts[{i}].text"),
                "cites": _cites(fact.get("cites"), f"key_facts[{i}].cites"),
            }
        )
    sections = []
    for i, section in enumerate(_list(story.get("sections", []), "sections")):
        section = _obj(section, f"sections[{i}]")
        paragraphs = []
        for j, para in enumerate(_list(section.get("paragraphs", []), f"sections[{i}].paragraphs")):
            para = _obj(para, f"sections[{i}].paragraphs[{j}]")
            paragraphs.append(
                {
                    "markdown": _text(para.get("markdown"), f"sections[{i}].paragraphs[{j}].markdown"),
                    "cites": _cites(para.get("cites"), f"sections[{i}].paragraphs[{j}].cites"),
                }
            )
        sections.append({"heading": _text(section.get("heading"), f"sections[{i}].heading"), "paragraphs": paragraphs})
    return {
        "headline": _text(story.get("headline"), "headline"),
        "dek": _text(story.get("dek"), "dek"),
        "key_facts": facts,
        "sections": sections,
    }


def editable(doc: dict) -> dict:
    """The edited fields of a desk/1 document (stored or exported), to compare and merge
    (a key fact's self-reported flag is not one: it follows from its claims)."""
    return {
        "headline": doc.get("headline") or "",
        "dek": doc.get("dek") or "",
        "key_facts": [
            {
                "text": f["text"],
                "cites": [{"manifest_id": c["manifest_id"], "claim_ids": list(c["claim_ids"])} for c in f["cites"]],
            }
            for f in doc.get("key_facts", [])
        ],
        "sections": [
            {
                "heading": s["heading"],
                "paragraphs": [
                    {
                        "markdown": p["markdown"],
                        "cites": [
                            {"manifest_id": c["manifest_id"], "claim_ids": list(c["claim_ids"])} for c in p["cites"]
                        ],
                    }
                    for p in s["paragraphs"]
                ],
            }
            for s in doc.get("sections", [])
        ],
    }


def stored_document(story) -> dict:
    """A loaded story's desk/1 document without its derived fields (the checks then derive
    them from the cites, as the save does); key facts keep their declared flag."""
    doc = {k: v for k, v in desk.export_story(story).items() if k not in desk.DERIVED_KEYS}
    doc["labels"] = {"trust": story.trust}
    for fact, row in zip(doc["key_facts"], story.key_facts.all()):
        if row.declared_self_reported is None:
            fact.pop("self_reported", None)
        else:
            fact["self_reported"] = row.declared_self_reported
    return doc


def new_document(payload: dict) -> dict:
    """The desk/1 document of a story not stored yet: its newsroom (a slug), slug (from the
    headline when left blank) and edition (the current hour when left blank)."""
    story = _obj(payload.get("story") if isinstance(payload, dict) else None, "story")
    headline = story.get("headline") if isinstance(story.get("headline"), str) else ""
    slug = story.get("slug") or slugify(headline)[:200].strip("-") or "untitled"
    edition = story.get("edition") or timezone.now().strftime("%Y-%m-%dT%H")
    return {
        "schema": desk.SCHEMA,
        "type": "story",
        "id": None,
        "slug": slug,
        "edition": edition,
        "newsroom": story.get("newsroom") or "",
        "sections": [],
    }


def working_document(base: dict, payload: dict) -> dict:
    """``base`` (a stored story's document, or a new one's) with the screen's edits, validated
    (``desk.DeskError`` names the path of the first problem)."""
    return desk.validate({**base, **edited_fields(payload)})


# --------------------------------------------------------------------------- merge


def _label(key: tuple) -> str:
    if key[0] in ("headline", "dek"):
        return key[0].capitalize()
    if key[0] == "key_facts":
        return "Key facts" if len(key) == 1 else f"Key fact {key[1] + 1}"
    if len(key) == 1:
        return "Sections"
    if key[2] == "heading":
        return f"Section {key[1] + 1} heading"
    return f"Section {key[1] + 1}, paragraph {key[3] + 1}"


def _text_of(value) -> str:
    """A merge unit as people read it (its prose, then its cited claim ids)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        text = value.get("text", value.get("markdown", ""))
        claims = [cid for c in value.get("cites", []) for cid in c["claim_ids"]]
        return text + (f"  [cites {', '.join(claims)}]" if claims else "")
    parts = []
    for item in value or []:
        if "paragraphs" in item:
            parts.append(item["heading"])
            parts += [_text_of(p) for p in item["paragraphs"]]
        else:
            parts.append(_text_of(item))
    return "\n\n".join(parts)


def _shape(doc: dict) -> tuple:
    return (len(doc["key_facts"]), tuple(len(s["paragraphs"]) for s in doc["sections"]))


def merge(base: dict, mine: dict, theirs: dict) -> tuple[dict, list[dict]]:
    """Three-way merge of the edited fields (``editable``): what the editor started from,
    what they send, what is stored now. A field, key fact, section heading or paragraph
    changed on one side only takes that side's; changed on both to different texts is a
    clash. When key facts (or sections and paragraphs) were added, removed or moved on
    both sides, the list as a whole is the unit. Returns (merged, clashes); each clash is
    ``{"where", "mine", "theirs"}`` in words."""
    merged, clashes = {}, []

    def pick(key, b, m, t):
        if m in (b, t):
            return t
        if t == b:
            return m
        clashes.append({"where": _label(key), "mine": _text_of(m), "theirs": _text_of(t)})
        return t

    for field in ("headline", "dek"):
        merged[field] = pick((field,), base[field], mine[field], theirs[field])
    same_facts = len(base["key_facts"]) == len(mine["key_facts"]) == len(theirs["key_facts"])
    if same_facts:
        merged["key_facts"] = [
            pick(("key_facts", i), b, m, t)
            for i, (b, m, t) in enumerate(zip(base["key_facts"], mine["key_facts"], theirs["key_facts"]))
        ]
    else:
        merged["key_facts"] = pick(("key_facts",), base["key_facts"], mine["key_facts"], theirs["key_facts"])
    shapes = {_shape({"key_facts": [], "sections": d["sections"]}) for d in (base, mine, theirs)}
    if len(shapes) == 1:
        sections = []
        for i, (b, m, t) in enumerate(zip(base["sections"], mine["sections"], theirs["sections"])):
            heading = pick(("sections", i, "heading"), b["heading"], m["heading"], t["heading"])
            paragraphs = [
                pick(("sections", i, "paragraphs", j), bp, mp, tp)
                for j, (bp, mp, tp) in enumerate(zip(b["paragraphs"], m["paragraphs"], t["paragraphs"]))
            ]
            sections.append({"heading": heading, "paragraphs": paragraphs})
        merged["sections"] = sections
    else:
        merged["sections"] = pick(("sections",), base["sections"], mine["sections"], theirs["sections"])
    return merged, clashes
