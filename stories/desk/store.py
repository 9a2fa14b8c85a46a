"""Stories in from desk/1: ``import_story`` upserts a validated document atomically;
``save_document`` is the write itself, inside the caller's transaction (an edit passes the
version it opened, so that a concurrent save is refused); ``record_revision`` keeps each
version's document.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import DataError, IntegrityError, transaction

from manifests.formats import upsert_manifest
from manifests.models import Claim, Manifest
from newsroom.infra.jsondoc import FormatError as DeskError
from newsroom.models import Beat, Edition, Newsroom
from stories.fingerprints import refresh_fingerprint

from .derive import cited_manifest_ids, default_newsroom_title, iter_cites, key_fact_self_reported
from .export import export_story, loaded_manifests, stored_fields


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
        if _same_stored_fields(current, doc, loaded_manifests(loaded)[1]):
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
        slug=doc["newsroom"], defaults={"title": doc["newsroom_title"] or default_newsroom_title(doc["newsroom"])}
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
    import paths: this module's per-story save and ``stories.desk.bulk``)."""
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
            upsert_manifest(listed[mid], with_claims=False, via="story", new_only=True)
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
    The bulk import (``stories.desk.bulk``) writes many new stories' parts through here too."""
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
