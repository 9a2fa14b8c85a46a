"""A partner's submission of a desk/1 story (``POST /api/v1/submissions/``).

A submission only ever writes the submitting partner's own drafts: a new story, or one the
same partner submitted before that is still a plain draft. Anything else it would match (by
``id``, or by edition date and slug when the document has no ``id``) is refused with
``SubmissionRefused`` and nothing is written: a published or scheduled story, a pending
draft of a live story, an editor's story, another partner's. The refusal names the story
only when it is published or the partner's own; of any other it says only that the ``id``
or ``slug`` is taken. Corrections are recorded by
editors only (``record_correction``), so a document carrying any is refused; a stored
story's own corrections are kept as they are.

When the story's newsroom publishes automatically, the submission is published through
``publish_story`` (the checks run there, under its lock); a failing check leaves a draft.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import DataError, IntegrityError, transaction

from stories import desk
from stories.desk import DeskError
from stories.models import AuditEntry, CheckResult, Story

from .base import ChecksFailed
from .imports import save_document
from .verbs import publish_story

__all__ = ["Submission", "SubmissionRefused", "submit_draft"]


class SubmissionRefused(Exception):
    """The document names a story the submitter may not replace.

    The story is named (``disclosed``) only when the submitter may know of it: it is
    published, or its own partner's. Otherwise the answer says only that the document's
    ``field`` (``id``, or ``slug`` when matched by edition date and slug) is taken, and
    ``story`` is not to be shown to the submitter."""

    def __init__(self, story: Story, why: str, *, disclosed: bool = True, field: str = "id"):
        self.story = story
        self.disclosed = disclosed
        self.field = field
        rule = "a submission may only replace a draft its own partner submitted"
        if disclosed:
            message = f"story {story.pk} ({story.url}) {why}: {rule}"
        elif field == "slug":
            message = (
                f"the slug {story.slug!r} is taken for this edition ({story.edition_date:%Y-%m-%d}): {rule}; "
                "choose another slug"
            )
        else:
            message = f"the id is taken: {rule}; omit id to file a new story"
        super().__init__(message)


@dataclass
class Submission:
    story: Story
    check: CheckResult
    outcome: str  # "created", "updated" or "unchanged"
    failed_criteria: list[str] = field(default_factory=list)

    @property
    def published(self) -> bool:
        return self.story.status == Story.Status.PUBLISHED


def _refusal(story: Story, partner_slug: str) -> str | None:
    """Why ``partner_slug`` may not replace ``story`` (None when it may)."""
    if story.status == Story.Status.PUBLISHED:
        return "is published"
    if story.created_by_partner != partner_slug:
        return "was not submitted by this partner"
    if story.status == Story.Status.SCHEDULED:
        return "is scheduled"
    if story.draft_of_id is not None:
        return f"holds pending changes to live story {story.draft_of_id}"
    return None


def _matching(doc: dict) -> list[Story]:
    """The stories the document would write, locked: by id, or else every story with its
    edition date and slug (a live story and its pending draft share them)."""
    stories = Story.objects.select_for_update()
    if doc["id"]:
        return list(stories.filter(pk=doc["id"]))
    return list(stories.filter(edition_date=doc["edition"][:10], slug=doc["slug"]).order_by("pk"))


def _kept_corrections(story: Story) -> list[dict]:
    # As ``desk.stored_fields`` lists them, so that the write sees them unchanged.
    return [
        {"corrected_at": c.corrected_at.replace(microsecond=0), "kind": c.kind, "text": c.text}
        for c in story.corrections.all()
    ]


def submit_draft(*, doc: dict, partner_slug: str, key_prefix: str = "") -> Submission:
    """Store a validated desk/1 document as ``partner_slug``'s draft, check it, and publish
    it when its newsroom publishes automatically and the checks pass.

    Raises ``DeskError`` (naming the JSON path) for a document that cannot be stored, and
    ``SubmissionRefused`` (naming the story) for one that would replace a story that is not
    this partner's draft. Either way nothing is written. The audit row is a ``submission``
    with the partner and the key's prefix in its details.
    """
    if not partner_slug:
        raise ValueError("a submission needs the submitting partner")
    if doc["corrections"]:
        raise DeskError(
            "corrections",
            "corrections are not accepted in a submission: the desk records them on published stories",
        )
    doc = {**doc, "published_at": None}  # a draft until the checks (or an editor) say otherwise
    desk.resolve_references(doc)
    with transaction.atomic():
        matches = _matching(doc)
        for story in matches:
            if (why := _refusal(story, partner_slug)) is not None:
                disclosed = story.status == Story.Status.PUBLISHED or story.created_by_partner == partner_slug
                raise SubmissionRefused(story, why, disclosed=disclosed, field="id" if doc["id"] else "slug")
        existing = matches[0] if matches else None
        first_published = existing.published_at if existing is not None else None
        if existing is not None:
            doc["corrections"] = _kept_corrections(existing)
        try:
            with transaction.atomic():
                result = save_document(doc, action=AuditEntry.Action.SUBMISSION)
        except (IntegrityError, DataError) as exc:
            raise DeskError("$", f"the database refused this story: {exc}") from exc
        story = result.story
        if result.outcome != "unchanged":
            _record_submitter(story, result.outcome, partner_slug, key_prefix, first_published)
        if not story.newsroom.auto_publish:
            from stories.checks import check_and_record  # the checks import the desk, not the actions

            return _answer(story, check_and_record(story), result.outcome)
        try:
            # An earlier first publication (a story taken down, now resubmitted) is kept.
            story = publish_story(story=story, at=first_published)
        except ChecksFailed as exc:
            return _answer(story, exc.result, result.outcome)
        return _answer(story, story.check_results.order_by("-created_at", "-id").first(), result.outcome)


def _record_submitter(story: Story, outcome: str, partner_slug: str, key_prefix: str, first_published) -> None:
    fields = {}
    if outcome == "created":
        fields["created_by_partner"] = story.created_by_partner = partner_slug
    if first_published is not None and story.published_at is None:
        fields["published_at"] = story.published_at = first_published
    if fields:
        Story.objects.filter(pk=story.pk).update(**fields)
    # The audit row's user column holds Django users; a partner is named in its details.
    AuditEntry.objects.filter(story=story, action=AuditEntry.Action.SUBMISSION, version=story.version).update(
        details={"partner": partner_slug, "key_prefix": key_prefix, "outcome": outcome}
    )


def _answer(story: Story, check: CheckResult, outcome: str) -> Submission:
    failed = [c["name"] for c in check.rubric.get("criteria", []) if not c.get("passed")]
    return Submission(story=story, check=check, outcome=outcome, failed_criteria=failed)
