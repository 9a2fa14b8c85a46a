"""Stories out as desk/1: a stored story's fields (``stored_fields``), its full document
(``export_story``), a document that is not stored yet as it would export
(``render_document``), and the JSON text (``dumps``).
"""

from __future__ import annotations

import datetime as dt
import json

from manifests.models import Claim, Manifest
from newsroom.models import Newsroom, SiteProfile
from stories.publication import display_name, publication_of

from .derive import ManifestInfo, Responsibility, cited_manifest_ids, default_newsroom_title, iter_cites, render


def stored_fields(story) -> dict:
    """A loaded Story (see ``Story.objects.with_everything()``) as the stored fields of desk/1."""

    def cites_of(owner) -> list[dict]:
        return [
            {"manifest_id": c.manifest_id, "claim_ids": [cc.claim_id for cc in c.claims.all()]}
            for c in owner.cites.all()
        ]

    parts = {
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
        "corrections": [correction_fields(c) for c in story.corrections.all()],
        "related": [{"url": r.url, "headline": r.headline, "slug": r.slug} for r in story.related_links.all()],
    }
    return in_stored_order(story_fields(story), parts)


def in_stored_order(fields: dict, parts: dict) -> dict:
    """The story row's fields and its parts as one dict, in desk/1's key order."""
    both = {**fields, **parts}
    return {key: both[key] for key in STORED_ORDER}


STORED_ORDER = (
    *("id", "slug", "edition", "newsroom", "beat", "audience", "angle", "headline", "dek", "published_at", "trust"),
    *("key_facts", "images", "sections", "unresolved", "decision_card", "writer", "corrections", "related"),
)


def correction_fields(c) -> dict:
    """One correction row as desk/1's stored fields."""
    return {"corrected_at": _to_second(c.corrected_at), "kind": c.kind, "text": c.text}


def story_fields(story) -> dict:
    """The story row's own stored fields of desk/1 (none of its parts: key facts, images,
    sections, corrections, related links); the newsroom and beat selected with it."""
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
        # desk/1: null while not published (a story taken down keeps its time on record).
        "published_at": _to_second(story.published_at) if story.status == "published" else None,
        "trust": story.trust,
        "unresolved": story.unresolved,
        "decision_card": story.decision_card,
        "writer": {"agent": story.writer_agent, "run_id": story.writer_run_id},
    }


def _to_second(value: dt.datetime | None) -> dt.datetime | None:
    """desk/1 times are to the second: actions stamp ``timezone.now()`` with microseconds,
    which the export drops, so comparisons with an imported document are made at seconds."""
    return value.replace(microsecond=0) if value is not None else None


def loaded_manifests(story) -> tuple[dict[str, ManifestInfo], dict[str, bool | None]]:
    """The manifests a loaded story cites, and whether each cited claim is self-reported
    (``None`` while the claim is a stub, its text not imported yet)."""
    manifests, flags = {}, {}
    for owner in list(story.key_facts.all()) + [p for s in story.sections.all() for p in s.paragraphs.all()]:
        for cite in owner.cites.all():
            manifests.setdefault(cite.manifest_id, ManifestInfo.of(cite.manifest))
            for cc in cite.claims.all():
                flags[cc.claim_id] = cc.claim.self_reported_or_unknown
    return manifests, flags


def responsibility_of(story) -> Responsibility:
    """Who answers for a loaded story and how its live version passed the checks (see
    ``stories.publication``): the editor who published it, else the person who created it."""
    return responsibility_from(story, publication_of(story))


def responsibility_from(story, record) -> Responsibility:
    """``responsibility_of`` with the story's publication record (``stories.publication``)
    given: the editor who published it, else the person who created it."""
    editor = record.editor if record is not None else ""
    if not editor and story.created_by_id:
        editor = display_name(story.created_by)
    if record is None:
        return Responsibility(editor=editor)
    return Responsibility(
        editor=editor,
        revised_by_people=record.revised_by_people,
        overridden=record.overridden,
        failed_criteria=tuple(record.failed_criteria),
        reason=record.reason,
    )


def export_story(story, *, profile: SiteProfile | None = None) -> dict:
    """A story loaded with ``with_everything()`` as a desk/1 dict (no further queries but
    the site profile, which callers rendering many stories pass in)."""
    manifests, flags = loaded_manifests(story)
    return render(
        stored_fields(story),
        manifests=manifests,
        claims_self_reported=flags,
        newsroom_title=story.newsroom.title,
        profile=profile or SiteProfile.load(),
        responsibility=responsibility_of(story),
    )


def dumps(data: dict, *, pretty: bool = True) -> str:
    """desk/1 JSON as the archive and the API serve it: two-space indent, UTF-8 characters unescaped."""
    if pretty:
        return json.dumps(data, ensure_ascii=False, indent=2)
    return json.dumps(data, ensure_ascii=False)


def render_document(doc: dict) -> dict:
    """A validated document (not stored) rendered with derived fields from the database:
    what the story would export as. Used by the checks."""
    ids = cited_manifest_ids(doc)
    db = {m.id: m for m in Manifest.objects.filter(id__in=ids).select_related("publisher")}
    claim_ids = {cid for _, cite in iter_cites(doc) for cid in cite["claim_ids"]}
    flags = Claim.objects.filter(id__in=claim_ids).self_reported_flags()
    newsroom = Newsroom.objects.filter(slug=doc["newsroom"]).first()
    title = newsroom.title if newsroom else (doc["newsroom_title"] or default_newsroom_title(doc["newsroom"]))
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
