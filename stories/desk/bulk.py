"""Bulk import of desk/1 stories: a batch of validated documents in a fixed number of queries.

``import_batch(items, counts)`` imports documents (each with its line number) in file order,
with the result ``desk.import_story`` would give importing them one by one:

- a *new* story (its id, and its slug on its edition date, free in the database and not
  used earlier in the batch) is written with the other new stories around it: one INSERT per
  table for the run, ids in file order, the revision rendered from the document (what
  ``export_story`` gives for the stored story: tested), fingerprints, audit entries;
- any other document (an update, an unchanged story, an id-less story already there, a slug
  clash) goes through ``desk.import_story``, after the new stories before it are written;
- when the database refuses a run of new stories, the run is rolled back to its savepoint
  and imported one story at a time, so that the error names the line it comes from.

Side effects of the per-story path, and how the bulk path keeps each: newsroom, beat and
edition created when missing (one query per table for the run, then creates); stub
manifests (``upsert_manifest``, with its signals) and stub claims; the revision and audit
entry of version 1; the story's fingerprint (``not_a_repeat``); the ``lists`` page-cache
generation (``stories.cache`` bumps it on each Story ``post_save``, which ``bulk_create``
does not send: bumped once per run here). Import sends no story signal (no webhooks) on
either path.
"""

from __future__ import annotations

import datetime as dt

from django.db import DataError, IntegrityError, transaction
from django.db.models import Q

from manifests.formats import upsert_manifest
from manifests.models import Claim, Manifest
from newsroom.infra.bulk import bulk_insert
from newsroom.infra.jsondoc import FormatError as DeskError
from newsroom.infra.pagecache import bump
from newsroom.models import Beat, Edition, Newsroom, SiteProfile, parse_edition
from stories.fingerprints import fingerprint_of

from . import store
from .derive import ManifestInfo, cited_manifest_ids, default_newsroom_title, iter_cites, render

Item = tuple[int, dict]  # (line number, validated document)


def _at(line: int, exc: DeskError) -> DeskError:
    return DeskError(f"line {line}: {exc.path}", exc.message)


def import_batch(items: list[Item], counts: dict[str, int], *, user=None, action: str = "import") -> None:
    """Import ``items`` in order, adding each outcome to ``counts``. Call inside
    ``transaction.atomic()``: on a DeskError (its path starts with the line) the caller
    rolls back."""
    from stories.models import Story

    if not items:
        return
    ids = [doc["id"] for _, doc in items if doc["id"]]
    slugs = {doc["slug"] for _, doc in items}
    dates = {doc["edition"][:10] for _, doc in items}
    taken_ids, taken_keys = set(), set()
    clashing = Story.objects.filter(Q(id__in=ids) | Q(slug__in=slugs, edition_date__in=dates))
    for sid, date, slug in clashing.order_by().values_list("id", "edition_date", "slug"):
        taken_ids.add(sid)
        taken_keys.add((date.isoformat(), slug))

    run: list[Item] = []
    for line, doc in items:
        key = (doc["edition"][:10], doc["slug"])
        if key not in taken_keys and (doc["id"] is None or doc["id"] not in taken_ids):
            run.append((line, doc))
        else:
            _create_new(run, counts, user=user, action=action)
            run = []
            try:
                counts[store.import_story(doc, user=user, action=action).outcome] += 1
            except DeskError as exc:
                raise _at(line, exc) from None
        # Whatever happened to it, a later document with this id or slug is not new.
        taken_keys.add(key)
        if doc["id"]:
            taken_ids.add(doc["id"])
    _create_new(run, counts, user=user, action=action)


def _create_new(run: list[Item], counts: dict[str, int], *, user, action: str) -> None:
    if not run:
        return
    known = _resolve_references(run)
    try:
        with transaction.atomic():
            _write_new(run, known, user=user, action=action)
    except (IntegrityError, DataError):
        # Rolled back to the savepoint. One by one, the refusal is reported with its line
        # (as the per-story path reports it), or, if it came from the batch as a whole,
        # the stories are imported after all.
        for line, doc in run:
            try:
                counts[store.import_story(doc, user=user, action=action).outcome] += 1
            except DeskError as exc:
                raise _at(line, exc) from None
        return
    counts["created"] += len(run)


