"""The bulk writer: many new stories of one file written together, in a fixed number of
queries (``write_new``), with the result ``rows.save_document`` gives writing them one by
one: newsroom, beat and edition created when missing; stub manifests (``upsert_manifest``,
with its signals) and stub claims; then the commit step of version 1 for all of them
(``commit.commit_new``: revisions, audit entries, fingerprints, the ``lists`` generation).
"""

from __future__ import annotations

import datetime as dt

from manifests.formats import upsert_manifest
from manifests.models import Claim, ClaimRow, Manifest
from newsroom.fields import OrderedJSONField
from newsroom.infra.bulk import analyze, bulk_insert
from newsroom.models import Beat, Edition, Newsroom, SiteProfile, parse_edition
from stories.desk import ManifestInfo, cited_manifest_ids, iter_cites, render, set_text_fields
from stories.desk.derive import default_newsroom_title
from stories.desk.export import _to_second
from stories.models import (
    Cite,
    CiteClaim,
    Correction,
    KeyFact,
    Paragraph,
    Section,
    Story,
    StoryFingerprint,
    new_story_id,
)

from . import rows
from .commit import Written, commit_new

Item = tuple[int, dict]  # (line number, validated document)


def write_new(
    run: list[Item], known: dict, *, user, action: str, restore: bool = False, rendered=None
) -> tuple[list[Story], dict[str, Written]]:
    """Write the new stories of ``run`` (none of them stored; their references resolved:
    ``known`` is what ``desk.resolve_batch_references`` found; its ``claim_rows`` gain the
    stub claims written here), one INSERT per table, then
    their commit step (``commit_new``). Drafts, or with ``restore`` in their documents'
    state. Call inside ``transaction.atomic()``. Returns the stories, in ``run``'s order, and
    how each one's revision was rendered (by id: ``commit.written_in_bulk``).

    The revisions of version 1 are rendered before any story row is written: ``rendered``
    (if given) is called with the stories (unsaved) and their ``Written`` then, so that
    work needing only the revisions (the checks run ahead) can start while the rows are
    written."""
    docs = [doc for _, doc in run]
    newsrooms = _newsrooms(docs)
    beats = _beats(docs, newsrooms)
    editions = {doc["edition"] for doc in docs}
    have = set(Edition.objects.filter(id__in=editions).values_list("id", flat=True))
    Edition.objects.bulk_create(
        [Edition(id=e, starts_at=parse_edition(e)) for e in sorted(editions - have)], ignore_conflicts=True
    )
    _create_stubs(docs, known)

    stories, used = [], {doc["id"] for doc in docs}
    for doc in docs:
        story = Story(id=doc["id"]) if doc["id"] else Story()
        while story.id in used - {doc["id"]}:  # two new ids in the same millisecond may meet
            story.id = new_story_id()
        used.add(story.id)
        story.slug = doc["slug"]
        story.edition_id = doc["edition"]
        story.edition_date = dt.date.fromisoformat(
            doc["edition"][:10]
        )  # Story.save() sets it; bulk_create does not call save()
        story.newsroom = newsrooms[doc["newsroom"]]
        story.beat = beats[(doc["newsroom"], doc["beat"])] if doc["beat"] else None
        set_text_fields(story, doc)
        if restore:
            rows.set_restored_state(story, doc)
        stories.append(story)

    # The document of version 1, rendered from the document and the database's manifests
    # and claims, as export_story renders the stored story (tests/stories/test_desk_bulk.py).
    cited = {mid for doc in docs for mid in cited_manifest_ids(doc)}
    infos = {m.id: ManifestInfo.of(m) for m in Manifest.objects.filter(id__in=cited).select_related("publisher")}
    # The run's claims as ``resolve_batch_references`` read them, and the stubs written above
    claims = known["claim_rows"]
    flags = {
        cid: claims[cid].self_reported_or_unknown
        for doc in docs
        for _, cite in iter_cites(doc)
        for cid in cite["claim_ids"]
    }
    profile = SiteProfile.load()
    written = {}
    for story, doc in zip(stories, docs):
        # an id-less document's story has its new id; a draft is not published
        fields = {**doc, "id": story.id, "published_at": _to_second(story.published_at)}
        revision = render(
            fields, manifests=infos, claims_self_reported=flags, newsroom_title=story.newsroom.title, profile=profile
        )
        # Serialised once: the checks run ahead compare its digest, and it is stored as it is.
        text = OrderedJSONField.text(revision)
        written[story.id] = Written(fields, infos, flags, story.newsroom.title, profile, revision, text)
    if rendered is not None:
        rendered(stories, written)  # before the rows are written: see the docstring

    bulk_insert(Story, stories)
    pairs = list(zip(stories, docs))

    rows.write_parts(pairs, new=True)  # looked up on the module: the per-story path's writer
    bulk_insert(
        Correction,
        [
            Correction(
                story_id=story.pk, corrected_at=c["corrected_at"], kind=c["kind"], text=c["text"], created_by=user
            )
            for story, doc in pairs
            for c in doc["corrections"]
        ],
        ids=False,
    )

    fingerprints = commit_new(
        [(story, written[story.id].revision) for story, _ in pairs],
        action=action,
        user=user,
        texts=[written[story.id].revision_text for story, _ in pairs],
    )
    for (story, _), fp in zip(pairs, fingerprints, strict=True):
        written[story.id].fingerprint = (fp.minhash, fp.claim_ids)
    # the checks that publish these stories read the cite tables and the fingerprints
    analyze([Story, CiteClaim, Cite, Paragraph, Section, KeyFact, StoryFingerprint], rows=len(stories))
    return stories, written


