"""What the writers of desk/1 documents (``stories.actions``) ask before writing: whether
a document's cites can be stored (``resolve_references``, ``resolve_batch_references``),
whether it would change the stored story (``same_stored_fields``), whether it keeps the
recorded corrections (``check_append_only``); and the story fields it sets."""

from __future__ import annotations

from dataclasses import dataclass

from manifests.models import Claim, Manifest
from newsroom.infra.bulk import any_of
from newsroom.infra.jsondoc import FormatError as DeskError

from .derive import cited_manifest_ids, iter_cites, key_fact_self_reported


@dataclass
class ImportResult:
    story: object
    outcome: str  # "created", "updated" or "unchanged"
    refused: object = None  # the failing CheckResult when the document asked to be published


def unknown_claim(path: str, cid: str, mid: str) -> DeskError:
    """A cite of a claim the database lacks, under a manifest already stored: the story
    may not add it (a stub claim is created only under a manifest the story itself adds)."""
    return DeskError(
        path,
        f"claim {cid} is not in manifest {mid}, which is already stored: a story may add claims "
        "(known by id until their text is fetched) only to a manifest its own manifests list adds; "
        f"cite a claim manifest {mid} has, or have the desk load the claim first "
        "(import_manifests or fetch_manifests)",
    )


def resolve_references(doc: dict, *, restore: bool = False) -> None:
    """Raise DeskError for cites that import cannot store: a manifest neither in the
    database nor in the story's ``manifests`` list, a claim the database holds under
    another manifest, or (unless ``restore``: a backup recreates the stubs it left out) a
    claim the database lacks under a manifest it holds."""
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
            if owner is None and mid in stored and not restore:
                raise unknown_claim(f"{path}.claim_ids[{j}]", cid, mid)
    for path, cite in iter_cites(doc):
        # The same claim under two manifests inside this document is just as wrong.
        for j, cid in enumerate(cite["claim_ids"]):
            owners.setdefault(cid, cite["manifest_id"])
            if owners[cid] != cite["manifest_id"]:
                raise DeskError(
                    f"{path}.claim_ids[{j}]",
                    f"claim {cid} is cited under manifest {owners[cid]} elsewhere in this story",
                )


def same_stored_fields(current: dict, doc: dict, flags: dict[str, bool | None]) -> bool:
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


def set_text_fields(story, doc: dict) -> None:
    """The story's own fields that come straight from a validated desk/1 document (both
    import paths, ``stories.actions.rows`` and ``stories.actions.bulk``). Its state (status,
    publication time) is the importing action's to set."""
    story.audience = doc["audience"]
    story.angle = doc["angle"]
    story.headline = doc["headline"]
    story.dek = doc["dek"]
    story.trust = doc["trust"]
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


def check_append_only(existing: list[dict], incoming: list[dict]) -> None:
    for i, old in enumerate(existing):
        if i >= len(incoming) or incoming[i] != old:
            raise DeskError(
                f"corrections[{i}]",
                "corrections are append-only: the document must keep every recorded correction, unchanged and in order",
            )


def resolve_batch_references(run: list[tuple[int, dict]], *, restore: bool = False) -> dict:
    """``resolve_references`` for every document of the run, in two queries, each
    document seeing the manifests and claims the documents before it will create (a
    manifest an earlier document adds is stored for the later ones). Returns
    what the database holds: ``{"manifests": set of ids, "claims": {id: manifest id},
    "claim_rows": {id: ClaimRow}}`` (the rows are what the writer and the checks of the
    run read of its claims: they are read once)."""
    manifest_ids = {mid for _, doc in run for mid in cited_manifest_ids(doc)}
    claim_ids = {cid for _, doc in run for _, cite in iter_cites(doc) for cid in cite["claim_ids"]}
    stored = set(Manifest.objects.filter(id__in=manifest_ids).values_list("id", flat=True))
    claim_rows = Claim.objects.filter(id__in=any_of(claim_ids)).rows()
    db_owners = {cid: row.manifest_id for cid, row in claim_rows.items()}
    known = {"manifests": set(stored), "claims": dict(db_owners), "claim_rows": claim_rows}
    available, owners_so_far = set(stored), dict(db_owners)
    for line, doc in run:
        listed = {m["manifest_id"] for m in doc["manifests"]}
        owners = {}
        for path, cite in iter_cites(doc):
            mid = cite["manifest_id"]
            if mid not in available and mid not in listed:
                raise DeskError(
                    f"line {line}: {path}.manifest_id",
                    f"manifest {mid} is neither in the database nor in the story's manifests list",
                )
            for j, cid in enumerate(cite["claim_ids"]):
                owner = owners_so_far.get(cid)
                if owner is not None and owner != mid:
                    raise DeskError(
                        f"line {line}: {path}.claim_ids[{j}]", f"claim {cid} belongs to manifest {owner}, not {mid}"
                    )
                if owner is not None:
                    owners[cid] = owner
                elif mid in available and not restore:
                    raise unknown_claim(f"line {line}: {path}.claim_ids[{j}]", cid, mid)
        for path, cite in iter_cites(doc):
            for j, cid in enumerate(cite["claim_ids"]):
                owners.setdefault(cid, cite["manifest_id"])
                if owners[cid] != cite["manifest_id"]:
                    raise DeskError(
                        f"line {line}: {path}.claim_ids[{j}]",
                        f"claim {cid} is cited under manifest {owners[cid]} elsewhere in this story",
                    )
        # What this document's import creates, the next ones find in the database.
        available.update(cited_manifest_ids(doc))
        for cid, mid in owners.items():
            owners_so_far.setdefault(cid, mid)
    return known
