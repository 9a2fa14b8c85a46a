"""The ``hangingcontext.manifests/1`` format: sources and their claims, read and upserted."""

import json

from django.db import models, transaction
from django.dispatch import Signal

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


class SourcesRefused(FormatError):
    """A write of manifests refused before anything was written. ``manifest_ids``: the
    manifests it would have changed; ``cited_by``: manifest id -> the ids of the published
    stories that cite it (filled in by whoever refused: this app knows nothing of stories)."""

    def __init__(self, path: str, message: str, *, manifest_ids=(), cited_by: dict | None = None):
        super().__init__(path, message)
        self.manifest_ids = list(manifest_ids)
        self.cited_by = dict(cited_by or {})


sources_changing = Signal()
"""Sent by ``upsert_manifest`` and ``import_manifests_document`` after reading and before
writing anything, with ``changes`` (manifest id -> what would be rewritten, one phrase
each: a stored manifest's fields, a stored claim's text or ``self_reported``; adding a
claim or filling a stub claim's text rewrites nothing) and ``via`` (the path: "api",
"import", "story", "provider"). A receiver refuses the whole write by raising
``SourcesRefused``; the caller's transaction then holds nothing of it."""

# What readers see of a manifest. ``fetched_at`` (and a claim's ``position``) are
# bookkeeping, not the source's content.
MANIFEST_FIELDS = ("title", "publisher", "source_url", "published_date")


def _manifest_differences(manifest: Manifest, entry: dict, publisher_name: str) -> list[str]:
    """The fields of a stored manifest that ``entry`` would change."""
    new = {**entry, "publisher": entry["source_name"]}
    old = {
        "title": manifest.title,
        "publisher": publisher_name,
        "source_url": manifest.source_url,
        "published_date": manifest.published_date,
    }
    return [k for k in MANIFEST_FIELDS if old[k] != new[k]]


def _plan(entry: dict, *, with_claims: bool, new_only: bool) -> tuple[Manifest | None, list[str]]:
    """Lock the stored manifest (if any) and say what writing ``entry`` would change."""
    manifest = (
        Manifest.objects.select_for_update(of=("self",))
        .select_related("publisher")
        .filter(id=entry["manifest_id"])
        .first()
    )
    if manifest is None:
        return None, []
    if new_only:
        return manifest, ["exists"]
    changes = [f"manifest {k}" for k in _manifest_differences(manifest, entry, manifest.publisher.name)]
    if with_claims:
        # Adding a claim, or the text of a stub claim (known by id only), rewrites nothing.
        stored = {c.id: c for c in Claim.objects.filter(id__in=[c["claim_id"] for c in entry["claims"]], has_text=True)}
        for claim in entry["claims"]:
            if (current := stored.get(claim["claim_id"])) is not None:
                changes += [
                    f"claim {current.id} {k}" for k in ("text", "self_reported") if getattr(current, k) != claim[k]
                ]
    return manifest, changes


def _refuse_existing(existing: list[str], paths: dict[str, str]) -> None:
    if existing:
        raise SourcesRefused(
            paths[existing[0]],
            f"manifest(s) {', '.join(existing)} already exist: this key may only add new manifests (nothing written)",
            manifest_ids=existing,
        )


def _ask(changes: dict[str, list[str]], via: str) -> None:
    changes = {mid: what for mid, what in changes.items() if what}
    if changes:
        sources_changing.send(sender=Manifest, changes=changes, via=via)


def upsert_manifest(entry: dict, *, with_claims: bool, via: str = "import", new_only: bool = False) -> str:
    """Create or update a manifest (and, from a manifests/1 document, its claims).
    Returns "created", "updated" or "unchanged". Call inside a transaction.

    ``new_only``: refuse (``SourcesRefused``) when the manifest exists. Any change to a
    stored manifest is first offered to ``sources_changing`` receivers, which may refuse it."""
    manifest, changes = _plan(entry, with_claims=with_claims, new_only=new_only)
    if new_only:
        _refuse_existing([entry["manifest_id"]] if manifest is not None else [], {entry["manifest_id"]: "manifest_id"})
    _ask({entry["manifest_id"]: changes}, via)
    return _write(entry, manifest, with_claims=with_claims)


def _write(entry: dict, manifest: Manifest | None, *, with_claims: bool) -> str:
    publisher, _ = Publisher.objects.get_or_create(name=entry["source_name"])
    fields = {
        "title": entry["title"],
        "publisher": publisher,
        "source_url": entry["source_url"],
        "published_date": entry["published_date"],
    }
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
            # save(), not update(): the receivers of post_save (page caches, the audit of
            # a cited claim's change) must hear of it.
            for k, v in values.items():
                setattr(current, k, v)
            current.save(update_fields=list(values))
            changed = True
    return changed


def import_manifests_document(data, *, via: str = "import", new_only: bool = False) -> dict[str, int]:
    """Upsert every manifest of a manifests/1 document, atomically. Counts by outcome.

    ``new_only``: refuse the whole document when any of its manifests exists. Changes to
    stored manifests are offered to ``sources_changing`` receivers first, all at once, so
    that a refusal names every manifest concerned; nothing is written before that."""
    manifests = validate_manifests_document(data)
    paths = {m["manifest_id"]: f"manifests[{i}].manifest_id" for i, m in enumerate(manifests)}
    counts = {"created": 0, "updated": 0, "unchanged": 0}
    with transaction.atomic():
        plans = [_plan(entry, with_claims=True, new_only=new_only) for entry in manifests]
        if new_only:
            _refuse_existing([e["manifest_id"] for e, (m, _) in zip(manifests, plans) if m is not None], paths)
        _ask({e["manifest_id"]: changes for e, (_, changes) in zip(manifests, plans)}, via)
        for i, (entry, (manifest, _)) in enumerate(zip(manifests, plans)):
            try:
                counts[_write(entry, manifest, with_claims=True)] += 1
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
