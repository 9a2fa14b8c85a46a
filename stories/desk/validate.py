"""Reading desk/1: ``parse(text)`` / ``validate(data)`` turn a JSON document into the stored
fields of a story, or raise ``DeskError`` naming the JSON path of the first problem.

A document is checked in its own order (top-level fields, labels, key facts, images,
sections, unresolved questions, decision card, writer, corrections, related links, the
story's manifests, then the derived fields), one function per part, so that the first
problem a writer sees is the first one in the file's reading order.
"""

from __future__ import annotations

import re

from manifests.formats import validate_manifest
from newsroom.infra.jsondoc import ID_RE, _kind, loads, require
from newsroom.infra.jsondoc import FormatError as DeskError
from newsroom.infra.jsondoc import V as _V
from newsroom.models import parse_edition

from .derive import DERIVED_KEYS, SCHEMA

CORRECTION_KINDS = ("correction", "clarification", "update")


def parse(text: str | bytes) -> dict:
    return validate(loads(text))


def validate(data) -> dict:
    """Check a parsed document against desk/1 and return it normalised (stored fields only,
    plus the story's own ``manifests`` list, which import uses for stubs)."""
    _V.obj(data, "$")
    _check_schema(data)
    doc: dict = {}
    doc.update(_placement(data))
    doc.update(_wording(data))
    doc["trust"] = _trust(data.get("labels"))
    doc["key_facts"] = _key_facts(data.get("key_facts", []))
    doc["images"] = _images(data.get("images", []))
    doc["sections"] = _sections(require(data, "sections"))
    doc["unresolved"] = _V.strings(data.get("unresolved", []), "unresolved")
    doc["decision_card"] = _decision_card(data.get("decision_card"))
    doc["writer"] = _writer(data.get("writer"))
    doc["corrections"] = _corrections(data.get("corrections", []))
    doc["related"] = _related(data.get("related", []))
    doc["manifests"] = [
        validate_manifest(entry, f"manifests[{i}]", claims=False)
        for i, entry in enumerate(_V.lst(data.get("manifests", []), "manifests"))
    ]
    _check_derived(data)
    doc["derived"] = {key: data[key] for key in DERIVED_KEYS if key in data}
    _check_story_size(doc)
    return doc


# The checks read every paragraph and key fact; this bounds what one story costs them (well
# under a second, whatever the characters) while leaving room for one paragraph as long as
# any string may be (100,000 characters) in a story of ordinary length.
MAX_STORY_TEXT = 150_000


def _check_story_size(doc: dict) -> None:
    size = sum(len(fact["text"]) for fact in doc["key_facts"]) + sum(
        len(para["markdown"]) for section in doc["sections"] for para in section["paragraphs"]
    )
    if size > MAX_STORY_TEXT:
        raise DeskError(
            "sections",
            f"the story's paragraphs and key facts are {size} characters long; at most {MAX_STORY_TEXT} are accepted",
        )


def _check_schema(data: dict) -> None:
    schema = require(data, "schema")
    if schema != SCHEMA:
        raise DeskError("schema", f"must be {SCHEMA!r}, not {schema!r}")
    if data.get("type", "story") != "story":
        raise DeskError("type", f"must be 'story', not {data.get('type')!r}")


def _placement(data: dict) -> dict:
    """Where the story lives: its id, slug, edition, newsroom, beat and audience."""
    doc = {"id": _V.ident(data["id"], "id") if data.get("id") is not None else None}
    doc["slug"] = _V.slug(require(data, "slug"), "slug")
    doc["edition"] = _edition(data)
    # max_length: the columns' sizes, so that a long value is a format error, not a database one.
    doc["newsroom"] = _V.slug(require(data, "newsroom"), "newsroom", max_length=100)
    doc["beat"] = _V.slug(data["beat"], "beat", max_length=100) if data.get("beat") is not None else None
    doc["newsroom_title"] = _V.string(data.get("newsroom_title"), "newsroom_title", required=False, max_length=200)
    audience = _V.string(data.get("audience"), "audience", required=False, max_length=100)
    if audience and not re.fullmatch(r"[a-z0-9_-]+", audience):
        raise DeskError("audience", f"{audience[:80]!r} is not a slug ([a-z0-9_-]+)")
    doc["audience"] = audience
    return doc


