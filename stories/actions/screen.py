"""The editing screen's writes, all through ``stories.actions.save_story`` (permissions,
the row lock, the version check, one version, one revision, one audit row, the signals):

- ``save_working``: the screen's working document, merged three-way with what was saved since the
  editor opened the story; a new story is created as a draft; a live story's edits go to
  its pending changes (``drafts.start_changes``), which reach readers only through
  "Publish changes" and the checks;
- ``restore``: an earlier revision's content, as a new version (of the pending changes,
  for a live story).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.exceptions import PermissionDenied
from django.db import transaction

from manifests.models import Claim
from newsroom.models import Edition, Newsroom
from stories import actions, desk
from stories.actions.drafts import is_live, pending_draft_of, start_changes
from stories.actions.rows import write_parts
from stories.desk.derive import iter_cites
from stories.desk.working import EDITED, Refused, editable, edited_fields, merge, new_document, stored_document
from stories.models import Autosave, Revision, Story

# What a restore brings back besides the edited fields; the story's address, state,
# corrections (append-only) and writer stay as they are.
RESTORED = (*EDITED, "images", "related", "unresolved", "decision_card", "angle", "audience", "labels")


@dataclass
class Saved:
    story: Story  # the story written (the pending changes, for a live story), loaded
    outcome: str  # "created", "saved", "merged", "unchanged" or "clash" (nothing written)
    clashes: list[dict] = field(default_factory=list)
    merged: dict | None = None  # on a clash: the merge, with the text saved meanwhile where they clash


def target_of(story: Story) -> Story:
    """The story the screen's edits are written to: the story, or a live story's pending
    changes (when it has them)."""
    return (pending_draft_of(story) or story) if is_live(story) else story


def check_references(doc: dict) -> None:
    """Every cited claim is stored, under the manifest it is cited under (one query)."""
    cites = list(iter_cites(doc))
    wanted = {cid for _, cite in cites for cid in cite["claim_ids"]}
    owners = dict(Claim.objects.filter(id__in=wanted).values_list("id", "manifest_id"))
    for path, cite in cites:
        if not cite["claim_ids"]:
            raise Refused(f"{path}.claim_ids", "a cite needs at least one claim")
        for j, cid in enumerate(cite["claim_ids"]):
            if cid not in owners:
                raise Refused(f"{path}.claim_ids[{j}]", f"claim {cid} is not in the database")
            if owners[cid] != cite["manifest_id"]:
                raise Refused(f"{path}.claim_ids[{j}]", f"claim {cid} belongs to manifest {owners[cid]}")


def _write(story: Story, doc: dict, *, user, expected_version: int | None, details: dict) -> Story:
    desk.set_text_fields(story, doc)

    def write():
        story.save()
        write_parts([(story, doc)])

    return actions.save_story(story=story, user=user, expected_version=expected_version, write=write, details=details)


def _create(payload: dict, *, user) -> Saved:
    doc = desk.validate({**new_document(payload), **edited_fields(payload)})
    check_references(doc)
    newsroom = Newsroom.objects.filter(slug=doc["newsroom"]).first()
    if newsroom is None:
        raise Refused("newsroom", f"there is no newsroom {doc['newsroom']!r}")
    edition, _ = Edition.objects.get_or_create_for(doc["edition"])
    clash = Story.objects.filter(edition_date=doc["edition"][:10], slug=doc["slug"]).first()
    if clash is not None:
        raise Refused("slug", f"the slug {doc['slug']!r} is already used on {doc['edition'][:10]}: choose another")
    story = Story(slug=doc["slug"], edition=edition, newsroom=newsroom, created_by=user)
    desk.set_text_fields(story, doc)

    def write():
        story.save()
        write_parts([(story, doc)], new=True)

    loaded = actions.save_story(story=story, user=user, write=write, details={"via": "editing screen"})
    return Saved(loaded, "created")


def save_working(*, story: Story | None, payload: dict, base_version: int | None, user) -> Saved:
    """Write the screen's document (``payload``: ``{"story": {...}}``) as one version.

    ``story`` is the story the screen opened (None for a new one) and ``base_version`` its
    version then. Raises ``Refused`` (bad input), ``desk.DeskError`` (the document is not
    valid desk/1), ``PermissionDenied``; returns ``Saved`` with ``clashes`` (and nothing
    written) when a field the editor changed was changed differently meanwhile."""
    with transaction.atomic():
        if story is None:
            saved = _create(payload, user=user)
        else:
            saved = _update(story, payload, base_version, user=user)
        if saved.outcome != "clash":
            Autosave.objects.filter(user=user, key=story.pk if story is not None else "new").delete()
        return saved


def _update(story: Story, payload: dict, base_version: int | None, *, user) -> Saved:
    mine = edited_fields(payload)
    opened = story
    story = Story.objects.select_for_update().get(pk=story.pk)  # live or not, as it is now
    if is_live(story):
        if not actions.can_edit(user, None):
            raise PermissionDenied(f"{user} may not edit stories")
        story = start_changes(story=story, user=user)  # the pending changes (created on the first edit)
    if not actions.can_edit(user, story):
        raise PermissionDenied(f"{user} may not edit this story")
    locked = Story.objects.select_for_update().get(pk=story.pk)
    current = stored_document(Story.objects.with_everything().get(pk=locked.pk))
    theirs = editable(current)
    outcome = "saved"
    if base_version is not None and (opened.pk, base_version) != (locked.pk, locked.version):
        # Someone saved since the editor opened the story (or the story went live and its
        # pending changes were started from a later version): merge against what they opened.
        revision = Revision.objects.filter(story_id=opened.pk, version=base_version).first()
        if revision is None:
            raise Refused("base_version", f"version {base_version} of this story is not kept: reload the story")
        merged, clashes = merge(editable(revision.data), editable(mine), theirs)
        if clashes:
            return Saved(locked, "clash", clashes, merged)
        mine, outcome = merged, "merged"
    # A key fact keeps the self-reported flag its writer declared (the screen does not edit it).
    declared = {f["text"]: f["self_reported"] for f in current["key_facts"] if "self_reported" in f}
    mine = {**mine, "key_facts": [_declared(f, declared) for f in mine["key_facts"]]}
    doc = desk.validate({**current, **mine})
    check_references(doc)
    if editable(doc) == theirs:
        return Saved(Story.objects.with_everything().get(pk=locked.pk), "unchanged")
    loaded = _write(locked, doc, user=user, expected_version=locked.version, details={"via": "editing screen"})
    return Saved(loaded, outcome)


def _declared(fact: dict, declared: dict) -> dict:
    fact = {k: v for k, v in fact.items() if k != "self_reported"}
    return {**fact, "self_reported": declared[fact["text"]]} if fact["text"] in declared else fact


def restore(*, story: Story, version: int, user) -> Saved:
    """Bring back revision ``version`` of ``story`` as a new version (of its pending
    changes, for a live story: they go live only through the checks)."""
    revision = Revision.objects.filter(story=story, version=version).first()
    if revision is None:
        raise Refused("version", f"there is no version {version} of this story")
    with transaction.atomic():
        story = Story.objects.select_for_update().get(pk=story.pk)  # live or not, as it is now
        if is_live(story):
            if not actions.can_edit(user, None):
                raise PermissionDenied(f"{user} may not edit stories")
            story = start_changes(story=story, user=user)
        if not actions.can_edit(user, story):
            raise PermissionDenied(f"{user} may not edit this story")
        locked = Story.objects.select_for_update().get(pk=story.pk)
        current = stored_document(Story.objects.with_everything().get(pk=locked.pk))
        old = {k: v for k, v in revision.data.items() if k not in desk.DERIVED_KEYS}
        old["labels"] = {"trust": (revision.data.get("labels") or {}).get("trust", "reported")}
        doc = desk.validate({**current, **{k: old[k] for k in RESTORED if k in old}})
        check_references(doc)
        details = {"via": "editing screen", "restored_version": version}
        loaded = _write(locked, doc, user=user, expected_version=locked.version, details=details)
        return Saved(loaded, "saved")
