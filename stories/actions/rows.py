"""The row writers of desk/1 documents: a document's story, its parts and corrections
(``save_document``), the parts of many stories at once (``write_parts``), the stub
manifests and claims its cites need (``create_stubs``). Called by ``stories.actions.imports``
(and by other actions that store a document); the commit step makes each write final.
"""

from __future__ import annotations

from manifests.formats import upsert_manifest
from manifests.models import Claim, Manifest
from newsroom.infra.bulk import bulk_insert, bulk_insert_rows
from newsroom.models import Beat, Edition, Newsroom
from stories.desk import (
    DeskError,
    ImportResult,
    VersionConflict,
    check_append_only,
    same_stored_fields,
    set_text_fields,
)
from stories.desk.derive import cited_manifest_ids, default_newsroom_title, iter_cites
from stories.desk.export import loaded_manifests, stored_fields
from stories.markup import to_html
from stories.models import Cite, CiteClaim, Image, KeyFact, Paragraph, RelatedLink, Section, Story

from .commit import commit


def refuse_moved_changes(draft: Story, doc: dict) -> None:
    """Pending changes take effect at the live story's address: their checks read the
    draft's edition and newsroom (``manifests_recent``, ``not_a_repeat``), so a draft whose
    document moves it would be checked where it will never be read. Refused, naming the
    field."""
    for field, stored in (("slug", draft.slug), ("edition", draft.edition_id), ("newsroom", draft.newsroom.slug)):
        if doc[field] != stored:
            raise DeskError(
                field,
                f"story {draft.pk} holds the pending changes of story {draft.draft_of_id}, which stays at its "
                f"{field} {stored!r}: changes cannot move it to {doc[field]!r}; nothing was written",
            )


def save_document(
    doc: dict, *, user=None, action: str = "import", expected_version: int | None = None, restore: bool = False
) -> ImportResult:
    """Write a validated, resolved document's content. Call inside ``transaction.atomic()``.

    The story's state is not the document's to change: a new story is a draft, a stored one
    keeps its status and publication times (the importing action publishes or unpublishes
    it, through the gate). With ``restore`` (a backup restored) the state is the document's:
    published with its ``published_at``, or not published.

    Corrections are an editor's to record (``record_correction``, audited as ``correct``):
    a document may bring them only with a new story (the public history of a story migrated
    from another system, stored with its version 1) or with ``restore``. One that would add
    corrections to a stored story is refused (DeskError at ``corrections``), writing nothing.

    ``expected_version``: refuse (``VersionConflict``) when the stored story has moved on.
    """
    if doc["id"]:
        story = Story.objects.select_for_update().filter(id=doc["id"]).first()
    else:
        # No id: the story with this slug on this edition date is this one (so importing
        # the same id-less file twice changes nothing); otherwise a new id is assigned. A live
        # story's pending changes share its address: the live story is the one meant.
        story = (
            Story.objects.select_for_update()
            .filter(edition_date=doc["edition"][:10], slug=doc["slug"], draft_of__isnull=True)
            .first()
        )
    if story is not None:
        if expected_version is not None and story.version != expected_version:
            raise VersionConflict(story, expected_version)
        loaded = Story.objects.with_everything().get(pk=story.pk)
        current = stored_fields(loaded)
        wanted = doc if restore else {**doc, "published_at": current["published_at"]}
        if same_stored_fields(current, wanted, loaded_manifests(loaded)[1]):
            return ImportResult(loaded, "unchanged")
        if loaded.draft_of_id is not None and not restore:
            refuse_moved_changes(loaded, doc)
        check_append_only(current["corrections"], doc["corrections"])
        if not restore and len(doc["corrections"]) > len(current["corrections"]):
            raise imported_corrections(story, len(doc["corrections"]) - len(current["corrections"]))
        outcome = "updated"
        # What readers saw until now: a restore may change a published story, or take it
        # down, and the pages that showed it (its sources' among them) are then purged.
        was_public = loaded.status == Story.Status.PUBLISHED
        uncited = sorted(set(cited_manifest_ids(current)) - set(cited_manifest_ids(doc)))
    else:
        story = Story(id=doc["id"]) if doc["id"] else Story()
        outcome = "created"
        current = {"corrections": []}
        was_public, uncited = False, []

    # Only now that something will be written (an unchanged story has all of these already).
    newsroom, _ = Newsroom.objects.get_or_create(
        slug=doc["newsroom"], defaults={"title": doc["newsroom_title"] or default_newsroom_title(doc["newsroom"])}
    )
    beat = Beat.objects.get_or_create(newsroom=newsroom, slug=doc["beat"])[0] if doc["beat"] else None
    edition, _ = Edition.objects.get_or_create_for(doc["edition"])
    create_stubs(doc)

    # Pending changes share their live story's address (``refuse_moved_changes``).
    own = [pk for pk in (story.pk, story.draft_of_id) if pk is not None]
    clash = Story.objects.filter(edition_date=doc["edition"][:10], slug=doc["slug"]).exclude(pk__in=own).first()
    if clash is not None:
        # Only a published story is named: a draft's or a scheduled story's id is not the
        # sender's to learn (a partner's submission gets this message too).
        whose = f"story {clash.pk}" if clash.status == Story.Status.PUBLISHED else "another story"
        raise DeskError("slug", f"slug {doc['slug']!r} is already used on {doc['edition'][:10]} by {whose}")

    story.slug = doc["slug"]
    story.edition = edition
    story.newsroom = newsroom
    story.beat = beat
    set_text_fields(story, doc)
    if restore:
        set_restored_state(story, doc)
    new_corrections = doc["corrections"][len(current["corrections"]) :]

    def write():
        story.save()
        write_parts([(story, doc)], new=outcome == "created")
        for corr in new_corrections:
            story.corrections.create(
                corrected_at=corr["corrected_at"], kind=corr["kind"], text=corr["text"], created_by=user
            )

    return ImportResult(
        commit(story, action=action, user=user, write=write, was_public=was_public, uncited=uncited), outcome
    )


