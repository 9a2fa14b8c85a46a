"""The ``hangingcontext.manifests/1`` format: sources and their claims, read and upserted."""

import json

from django.db import models, transaction

from newsroom.infra.jsondoc import FormatError, V, require

from .models import Claim, Manifest, Publisher

SCHEMA = "hangingcontext.manifests/1"


def validate_manifest(entry, path: str, *, claims: bool = True) -> dict:
    """One entry of a manifests/1 document (or of a story's ``manifests`` list)."""
    V.obj(entry, path)
    out = {
        "manifest_id": V.ident(require(entry, "manifest_id", path), f"{path}.manifest_id"),
        "title": V.string(require(entry, "title", path), f"{path}.title", nonempty=True, max_length=500),
        "source_name": V.string(
            require(entry, "source_name", path), f"{path}.source_name", nonempty=True, max_length=200
        ),
        "source_url": V.url(require(entry, "source_url", path), f"{path}.source_url"),
        "published_date": V.date(require(entry, "published_date", path), f"{path}.published_date"),
    }
    if claims:
        out["claims"] = []
        seen = set()
        for i, claim in enumerate(V.lst(require(entry, "claims", path), f"{path}.claims")):
            p = f"{path}.claims[{i}]"
            V.obj(claim, p)
            claim_id = V.ident(require(claim, "claim_id", p), f"{p}.claim_id")
            if claim_id in seen:
                raise FormatError(f"{p}.claim_id", f"claim {claim_id} appears twice in this manifest")
            seen.add(claim_id)
            out["claims"].append(
                {
                    "claim_id": claim_id,
                    "text": V.string(require(claim, "text", p), f"{p}.text", nonempty=True),
                    "self_reported": V.boolean(claim.get("self_reported", False), f"{p}.self_reported"),
                }
            )
    return out


def validate_manifests_document(data) -> list[dict]:
    V.obj(data, "$")
    schema = require(data, "schema")
    if schema != SCHEMA:
        raise FormatError("schema", f"must be {SCHEMA!r}, not {schema!r}")
    manifests = [
        validate_manifest(m, f"manifests[{i}]") for i, m in enumerate(V.lst(require(data, "manifests"), "manifests"))
    ]
    seen, claim_owner = {}, {}
    for i, m in enumerate(manifests):
        if m["manifest_id"] in seen:
            raise FormatError(f"manifests[{i}].manifest_id", f"manifest {m['manifest_id']} appears twice")
        seen[m["manifest_id"]] = i
        for j, claim in enumerate(m["claims"]):
            owner = claim_owner.setdefault(claim["claim_id"], m["manifest_id"])
            if owner != m["manifest_id"]:
                raise FormatError(
                    f"manifests[{i}].claims[{j}].claim_id",
                    f"claim {claim['claim_id']} also appears under manifest {owner}",
                )
    return manifests


def upsert_manifest(entry: dict, *, with_claims: bool) -> str:
    """Create or update a manifest (and, from a manifests/1 document, its claims).
    Returns "created", "updated" or "unchanged". Call inside a transaction."""
    publisher, _ = Publisher.objects.get_or_create(name=entry["source_name"])
    fields = {
        "title": entry["title"],
        "publisher": publisher,
        "source_url": entry["source_url"],
        "published_date": entry["published_date"],
    }
    manifest = Manifest.objects.select_for_update().filter(id=entry["manifest_id"]).first()
    outcome = "unchanged"
    if manifest is None:
        manifest = Manifest.objects.create(id=entry["manifest_id"], **fields)
        outcome = "created"
    elif any(getattr(manifest, k) != v for k, v in fields.items()):
        for k, v in fields.items():
            setattr(manifest, k, v)
        manifest.save()
        outcome = "updated"
    if with_claims:
        changed = _upsert_claims(manifest, entry["claims"])
        if changed and outcome == "unchanged":
            outcome = "updated"
    return outcome


def _upsert_claims(manifest: Manifest, claims: list[dict]) -> bool:
    existing = {c.id: c for c in Claim.objects.filter(id__in=[c["claim_id"] for c in claims])}
    changed = False
    for position, claim in enumerate(claims):
        current = existing.get(claim["claim_id"])
        if current is not None and current.manifest_id != manifest.id:
            raise FormatError(
                f"claims[{position}].claim_id",
                f"claim {claim['claim_id']} belongs to manifest {current.manifest_id}, not {manifest.id}",
            )
        values = {
            "text": claim["text"],
            "self_reported": claim["self_reported"],
            "has_text": True,
            "position": position,
        }
        if current is None:
            Claim.objects.create(id=claim["claim_id"], manifest=manifest, **values)
            changed = True
        elif any(getattr(current, k) != v for k, v in values.items()):
            Claim.objects.filter(id=current.id).update(**values)
            changed = True
    return changed


def import_manifests_document(data) -> dict[str, int]:
    """Upsert every manifest of a manifests/1 document, atomically. Counts by outcome."""
    manifests = validate_manifests_document(data)
    counts = {"created": 0, "updated": 0, "unchanged": 0}
    with transaction.atomic():
        for i, entry in enumerate(manifests):
            try:
                counts[upsert_manifest(entry, with_claims=True)] += 1
            except FormatError as exc:
                raise FormatError(f"manifests[{i}].{exc.path}", exc.message) from None
    return counts


def export_manifests_document(manifests=None) -> dict:
    """Every manifest (or those of the queryset ``manifests``) as a manifests/1 document, in
    a stable order: manifests by id, claims by position then id.

    Stub claims (known by id only, ``has_text=False``) are left out: manifests/1 requires a
    claim's text, and importing the stories that cite a stub creates it again. A manifest
    with only stubs is exported with ``"claims": []``, so its title, source and date survive.
    Importing the result and exporting again gives the same document, byte for byte.
    """
    if manifests is None:
        manifests = Manifest.objects.all()
    manifests = manifests.select_related("publisher").prefetch_related(
        models.Prefetch("claims", queryset=Claim.objects.filter(has_text=True).order_by("position", "id"))
    )
    return {
        "schema": SCHEMA,
        "manifests": [
            {
                "manifest_id": m.id,
                "title": m.title,
                "source_name": m.publisher.name,
                "source_url": m.source_url,
                "published_date": m.published_date.isoformat(),
                "claims": [
                    # self_reported is unknown (null) only for stubs; manifests/1 wants a boolean.
                    {"claim_id": c.id, "text": c.text, "self_reported": bool(c.self_reported)}
                    for c in m.claims.all()
                ],
            }
            for m in manifests.order_by("id")
        ],
    }


def dumps(document: dict) -> str:
    """manifests/1 JSON as the demo's manifests file has it: two-space indent, UTF-8 characters unescaped."""
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"