def _edition(data: dict) -> str:
    edition = _V.string(require(data, "edition"), "edition", max_length=40)
    try:
        parse_edition(edition)
    except ValueError:
        raise DeskError("edition", f"{edition!r} is not an edition (YYYY-MM-DDTHH, a real UTC hour)") from None
    return edition


def _wording(data: dict) -> dict:
    """The story's angle, headline, dek and publication time."""
    published = data.get("published_at")
    return {
        "angle": _V.string(data.get("angle"), "angle", required=False),
        "headline": _V.string(require(data, "headline"), "headline", nonempty=True, max_length=500),
        "dek": _V.string(data.get("dek"), "dek", required=False),
        "published_at": _V.timestamp(published, "published_at") if published is not None else None,
    }


def _trust(labels) -> str:
    """The trust label: only ``labels.trust`` is stored; the rest of ``labels`` is derived."""
    if labels is None:
        return "reported"
    _V.obj(labels, "labels")
    if labels.get("trust") is None:
        return "reported"
    return _V.slug(labels["trust"], "labels.trust", max_length=50)


def _cites(value, path) -> list[dict]:
    """The cites, normalised; an error names the first bad one. Well-formed cites (nearly
    all) are read in one pass with no path built; any other list is read again, value by
    value, for its error."""
    out = _well_formed_cites(value)
    return out if out is not None else _read_cites(value, path)


def _well_formed_cites(value) -> list[dict] | None:
    if type(value) is not list:
        return None
    out = []
    for cite in value:
        if type(cite) is not dict:
            return None
        manifest_id, claim_ids = cite.get("manifest_id"), cite.get("claim_ids", [])
        if type(manifest_id) is not str or not ID_RE.fullmatch(manifest_id) or type(claim_ids) is not list:
            return None
        if not {str}.issuperset(map(type, claim_ids)) or not all(map(ID_RE.fullmatch, claim_ids)):
            return None
        if len(set(claim_ids)) != len(claim_ids):
            return None
        out.append({"manifest_id": manifest_id, "claim_ids": list(claim_ids)})
    return out


def _read_cites(value, path) -> list[dict]:
    out = []
    for i, cite in enumerate(_V.lst(value, path)):
        p = f"{path}[{i}]"
        _V.obj(cite, p)
        if "manifest_id" not in cite:
            raise DeskError(p, "missing required field 'manifest_id'")
        manifest_id = _V.ident(cite["manifest_id"], f"{p}.manifest_id")
        claim_ids = [
            _V.ident(c, f"{p}.claim_ids[{j}]")
            for j, c in enumerate(_V.lst(cite.get("claim_ids", []), f"{p}.claim_ids"))
        ]
        seen = set()
        for j, claim_id in enumerate(claim_ids):
            if claim_id in seen:
                raise DeskError(f"{p}.claim_ids[{j}]", f"claim {claim_id} is listed twice in this cite")
            seen.add(claim_id)
        out.append({"manifest_id": manifest_id, "claim_ids": claim_ids})
    return out


def _key_facts(value) -> list[dict]:
    facts = []
    for i, fact in enumerate(_V.lst(value, "key_facts")):
        p = f"key_facts[{i}]"
        _V.obj(fact, p)
        facts.append(
            {
                "text": _V.string(require(fact, "text", p), f"{p}.text", nonempty=True),
                "self_reported": _V.boolean(fact["self_reported"], f"{p}.self_reported")
                if "self_reported" in fact
                else None,
                "cites": _cites(fact.get("cites", []), f"{p}.cites"),
            }
        )
    return facts


def _images(value) -> list[dict]:
    images = []
    for i, image in enumerate(_V.lst(value, "images")):
        p = f"images[{i}]"
        _V.obj(image, p)
        images.append(
            {
                "url": _V.url(require(image, "url", p), f"{p}.url"),
                "alt": _V.string(require(image, "alt", p), f"{p}.alt", nonempty=True, max_length=1000),
                "caption": _V.string(image.get("caption"), f"{p}.caption", required=False),
                "credit": _V.string(image.get("credit"), f"{p}.credit", required=False, max_length=500),
                "width": _V.optional_int(image.get("width"), f"{p}.width"),
                "height": _V.optional_int(image.get("height"), f"{p}.height"),
            }
        )
    return images


