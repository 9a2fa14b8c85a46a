"""The ``hangingcontext.desk/1`` story format: the one module that reads and writes it.

- ``parse(text)`` / ``validate(data)``: a JSON document to a validated desk/1 dict, or a
  ``DeskError`` naming the JSON path of the first problem.
- ``render(stored, ...)``: the stored fields plus every derived field, in the seed's key order.
- ``export_story(story)``: a loaded ``Story`` as a desk/1 dict.
- ``import_story(data)``: upsert a validated document into the database, atomically.

See ``shared/spec/desk-1.md`` (copied to ``docs/desk-1.md``) for each field.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass

from django.conf import settings
from django.db import DataError, IntegrityError, transaction

from manifests.formats import upsert_manifest, validate_manifest
from manifests.models import Claim, Manifest
from newsroom.infra.jsondoc import FormatError as DeskError
from newsroom.infra.jsondoc import V as _V
from newsroom.infra.jsondoc import _kind, loads, require
from newsroom.models import Beat, Edition, Newsroom, SiteProfile, parse_edition

SCHEMA = "hangingcontext.desk/1"
CORRECTION_KINDS = ("correction", "clarification", "update")
DECISION_CARD_KEYS = ("useful_for", "not_for", "compare_against")


def parse(text: str | bytes) -> dict:
    return validate(loads(text))


def _cites(value, path) -> list[dict]:
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


def validate(data) -> dict:
    """Check a parsed document against desk/1 and return it normalised (stored fields only,
    plus the story's own ``manifests`` list, which import uses for stubs)."""
    _V.obj(data, "$")
    schema = require(data, "schema")
    if schema != SCHEMA:
        raise DeskError("schema", f"must be {SCHEMA!r}, not {schema!r}")
    if data.get("type", "story") != "story":
        raise DeskError("type", f"must be 'story', not {data.get('type')!r}")

    doc: dict = {}
    doc["id"] = _V.ident(data["id"], "id") if data.get("id") is not None else None
    doc["slug"] = _V.slug(require(data, "slug"), "slug")
    edition = _V.string(require(data, "edition"), "edition", max_length=40)
    try:
        parse_edition(edition)
    except ValueError:
        raise DeskError("edition", f"{edition!r} is not an edition (YYYY-MM-DDTHH, a real UTC hour)") from None
    doc["edition"] = edition
    # max_length: the columns' sizes, so that a long value is a format error, not a database one.
    doc["newsroom"] = _V.slug(require(data, "newsroom"), "newsroom", max_length=100)
    doc["beat"] = _V.slug(data["beat"], "beat", max_length=100) if data.get("beat") is not None else None
    doc["newsroom_title"] = _V.string(data.get("newsroom_title"), "newsroom_title", required=False, max_length=200)
    audience = _V.string(data.get("audience"), "audience", required=False, max_length=100)
    if audience and not re.fullmatch(r"[a-z0-9_-]+", audience):
        raise DeskError("audience", f"{audience[:80]!r} is not a slug ([a-z0-9_-]+)")
    doc["audience"] = audience
    doc["angle"] = _V.string(data.get("angle"), "angle", required=False)
    doc["headline"] = _V.string(require(data, "headline"), "headline", nonempty=True, max_length=500)
    doc["dek"] = _V.string(data.get("dek"), "dek", required=False)
    published = data.get("published_at")
    doc["published_at"] = _V.timestamp(published, "published_at") if published is not None else None

    labels = data.get("labels")
    trust = "reported"
    if labels is not None:
        _V.obj(labels, "labels")
        if labels.get("trust") is not None:
            trust = _V.slug(labels["trust"], "labels.trust", max_length=50)
    doc["trust"] = trust

    doc["key_facts"] = []
    for i, fact in enumerate(_V.lst(data.get("key_facts", []), "key_facts")):
        p = f"key_facts[{i}]"
        _V.obj(fact, p)
        doc["key_facts"].append(
            {
                "text": _V.string(require(fact, "text", p), f"{p}.text", nonempty=True),
                "self_reported": _V.boolean(fact["self_reported"], f"{p}.self_reported")
                if "self_reported" in fact
                else None,
                "cites": _cites(fact.get("cites", []), f"{p}.cites"),
            }
        )

    doc["images"] = []
    for i, image in enumerate(_V.lst(data.get("images", []), "images")):
        p = f"images[{i}]"
        _V.obj(image, p)
        doc["images"].append(
            {
                "url": _V.url(require(image, "url", p), f"{p}.url"),
                "alt": _V.string(require(image, "alt", p), f"{p}.alt", nonempty=True, max_length=1000),
                "caption": _V.string(image.get("caption"), f"{p}.caption", required=False),
                "credit": _V.string(image.get("credit"), f"{p}.credit", required=False, max_length=500),
                "width": _V.optional_int(image.get("width"), f"{p}.width"),
                "height": _V.optional_int(image.get("height"), f"{p}.height"),
            }
        )

    doc["sections"] = []
    for i, section in enumerate(_V.lst(require(data, "sections"), "sections")):
        p = f"sections[{i}]"
        _V.obj(section, p)
        paragraphs = []
        for j, para in enumerate(_V.lst(require(section, "paragraphs", p), f"{p}.paragraphs")):
            q = f"{p}.paragraphs[{j}]"
            _V.obj(para, q)
            paragraphs.append(
                {
                    "markdown": _V.string(require(para, "markdown", q), f"{q}.markdown", nonempty=True),
                    "cites": _cites(para.get("cites", []), f"{q}.cites"),
                }
            )
        doc["sections"].append(
            {
                "heading": _V.string(require(section, "heading", p), f"{p}.heading", max_length=500),
                "paragraphs": paragraphs,
            }
        )

    doc["unresolved"] = _V.strings(data.get("unresolved", []), "unresolved")
    card = _V.obj(data["decision_card"], "decision_card") if data.get("decision_card") is not None else {}
    for key in card:  # keys beyond the three are kept (round trip), so each must be storable text
        try:
            _V.string(key, "decision_card", nonempty=True, max_length=100)
        except DeskError as exc:
            raise DeskError("decision_card", f"a key {exc.message}") from None
    doc["decision_card"] = {key: _V.strings(card[key], f"decision_card.{key}") for key in card}

    writer = _V.obj(data["writer"], "writer") if data.get("writer") is not None else {}
    doc["writer"] = {
        "agent": _V.string(writer.get("agent"), "writer.agent", required=False, max_length=200),
        "run_id": _V.string(writer.get("run_id"), "writer.run_id", required=False, max_length=200),
    }

    doc["corrections"] = []
    for i, corr in enumerate(_V.lst(data.get("corrections", []), "corrections")):
        p = f"corrections[{i}]"
        _V.obj(corr, p)
        kind = _V.string(require(corr, "kind", p), f"{p}.kind")
        if kind not in CORRECTION_KINDS:
            raise DeskError(f"{p}.kind", f"must be one of {', '.join(CORRECTION_KINDS)}, not {kind!r}")
        doc["corrections"].append(
            {
                "corrected_at": _V.timestamp(require(corr, "corrected_at", p), f"{p}.corrected_at"),
                "kind": kind,
                "text": _V.string(require(corr, "text", p), f"{p}.text", nonempty=True),
            }
        )
    for i in range(1, len(doc["corrections"])):
        if doc["corrections"][i]["corrected_at"] < doc["corrections"][i - 1]["corrected_at"]:
            raise DeskError(
                f"corrections[{i}].corrected_at",
                f"is earlier than corrections[{i - 1}]: corrections must be oldest first",
            )

    doc["related"] = []
    for i, rel in enumerate(_V.lst(data.get("related", []), "related")):
        p = f"related[{i}]"
        _V.obj(rel, p)
        doc["related"].append(
            {
                "url": _V.url(require(rel, "url", p), f"{p}.url"),
                "headline": _V.string(require(rel, "headline", p), f"{p}.headline", nonempty=True, max_length=500),
                "slug": _V.slug(rel["slug"], f"{p}.slug") if rel.get("slug") not in (None, "") else "",
            }
        )

    doc["manifests"] = []
    for i, entry in enumerate(_V.lst(data.get("manifests", []), "manifests")):
        doc["manifests"].append(validate_manifest(entry, f"manifests[{i}]", claims=False))

    # Derived fields may be present; they prove nothing, but must have the right types,
    # and ids must be strings (never numbers).
    for i, mid in enumerate(_V.lst(data.get("cited_manifest_ids", []), "cited_manifest_ids")):
        _V.ident(mid, f"cited_manifest_ids[{i}]")
    if "source_count" in data and (isinstance(data["source_count"], bool) or not isinstance(data["source_count"], int)):
        raise DeskError("source_count", f"must be a number, not {_kind(data['source_count'])}")
    _V.strings(data.get("publishers", []), "publishers")
    run = data.get("run_these_manifests")
    if isinstance(run, dict):
        for i, mid in enumerate(_V.lst(run.get("manifest_ids", []), "run_these_manifests.manifest_ids")):
            _V.ident(mid, f"run_these_manifests.manifest_ids[{i}]")
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


# --------------------------------------------------------------------------- deriving

DERIVED_KEYS = (
    "url",
    "newsroom_title",
    "labels",
    "source_count",
    "publishers",
    "cited_manifest_ids",
    "manifests",
    "run_these_manifests",
    "links",
    "sponsor",
    "disclosure",
    "reuse",
)


@dataclass(frozen=True)
class ManifestInfo:
    manifest_id: str
    title: str
    source_name: str
    source_url: str
    published_date: dt.date

    def as_dict(self) -> dict:
        return {
            "manifest_id": self.manifest_id,
            "title": self.title,
            "source_name": self.source_name,
            "source_url": self.source_url,
            "published_date": self.published_date.isoformat(),
        }

    @classmethod
    def of(cls, manifest: Manifest) -> ManifestInfo:
        return cls(manifest.id, manifest.title, manifest.publisher.name, manifest.source_url, manifest.published_date)


def iter_cites(doc: dict):
    """(path, cite) for every cite, key facts first, then sections: desk/1's citing order."""
    for i, fact in enumerate(doc["key_facts"]):
        for k, cite in enumerate(fact["cites"]):
            yield f"key_facts[{i}].cites[{k}]", cite
    for i, section in enumerate(doc["sections"]):
        for j, para in enumerate(section["paragraphs"]):
            for k, cite in enumerate(para["cites"]):
                yield f"sections[{i}].paragraphs[{j}].cites[{k}]", cite


def cited_manifest_ids(doc: dict) -> list[str]:
    return list(dict.fromkeys(cite["manifest_id"] for _, cite in iter_cites(doc)))


def story_url(edition: str, slug: str) -> str:
    return f"{settings.SITE_URL}/stories/{edition[:10]}/{slug}/"


def format_time(value: dt.datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def trust_text(trust: str, source_count: int) -> str:
    return f"{trust.replace('_', ' ').capitalize()} · {source_count} source{'' if source_count == 1 else 's'}"


def key_fact_self_reported(fact: dict, claims_self_reported: dict[str, bool | None]) -> bool:
    """True when every claim the fact cites is self-reported by its source. While a cited
    claim is a stub (unknown), the flag as imported stands."""
    flags = [claims_self_reported.get(cid) for cite in fact["cites"] for cid in cite["claim_ids"]]
    if not flags:
        return bool(fact.get("self_reported")) if fact.get("self_reported") is not None else False
    if any(flag is False for flag in flags):
        return False
    if all(flag is True for flag in flags):
        return True
    return bool(fact.get("self_reported"))


def render(
    doc: dict,
    *,
    manifests: dict[str, ManifestInfo],
    claims_self_reported: dict[str, bool | None],
    newsroom_title: str,
    profile: SiteProfile,
) -> dict:
    """The full desk/1 document, in the seed's key order, from the stored fields ``doc``."""
    url = story_url(doc["edition"], doc["slug"])
    cited = cited_manifest_ids(doc)
    known = [manifests[mid] for mid in cited if mid in manifests]
    source_count = len(cited)
    out = {
        "schema": SCHEMA,
        "type": "story",
        "id": doc["id"],
        "slug": doc["slug"],
        "edition": doc["edition"],
        "url": url,
        "newsroom": doc["newsroom"],
        "beat": doc["beat"],
        "newsroom_title": newsroom_title,
        "audience": doc["audience"],
        "angle": doc["angle"],
        "headline": doc["headline"],
        "dek": doc["dek"],
        "published_at": format_time(doc["published_at"]),
        "labels": {
            "trust": doc["trust"],
            "trust_text": trust_text(doc["trust"], source_count),
            "newsroom": newsroom_title,
        },
        "source_count": source_count,
        "publishers": sorted({m.source_name for m in known}),
        "key_facts": [
            {
                "text": fact["text"],
                "self_reported": key_fact_self_reported(fact, claims_self_reported),
                "cites": [dict(c) for c in fact["cites"]],
            }
            for fact in doc["key_facts"]
        ],
        "images": [dict(image) for image in doc["images"]],
        "sections": [
            {
                "heading": s["heading"],
                "paragraphs": [
                    {"markdown": p["markdown"], "cites": [dict(c) for c in p["cites"]]} for p in s["paragraphs"]
                ],
            }
            for s in doc["sections"]
        ],
        "unresolved": list(doc["unresolved"]),
        "decision_card": _ordered_card(doc["decision_card"]),
        "writer": {"agent": doc["writer"]["agent"], "run_id": doc["writer"]["run_id"]},
        "corrections": [
            {"corrected_at": format_time(c["corrected_at"]), "kind": c["kind"], "text": c["text"]}
            for c in doc["corrections"]
        ],
        "cited_manifest_ids": cited,
        "manifests": [m.as_dict() for m in known],
        "run_these_manifests": profile.run_these_manifests_for(cited),
        "links": {
            "html": url,
            "json": url + "index.json",
            "markdown": url + "index.md",
            "newsroom": f"{settings.SITE_URL}/n/{doc['newsroom']}/",
            "edition": f"{settings.SITE_URL}/editions/{doc['edition']}/",
        },
        "related": [dict(r) for r in doc["related"]],
    }
    if profile.sponsor:
        out["sponsor"] = profile.sponsor
    out["disclosure"] = profile.disclosure
    out["reuse"] = profile.reuse_for(url)
    return out


def _ordered_card(card: dict) -> dict:
    ordered = {key: list(card[key]) for key in DECISION_CARD_KEYS if key in card}
    ordered.update({key: list(value) for key, value in card.items() if key not in ordered})
    return ordered


# --------------------------------------------------------------------------- writing


def stored_fields(story) -> dict:
    """A loaded Story (see ``Story.objects.with_everything()``) as the stored fields of desk/1."""

    def cites_of(owner) -> list[dict]:
        return [
            {"manifest_id": c.manifest_id, "claim_ids": [cc.claim_id for cc in c.claims.all()]}
            for c in owner.cites.all()
        ]

    return {
        "id": story.id,
        "slug": story.slug,
        "edition": story.edition_id,
        "newsroom": story.newsroom.slug,
        "beat": story.beat.slug if story.beat_id else None,
        "audience": story.audience,
        "angle": story.angle,
        "headline": story.headline,
        "dek": story.dek,
        "published_at": _to_second(story.published_at),
        "trust": story.trust,
        "key_facts": [
            {"text": f.text, "self_reported": f.declared_self_reported, "cites": cites_of(f)}
            for f in story.key_facts.all()
        ],
        "images": [
            {"url": i.url, "alt": i.alt, "caption": i.caption, "credit": i.credit, "width": i.width, "height": i.height}
            for i in story.images.all()
        ],
        "sections": [
            {
                "heading": s.heading,
                "paragraphs": [{"markdown": p.markdown, "cites": cites_of(p)} for p in s.paragraphs.all()],
            }
            for s in story.sections.all()
        ],
        "unresolved": story.unresolved,
        "decision_card": story.decision_card,
        "writer": {"agent": story.writer_agent, "run_id": story.writer_run_id},
        "corrections": [
            {"corrected_at": _to_second(c.corrected_at), "kind": c.kind, "text": c.text}
            for c in story.corrections.all()
        ],
        "related": [{"url": r.url, "headline": r.headline, "slug": r.slug} for r in story.related_links.all()],
    }


def _to_second(value: dt.datetime | None) -> dt.datetime | None:
    """desk/1 times are to the second: actions stamp ``timezone.now()`` with microseconds,
    which the export drops, so comparisons with an imported document are made at seconds."""
    return value.replace(microsecond=0) if value is not None else None


def _loaded_manifests(story) -> tuple[dict[str, ManifestInfo], dict[str, bool | None]]:
    manifests, flags = {}, {}
    for owner in list(story.key_facts.all()) + [p for s in story.sections.all() for p in s.paragraphs.all()]:
        for cite in owner.cites.all():
            manifests.setdefault(cite.manifest_id, ManifestInfo.of(cite.manifest))
            for cc in cite.claims.all():
                flags[cc.claim_id] = cc.claim.self_reported if cc.claim.has_text else None
    return manifests, flags


def export_story(story, *, profile: SiteProfile | None = None) -> dict:
    """A story loaded with ``with_everything()`` as a desk/1 dict (no further queries but
    the site profile, which callers rendering many stories pass in)."""
    manifests, flags = _loaded_manifests(story)
    return render(
        stored_fields(story),
        manifests=manifests,
        claims_self_reported=flags,
        newsroom_title=story.newsroom.title,
        profile=profile or SiteProfile.load(),
    )


def dumps(data: dict, *, pretty: bool = True) -> str:
    """desk/1 JSON as the seed has it: two-space indent, UTF-8 characters unescaped."""
    if pretty:
        return json.dumps(data, ensure_ascii=False, indent=2)
    return json.dumps(data, ensure_ascii=False)


def render_document(doc: dict) -> dict:
    """A validated document (not stored) rendered with derived fields from the database:
    what the story would export as. Used by the checks."""
    ids = cited_manifest_ids(doc)
    db = {m.id: m for m in Manifest.objects.filter(id__in=ids).select_related("publisher")}
    claim_ids = {cid for _, cite in iter_cites(doc) for cid in cite["claim_ids"]}
    flags = {
        c.id: (c.self_reported if c.has_text else None)
        for c in Claim.objects.filter(id__in=claim_ids).only("id", "self_reported", "has_text")
    }
    newsroom = Newsroom.objects.filter(slug=doc["newsroom"]).first()
    title = newsroom.title if newsroom else (doc["newsroom_title"] or _title_of(doc["newsroom"]))
    # A manifest the database lacks is rendered from the story's own list, as import would store it.
    infos = {m["manifest_id"]: ManifestInfo(**m) for m in doc.get("manifests", []) if m["manifest_id"] in ids}
    infos.update({mid: ManifestInfo.of(m) for mid, m in db.items()})
    return render(
        doc,
        manifests=infos,
        claims_self_reported=flags,
        newsroom_title=title,
        profile=SiteProfile.load(),
    )


def _title_of(slug: str) -> str:
    return slug.replace("-", " ").title()


# --------------------------------------------------------------------------- importing


@dataclass
class ImportResult:
    story: object
    outcome: str  # "created", "updated" or "unchanged"


def resolve_references(doc: dict) -> None:
    """Raise DeskError for cites that import cannot store: a manifest neither in the
    database nor in the story's ``manifests`` list, or a claim the database holds under
    another manifest."""
    listed = {m["manifest_id"] for m in doc["manifests"]}
    ids = cited_manifest_ids(doc)
    stored = set(Manifest.objects.filter(id__in=ids).values_list("id", flat=True))
    claim_ids = {cid for _, cite in iter_cites(doc) for cid in cite["claim_ids"]}
    owners = dict(Claim.objects.filter(id__in=claim_ids).values_list("id", "manifest_id"))
    for path, cite in iter_cites(doc):
        mid = cite["manifest_id"]
        if mid not in stored and mid not in listed:
            raise DeskError(
                f"{path}.manifest_id", f"manifest {mid} is neither in the database nor in the story's manifests list"
            )
        for j, cid in enumerate(cite["claim_ids"]):
            owner = owners.get(cid)
            if owner is not None and owner != mid:
                raise DeskError(f"{path}.claim_ids[{j}]", f"claim {cid} belongs to manifest {owner}, not {mid}")
    for path, cite in iter_cites(doc):
        # The same claim under two manifests inside this document is just as wrong.
        for j, cid in enumerate(cite["claim_ids"]):
            owners.setdefault(cid, cite["manifest_id"])
            if owners[cid] != cite["manifest_id"]:
                raise DeskError(
                    f"{path}.claim_ids[{j}]",
                    f"claim {cid} is cited under manifest {owners[cid]} elsewhere in this story",
                )


def import_story(doc: dict, *, user=None, action: str = "import") -> ImportResult:
    """Upsert a validated story by id, atomically. Creates the newsroom, beat and edition it
    names, and stub manifests/claims for cites the database lacks."""
    resolve_references(doc)
    try:
        with transaction.atomic():
            return save_document(doc, user=user, action=action)
    except (IntegrityError, DataError) as exc:
        # Validation should catch everything first; if the database still refuses a row,
        # report it like any other bad input (the transaction has been rolled back).
        raise DeskError("$", f"the database refused this story: {exc}") from exc


def _same_stored_fields(current: dict, doc: dict, flags: dict[str, bool | None]) -> bool:
    """Whether ``doc`` would store what is stored. A key fact's imported ``self_reported``
    only counts while its claims are stubs, so it is compared as exported."""
    if any(current[k] != doc[k] for k in current if k not in ("id", "key_facts")):
        return False
    if len(current["key_facts"]) != len(doc["key_facts"]):
        return False
    return all(
        old["text"] == new["text"]
        and old["cites"] == new["cites"]
        and key_fact_self_reported(old, flags) == key_fact_self_reported(new, flags)
        for old, new in zip(current["key_facts"], doc["key_facts"])
    )


def save_document(doc: dict, *, user=None, action: str = "import", expected_version: int | None = None) -> ImportResult:
    """Write a validated, resolved document. Call inside ``transaction.atomic()``.

    ``expected_version``: refuse (``VersionConflict``) when the stored story has moved on.
    """
    from stories.models import AuditEntry, Story

    if doc["id"]:
        story = Story.objects.select_for_update().filter(id=doc["id"]).first()
    else:
        # No id: the story with this slug on this edition date is this one (so importing
        # the same id-less file twice changes nothing); otherwise a new id is assigned.
        story = Story.objects.select_for_update().filter(edition_date=doc["edition"][:10], slug=doc["slug"]).first()
    if story is not None:
        if expected_version is not None and story.version != expected_version:
            raise VersionConflict(story, expected_version)
        loaded = Story.objects.with_everything().get(pk=story.pk)
        current = stored_fields(loaded)
        if _same_stored_fields(current, doc, _loaded_manifests(loaded)[1]):
            return ImportResult(loaded, "unchanged")
        _check_append_only(current["corrections"], doc["corrections"])
        outcome = "updated"
        story.version += 1
    else:
        story = Story(id=doc["id"]) if doc["id"] else Story()
        outcome = "created"
        current = {"corrections": []}

    # Only now that something will be written (an unchanged story has all of these already).
    newsroom, _ = Newsroom.objects.get_or_create(
        slug=doc["newsroom"], defaults={"title": doc["newsroom_title"] or _title_of(doc["newsroom"])}
    )
    beat = Beat.objects.get_or_create(newsroom=newsroom, slug=doc["beat"])[0] if doc["beat"] else None
    edition, _ = Edition.objects.get_or_create_for(doc["edition"])
    _create_stubs(doc)

    clash = Story.objects.filter(edition_date=doc["edition"][:10], slug=doc["slug"]).exclude(pk=story.pk).first()
    if clash is not None:
        raise DeskError("slug", f"slug {doc['slug']!r} is already used on {doc['edition'][:10]} by story {clash.pk}")

    story.slug = doc["slug"]
    story.edition = edition
    story.newsroom = newsroom
    story.beat = beat
    set_text_fields(story, doc)
    if doc["published_at"] is not None:
        story.status = Story.Status.PUBLISHED
        story.scheduled_for = None  # published now: no longer waiting for its slot
    elif story.status == Story.Status.PUBLISHED:
        story.status = Story.Status.DRAFT
    story.save()

    _replace_children([(story, doc)], new=outcome == "created")
    from stories.checks.fingerprint import refresh_fingerprint  # lazily: the checks import this module

    refresh_fingerprint(story, doc)  # not_a_repeat compares fingerprints, never other stories' text
    for corr in doc["corrections"][len(current["corrections"]) :]:
        story.corrections.create(
            corrected_at=corr["corrected_at"], kind=corr["kind"], text=corr["text"], created_by=user
        )

    loaded = Story.objects.with_everything().get(pk=story.pk)
    record_revision(loaded, user=user)
    AuditEntry.objects.create(story=story, action=action, user=user, version=story.version)
    return ImportResult(loaded, outcome)


def set_text_fields(story, doc: dict) -> None:
    """The story's own fields that come straight from a validated desk/1 document (both
    import paths: this module's per-story save and ``desk_bulk``)."""
    story.audience = doc["audience"]
    story.angle = doc["angle"]
    story.headline = doc["headline"]
    story.dek = doc["dek"]
    story.trust = doc["trust"]
    story.published_at = doc["published_at"]
    story.unresolved = doc["unresolved"]
    story.decision_card = doc["decision_card"]
    story.writer_agent = doc["writer"]["agent"]
    story.writer_run_id = doc["writer"]["run_id"]


class VersionConflict(Exception):
    """The story was saved by someone else since it was opened."""

    def __init__(self, story, expected_version: int):
        self.story = story
        self.expected_version = expected_version
        super().__init__(
            f"story {story.pk} is at version {story.version}, not {expected_version}: someone else saved it first"
        )


def record_revision(story, *, user=None):
    """Keep the story's desk/1 JSON as of this version (one revision per version)."""
    from stories.models import Revision

    Revision.objects.update_or_create(
        story=story, version=story.version, defaults={"data": export_story(story), "created_by": user}
    )


def _check_append_only(existing: list[dict], incoming: list[dict]) -> None:
    for i, old in enumerate(existing):
        if i >= len(incoming) or incoming[i] != old:
            raise DeskError(
                f"corrections[{i}]",
                "corrections are append-only: the document must keep every recorded correction, unchanged and in order",
            )


def _create_stubs(doc: dict) -> None:
    """Manifests and claims the database lacks, created from the story itself: the
    manifest from the story's ``manifests`` entry, its claims by id with no text yet."""
    listed = {m["manifest_id"]: m for m in doc["manifests"]}
    ids = cited_manifest_ids(doc)
    stored = set(Manifest.objects.filter(id__in=ids).values_list("id", flat=True))
    for mid in ids:
        if mid not in stored:
            upsert_manifest(listed[mid], with_claims=False)
    wanted = {}
    for _, cite in iter_cites(doc):
        for cid in cite["claim_ids"]:
            wanted.setdefault(cid, cite["manifest_id"])
    have = set(Claim.objects.filter(id__in=wanted).values_list("id", flat=True))
    Claim.objects.bulk_create(
        [
            Claim(id=cid, manifest_id=mid, text="", has_text=False, self_reported=None, position=10_000)
            for cid, mid in wanted.items()
            if cid not in have
        ]
    )


def _replace_children(pairs: list[tuple[object, dict]], *, new: bool = False) -> None:
    """Write the parts (key facts, sections, paragraphs, cites and their claims, images,
    related links) of each (story, document) pair: one INSERT per table for all of them.
    The bulk import (``stories.desk_bulk``) writes many new stories' parts through here too."""
    from newsroom.infra.bulk import bulk_insert
    from stories.models import Cite, CiteClaim, Image, KeyFact, Paragraph, RelatedLink, Section

    if not new:  # a story just created has no parts to remove
        for story, _ in pairs:
            story.key_facts.all().delete()
            story.sections.all().delete()
            story.images.all().delete()
            story.related_links.all().delete()

    # One INSERT (or COPY) per table: bulk_insert sets the new rows' ids, which the rows
    # below them point to (by id: cheaper to build than through the relations). Rows are in
    # story order in every table, so that many stories written at once get the ids they
    # would get written one by one.
    fact_rows = [(n, i, f) for n, (_, doc) in enumerate(pairs) for i, f in enumerate(doc["key_facts"])]
    facts = bulk_insert(
        KeyFact,
        [
            KeyFact(story_id=pairs[n][0].pk, position=i, text=f["text"], declared_self_reported=f["self_reported"])
            for n, i, f in fact_rows
        ],
    )
    section_rows = [(n, i, s) for n, (_, doc) in enumerate(pairs) for i, s in enumerate(doc["sections"])]
    sections = bulk_insert(
        Section,
        [Section(story_id=pairs[n][0].pk, position=i, heading=s["heading"]) for n, i, s in section_rows],
    )
    rows = [(n, sec, j, p) for sec, (n, _, s) in zip(sections, section_rows) for j, p in enumerate(s["paragraphs"])]
    paragraphs = bulk_insert(
        Paragraph, [Paragraph(section_id=sec.pk, position=j, markdown=p["markdown"]) for _, sec, j, p in rows]
    )

    # Each story's cites in desk/1's order: its key facts' first, then its paragraphs'.
    owners: list[list[tuple[dict, dict]]] = [[] for _ in pairs]
    for kf, (n, _, fact) in zip(facts, fact_rows):
        owners[n].append(({"key_fact_id": kf.pk}, fact))
    for para, (n, _, _, data) in zip(paragraphs, rows):
        owners[n].append(({"paragraph_id": para.pk}, data))
    cite_rows: list[tuple[Cite, list[str]]] = [
        (Cite(position=k, manifest_id=cite["manifest_id"], **owner), cite["claim_ids"])
        for story_owners in owners
        for owner, data in story_owners
        for k, cite in enumerate(data["cites"])
    ]
    cites = bulk_insert(Cite, [row for row, _ in cite_rows])
    bulk_insert(
        CiteClaim,
        [
            CiteClaim(cite_id=cite.pk, position=j, claim_id=cid)
            for cite, (_, ids) in zip(cites, cite_rows)
            for j, cid in enumerate(ids)
        ],
        ids=False,
    )
    bulk_insert(
        Image,
        [
            Image(story_id=story.pk, position=i, **image)
            for story, doc in pairs
            for i, image in enumerate(doc["images"])
        ],
        ids=False,
    )
    bulk_insert(
        RelatedLink,
        [
            RelatedLink(story_id=story.pk, position=i, **rel)
            for story, doc in pairs
            for i, rel in enumerate(doc["related"])
        ],
        ids=False,
    )