def _newsrooms(docs: list[dict]) -> dict[str, Newsroom]:
    slugs = {doc["newsroom"] for doc in docs}
    found = {n.slug: n for n in Newsroom.objects.filter(slug__in=slugs)}
    for doc in docs:  # created by the first document naming it, with its title (as one by one)
        if doc["newsroom"] not in found:
            found[doc["newsroom"]] = Newsroom.objects.get_or_create(
                slug=doc["newsroom"],
                defaults={"title": doc["newsroom_title"] or default_newsroom_title(doc["newsroom"])},
            )[0]
    return found


def _beats(docs: list[dict], newsrooms: dict[str, Newsroom]) -> dict[tuple[str, str], Beat]:
    wanted = {(doc["newsroom"], doc["beat"]) for doc in docs if doc["beat"]}
    if not wanted:
        return {}
    found = {
        (b.newsroom.slug, b.slug): b
        for b in Beat.objects.filter(
            newsroom__slug__in={n for n, _ in wanted}, slug__in={s for _, s in wanted}
        ).select_related("newsroom")
    }
    for newsroom, slug in sorted(wanted - found.keys()):
        found[(newsroom, slug)] = Beat.objects.get_or_create(newsroom=newsrooms[newsroom], slug=slug)[0]
    return found


def _create_stubs(docs: list[dict], known: dict) -> None:
    """``rows.create_stubs`` for the run: manifests the database lacks from the first
    document citing them, claims by id with no text yet (one INSERT), which are added to
    ``known["claim_rows"]``."""
    made = set(known["manifests"])
    wanted: dict[str, str] = {}
    for doc in docs:
        listed = {m["manifest_id"]: m for m in doc["manifests"]}
        for mid in cited_manifest_ids(doc):
            if mid not in made:
                upsert_manifest(listed[mid], with_claims=False, via="story", new_only=True)
                made.add(mid)
        for _, cite in iter_cites(doc):
            for cid in cite["claim_ids"]:
                wanted.setdefault(cid, cite["manifest_id"])
    stubs = {cid: mid for cid, mid in wanted.items() if cid not in known["claims"]}
    Claim.objects.bulk_create(
        [
            Claim(id=cid, manifest_id=mid, text="", has_text=False, self_reported=None, position=10_000)
            for cid, mid in stubs.items()
        ]
    )
    known["claim_rows"].update((cid, ClaimRow.stub(cid, mid)) for cid, mid in stubs.items())