def imported_corrections(story, count: int) -> DeskError:
    return DeskError(
        "corrections",
        f"story {story.pk} ({story.path}) is already stored, and this document adds {count} "
        f"correction{'' if count == 1 else 's'} to it: corrections to a stored story are recorded by an "
        "editor in the desk (audited), never by an import (only import_stories --restore brings back a "
        "backup's); remove them from the document; nothing was written for this story",
    )


def set_restored_state(story, doc: dict) -> None:
    """A restored story's state is its document's: published at its ``published_at``, or
    not published (a story taken down keeps its first publication time on record)."""
    if doc["published_at"] is not None:
        story.status = Story.Status.PUBLISHED
        story.published_at = doc["published_at"]
        story.scheduled_for = None
    elif story.status == Story.Status.PUBLISHED:
        story.status = Story.Status.DRAFT


def create_stubs(doc: dict) -> None:
    """Manifests and claims the database lacks, created from the story itself: the
    manifest from the story's ``manifests`` entry, its claims by id with no text yet.
    ``resolve_references`` has made sure that, outside a restore, the claims are under
    manifests the story adds (a stored manifest gains no claim from a story)."""
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


def write_parts(pairs: list[tuple[object, dict]], *, new: bool = False) -> None:
    """Write the parts (key facts, sections, paragraphs, cites and their claims, images,
    related links) of each (story, document) pair: one INSERT per table for all of them.
    The bulk import (``stories.actions.bulk``) writes many new stories' parts through here too."""
    if not new:  # a story just created has no parts to remove
        for story, _ in pairs:
            story.key_facts.all().delete()
            story.sections.all().delete()
            story.images.all().delete()
            story.related_links.all().delete()

    # One INSERT (or COPY) per table, of rows given as tuples (``bulk_insert_rows``: no model
    # instance per row); the new rows' ids come back, and the rows below them point to them.
    # Rows are in story order in every table, so that many stories written at once get the
    # ids they would get written one by one.
    fact_rows = [(n, i, f) for n, (_, doc) in enumerate(pairs) for i, f in enumerate(doc["key_facts"])]
    facts = bulk_insert_rows(
        KeyFact,
        ("story_id", "position", "text", "declared_self_reported"),
        [(pairs[n][0].pk, i, f["text"], f["self_reported"]) for n, i, f in fact_rows],
    )
    section_rows = [(n, i, s) for n, (_, doc) in enumerate(pairs) for i, s in enumerate(doc["sections"])]
    sections = bulk_insert_rows(
        Section,
        ("story_id", "position", "heading"),
        [(pairs[n][0].pk, i, s["heading"]) for n, i, s in section_rows],
    )
    rows = [(n, sec, j, p) for sec, (n, _, s) in zip(sections, section_rows) for j, p in enumerate(s["paragraphs"])]
    paragraphs = bulk_insert_rows(
        Paragraph,
        ("section_id", "position", "markdown", "html"),
        [(sec, j, p["markdown"], to_html(p["markdown"])) for _, sec, j, p in rows],
    )

    # Each story's cites in desk/1's order: its key facts' first, then its paragraphs'.
    owners: list[list[tuple[tuple, dict]]] = [[] for _ in pairs]
    for kf, (n, _, fact) in zip(facts, fact_rows):
        owners[n].append(((None, kf), fact))
    for para, (n, _, _, data) in zip(paragraphs, rows):
        owners[n].append(((para, None), data))
    cite_rows: list[tuple[tuple, list[str]]] = [
        ((*owner, k, cite["manifest_id"]), cite["claim_ids"])
        for story_owners in owners
        for owner, data in story_owners
        for k, cite in enumerate(data["cites"])
    ]
    cites = bulk_insert_rows(
        Cite, ("paragraph_id", "key_fact_id", "position", "manifest_id"), [r for r, _ in cite_rows]
    )
    bulk_insert_rows(
        CiteClaim,
        ("cite_id", "position", "claim_id"),
        [(cite, j, cid) for cite, (_, ids) in zip(cites, cite_rows) for j, cid in enumerate(ids)],
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
