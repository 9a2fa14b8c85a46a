"""Runs the criteria in checks.md's order and assembles the rubric."""

from __future__ import annotations

from .ahead import checked_ahead, take, taken_document
from .base import CheckContext, Criterion
from .claims_belong import ClaimsBelong
from .claims_support import ClaimsSupport
from .manifests_exist import ManifestsExist
from .manifests_recent import ManifestsRecent
from .metadata_consistent import MetadataConsistent
from .not_a_repeat import NotARepeat
from .paragraphs_cited import ParagraphsCited

CRITERIA: tuple[Criterion, ...] = (
    ManifestsExist(),
    ManifestsRecent(),
    ClaimsBelong(),
    ParagraphsCited(),
    ClaimsSupport(),
    NotARepeat(),
    MetadataConsistent(),
)
CRITERIA_NAMES = tuple(c.name for c in CRITERIA)
# The criteria that read only the story and its cited sources (``checks.ahead``).
AHEAD_CRITERIA = tuple(c for c in CRITERIA if not isinstance(c, NotARepeat))


def checks_ahead(reads, revisions: list[tuple[str, dict, str | None]]):
    """``ahead.checked_ahead`` for the criteria that read only the story and its sources."""
    return checked_ahead(reads, revisions, AHEAD_CRITERIA)


def run_checks(
    doc: dict,
    *,
    exclude_story_id: str | None = None,
    computed: dict | None = None,
    public_sources: bool = False,
    fingerprint: tuple[str, list[str]] | None = None,
) -> dict:
    """The rubric (checks.md) of a validated desk/1 document (``stories.desk.validate``).

    Reads the database's manifests and claims (two queries) and the fingerprints of recent
    published stories of the newsroom (one query); writes nothing. The story (``doc["id"]``)
    and ``exclude_story_id`` never count as repeats. ``computed`` holds results (by
    criterion name) already computed from this very document (``checks.ahead``).
    ``public_sources``: read only the sources a published story cites (``CheckContext``), for
    a caller that may see no others. ``fingerprint``: the document's fingerprint
    (``fingerprints.fingerprint_of``), when the caller has computed it.
    """
    ctx = CheckContext(doc, exclude_story_id=exclude_story_id, public_sources=public_sources, fingerprint=fingerprint)
    computed = computed or {}
    results = [computed.get(c.name) or c.run(ctx).as_dict() for c in CRITERIA]
    score = sum(r["score"] for r in results) / len(results)
    return {"passed": all(r["passed"] for r in results), "score": round(score, 4), "criteria": results}


def rubric_of(
    story, *, revision_current: bool = False, revision: dict | None = None, fingerprint: tuple | None = None
) -> dict:
    """The rubric of a stored story as it exports (``check_and_record``'s, recording nothing).

    ``revision_current``: the caller wrote the story's revision of its version in the same
    transaction, after every row its export reads (the bulk import does), so that stored
    document is the export and is checked as read from the database, without loading the
    story's graph. Without a revision of that version the story is loaded and exported.
    ``revision`` (with ``revision_current``) is that revision as the caller wrote it, which
    saves reading it back, and ``fingerprint`` (with ``revision``) its fingerprint
    (``fingerprints.fingerprint_of``), when the caller computed it.
    """
    from stories import desk
    from stories.models import Revision, Story

    data = revision if revision_current else None
    computed = take(story.pk, data)  # before validating: the workers' digest is of the revision as written
    if revision_current and data is None:
        data = Revision.objects.filter(story_id=story.pk, version=story.version).values_list("data", flat=True).first()
    if data is None:
        data = desk.export_story(Story.objects.with_everything().get(pk=story.pk))
    doc = taken_document(story.pk) or desk.validate(data)  # validated once, before the workers' fork
    if not revision_current or revision is None:
        fingerprint = None  # of a revision not checked here
    return run_checks(doc, exclude_story_id=story.pk, computed=computed, fingerprint=fingerprint)


def check_and_record(story, *, revision_current: bool = False, revision: dict | None = None):
    """Check a stored story as it exports and save the rubric as a ``CheckResult`` (with the
    story's version). Returns the ``CheckResult``. The arguments are ``rubric_of``'s."""
    from stories.models import CheckResult

    rubric = rubric_of(story, revision_current=revision_current, revision=revision)
    return CheckResult.objects.create(
        story=story, version=story.version, passed=rubric["passed"], score=rubric["score"], rubric=rubric
    )