def _sections(value) -> list[dict]:
    sections = []
    for i, section in enumerate(_V.lst(value, "sections")):
        p = f"sections[{i}]"
        _V.obj(section, p)
        paragraphs = _paragraphs(require(section, "paragraphs", p), f"{p}.paragraphs")
        sections.append(
            {
                "heading": _V.string(require(section, "heading", p), f"{p}.heading", max_length=500),
                "paragraphs": paragraphs,
            }
        )
    return sections


def _paragraphs(value, path: str) -> list[dict]:
    paragraphs = []
    for j, para in enumerate(_V.lst(value, path)):
        q = f"{path}[{j}]"
        _V.obj(para, q)
        paragraphs.append(
            {
                "markdown": _V.string(require(para, "markdown", q), f"{q}.markdown", nonempty=True),
                "cites": _cites(para.get("cites", []), f"{q}.cites"),
            }
        )
    return paragraphs


def _decision_card(value) -> dict:
    card = _V.obj(value, "decision_card") if value is not None else {}
    for key in card:  # keys beyond the three are kept (round trip), so each must be storable text
        try:
            _V.string(key, "decision_card", nonempty=True, max_length=100)
        except DeskError as exc:
            raise DeskError("decision_card", f"a key {exc.message}") from None
    return {key: _V.strings(card[key], f"decision_card.{key}") for key in card}


def _writer(value) -> dict:
    writer = _V.obj(value, "writer") if value is not None else {}
    return {
        "agent": _V.string(writer.get("agent"), "writer.agent", required=False, max_length=200),
        "run_id": _V.string(writer.get("run_id"), "writer.run_id", required=False, max_length=200),
    }


def _corrections(value) -> list[dict]:
    corrections = []
    for i, corr in enumerate(_V.lst(value, "corrections")):
        p = f"corrections[{i}]"
        _V.obj(corr, p)
        kind = _V.string(require(corr, "kind", p), f"{p}.kind")
        if kind not in CORRECTION_KINDS:
            raise DeskError(f"{p}.kind", f"must be one of {', '.join(CORRECTION_KINDS)}, not {kind!r}")
        corrections.append(
            {
                "corrected_at": _V.timestamp(require(corr, "corrected_at", p), f"{p}.corrected_at"),
                "kind": kind,
                "text": _V.string(require(corr, "text", p), f"{p}.text", nonempty=True),
            }
        )
    for i in range(1, len(corrections)):
        if corrections[i]["corrected_at"] < corrections[i - 1]["corrected_at"]:
            raise DeskError(
                f"corrections[{i}].corrected_at",
                f"is earlier than corrections[{i - 1}]: corrections must be oldest first",
            )
    return corrections


def _related(value) -> list[dict]:
    related = []
    for i, rel in enumerate(_V.lst(value, "related")):
        p = f"related[{i}]"
        _V.obj(rel, p)
        related.append(
            {
                "url": _V.url(require(rel, "url", p), f"{p}.url"),
                "headline": _V.string(require(rel, "headline", p), f"{p}.headline", nonempty=True, max_length=500),
                "slug": _V.slug(rel["slug"], f"{p}.slug") if rel.get("slug") not in (None, "") else "",
            }
        )
    return related


def _check_derived(data: dict) -> None:
    """Derived fields may be present; they prove nothing, but must have the right types,
    and ids must be strings (never numbers)."""
    for i, mid in enumerate(_V.lst(data.get("cited_manifest_ids", []), "cited_manifest_ids")):
        _V.ident(mid, f"cited_manifest_ids[{i}]")
    if "source_count" in data and (isinstance(data["source_count"], bool) or not isinstance(data["source_count"], int)):
        raise DeskError("source_count", f"must be a number, not {_kind(data['source_count'])}")
    _V.strings(data.get("publishers", []), "publishers")
    run = data.get("run_these_manifests")
    if isinstance(run, dict):
        for i, mid in enumerate(_V.lst(run.get("manifest_ids", []), "run_these_manifests.manifest_ids")):
            _V.ident(mid, f"run_these_manifests.manifest_ids[{i}]")