def _resolve_references(run: list[Item]) -> dict:
    """``store.resolve_references`` for every document of the run, in two queries, each
    document seeing the manifests and claims the documents before it will create. Returns
    what the database holds: ``{"manifests": set of ids, "claims": {id: manifest id}}``."""
    manifest_ids = {mid for _, doc in run for mid in cited_manifest_ids(doc)}
    claim_ids = {cid for _, doc in run for _, cite in iter_cites(doc) for cid in cite["claim_ids"]}
    stored = set(Manifest.objects.filter(id__in=manifest_ids).values_list("id", flat=True))
    db_owners = dict(Claim.objects.filter(id__in=claim_ids).values_list("id", "manifest_id"))
    known = {"manifests": set(stored), "claims": dict(db_owners)}
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


def _write_new(run: list[Item], known: dict, *, user, action: str) -> None:
    from stories.models import AuditEntry, Correction, Revision, Story, StoryFingerprint, new_story_id

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
        store.set_text_fields(story, doc)
        story.status = Story.Status.PUBLISHED if doc["published_at"] is not None else Story.Status.DRAFT
        stories.append(story)
    bulk_insert(Story, stories)
    pairs = list(zip(stories, docs))

    store._replace_children(pairs, new=True)  # looked up on the module: the per-story path's writer
    fingerprints = []
    for story, doc in pairs:
        sig, claim_ids = fingerprint_of(doc)
        fingerprints.append(StoryFingerprint(story_id=story.pk, minhash=sig, claim_ids=claim_ids))
    bulk_insert(StoryFingerprint, fingerprints)
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

    # The revision of version 1, rendered from the document and the database's manifests
    # and claims, as export_story renders the stored story (tests/stories/test_desk_bulk.py).
    cited = {mid for doc in docs for mid in cited_manifest_ids(doc)}
    infos = {m.id: ManifestInfo.of(m) for m in Manifest.objects.filter(id__in=cited).select_related("publisher")}
    claim_ids = {cid for doc in docs for _, cite in iter_cites(doc) for cid in cite["claim_ids"]}
    flags = Claim.objects.filter(id__in=claim_ids).self_reported_flags()
    profile = SiteProfile.load()
    bulk_insert(
        Revision,
        [
            Revision(
                story_id=story.pk,
                version=1,
                created_by=user,
                data=render(
                    {**doc, "id": story.id},  # an id-less document's story has its new id
                    manifests=infos,
                    claims_self_reported=flags,
                    newsroom_title=story.newsroom.title,
                    profile=profile,
                ),
            )
            for story, doc in pairs
        ],
        ids=False,
    )
    bulk_insert(
        AuditEntry, [AuditEntry(story_id=story.pk, action=action, user=user, version=1) for story in stories], ids=False
    )
    bump("lists")  # what each Story post_save does (stories.cache); bulk_create sends none


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
    """``store._create_stubs`` for the run: manifests the database lacks from the first
    document citing them, claims by id with no text yet (one INSERT)."""
    made = set(known["manifests"])
    wanted: dict[str, str] = {}
    for doc in docs:
        listed = {m["manifest_id"]: m for m in doc["manifests"]}
        for mid in cited_manifest_ids(doc):
            if mid not in made:
                upsert_manifest(listed[mid], with_claims=False)
                made.add(mid)
        for _, cite in iter_cites(doc):
            for cid in cite["claim_ids"]:
                wanted.setdefault(cid, cite["manifest_id"])
    Claim.objects.bulk_create(
        [
            Claim(id=cid, manifest_id=mid, text="", has_text=False, self_reported=None, position=10_000)
            for cid, mid in wanted.items()
            if cid not in known["claims"]
        ]
    )
