"""Sources cited by a published story are never rewritten silently.

Two doors, one rule:

* **Imports refuse.** Every import of manifests (the API, ``import_manifests``, a story
  document's ``manifests`` list) offers its changes to stored manifests to
  ``refuse_cited_changes`` before writing anything; a change under a manifest that a
  published story cites is refused (``SourcesRefused``, naming those stories), and the whole
  request or file writes nothing. Filling a cited stub claim with its text is not such a
  change (the stub had no text to rewrite): the operator's ``import_manifests`` and the
  provider fetch may do it, audited and re-checked as below; the API's manifest import only
  adds manifests and claims it does not have.
* **Trusted edits are audited.** A change that does reach a cited manifest or claim (an
  editor in the admin, the provider fetch) leaves a ``source_changed`` audit row, with the
  old and new values, on every published story citing it, and re-runs that story's checks.
  Renaming a publisher renames the source of each of its manifests: it is audited the same
  way, one row per cited manifest.
  The desk shows it (``source_change_notice``) until the story is next published or corrected.
"""

from __future__ import annotations

import datetime as dt

from django.db.models.signals import post_save, pre_save

from manifests.formats import SourcesRefused, sources_changing
from manifests.models import Claim, Manifest, Publisher
from stories.models import AuditEntry, CheckResult, Cite, Story

# The paths that may change a cited source, each change audited. Every other path is refused.
TRUSTED_PATHS = {"provider"}
MANIFEST_FIELDS = ("title", "publisher", "source_url", "published_date")
CLAIM_FIELDS = ("manifest", "text", "has_text", "self_reported")


def published_citations(manifest_ids) -> dict[str, list[str]]:
    """Manifest id -> the ids of the published stories that cite it (manifests no published
    story cites are left out)."""
    rows = (
        Cite.objects.citing()
        .filter(manifest_id__in=list(manifest_ids))
        .of_published_stories()
        .order_by()
        .values_list("manifest_id", "story_id")
        .distinct()
    )
    cited: dict[str, set[str]] = {}
    for manifest_id, story_id in rows:
        cited.setdefault(manifest_id, set()).add(story_id)
    return {mid: sorted(ids, key=lambda s: (len(s), s)) for mid, ids in sorted(cited.items())}


def refuse_cited_changes(sender, *, changes: dict[str, list[str]], via: str, **kwargs) -> None:
    """The ``sources_changing`` receiver: refuse any import that would change a manifest
    (or one of its claims) cited by a published story."""
    if via in TRUSTED_PATHS:
        return
    cited = published_citations(changes)
    if not cited:
        return
    parts = [
        f"manifest {mid} ({', '.join(changes[mid])}) is cited by published "
        f"{'story' if len(ids) == 1 else 'stories'} {', '.join(ids)}"
        for mid, ids in cited.items()
    ]
    raise SourcesRefused(
        "manifests",
        "; ".join(parts) + ". Sources cited by a published story cannot be changed by an import "
        "(nothing was written); an editor changes them in the admin, where the change is audited",
        manifest_ids=list(cited),
        cited_by=cited,
    )


# --------------------------------------------------------------------------- audit


def _json(value):
    return value.isoformat() if isinstance(value, dt.date) else value


def _snapshot(instance) -> dict:
    if isinstance(instance, Manifest):
        publisher = instance.publisher.name if instance.publisher_id else None
        return {
            "title": instance.title,
            "publisher": publisher,
            "source_url": instance.source_url,
            "published_date": _json(instance.published_date),
        }
    return {
        "manifest": instance.manifest_id,
        "text": instance.text,
        "has_text": instance.has_text,
        "self_reported": instance.self_reported,
    }


def remember_stored(sender, instance, raw=False, update_fields=None, **kwargs) -> None:
    """``pre_save``: keep what is stored, to compare once the save is done."""
    instance._stored_source = None
    if raw or instance._state.adding or instance.pk is None:
        return
    fields = MANIFEST_FIELDS if sender is Manifest else CLAIM_FIELDS
    if update_fields is not None and not {f.removesuffix("_id") for f in update_fields} & set(fields):
        return  # bookkeeping (position, fetched_at): not what readers see of the source
    stored = sender.objects.select_related("publisher" if sender is Manifest else "manifest").filter(pk=instance.pk)
    stored = stored.first()
    if stored is not None:
        instance._stored_source = _snapshot(stored)


def record_source_change(sender, instance, created=False, raw=False, **kwargs) -> None:
    """``post_save``: a stored manifest or claim changed. Audit it on every published
    story that cites it, and re-check those stories."""
    before = getattr(instance, "_stored_source", None)
    instance._stored_source = None
    if created or raw or before is None:
        return
    after = _snapshot(instance)
    changes = {k: {"old": before[k], "new": after[k]} for k in after if before[k] != after[k]}
    if not changes:
        return
    if sender is Manifest:
        cites = Cite.objects.citing(manifest=instance.pk)
        details = {"manifest_id": instance.pk, "changes": changes}
    else:
        cites = Cite.objects.citing(claim=instance.pk)
        details = {"manifest_id": instance.manifest_id, "claim_id": instance.pk, "changes": changes}
    story_ids = set(cites.of_published_stories().order_by().values_list("story_id", flat=True))
    audit_and_recheck({story_id: [details] for story_id in story_ids}, getattr(instance, "changed_by", None))


def remember_publisher_name(sender, instance, raw=False, **kwargs) -> None:
    """``pre_save`` of a publisher: keep its stored name (the source name of its manifests)."""
    instance._stored_name = None
    if raw or instance._state.adding or instance.pk is None:
        return
    instance._stored_name = Publisher.objects.filter(pk=instance.pk).values_list("name", flat=True).first()


def record_publisher_change(sender, instance, created=False, raw=False, **kwargs) -> None:
    """``post_save`` of a publisher: a renamed publisher renames the source of each of its
    manifests. Audit it, as a change of each cited manifest's publisher, on every published
    story citing one, and re-check those stories."""
    before = getattr(instance, "_stored_name", None)
    instance._stored_name = None
    if created or raw or before is None or before == instance.name:
        return
    rows = (
        Cite.objects.citing()
        .filter(manifest__publisher=instance)
        .of_published_stories()
        .order_by()
        .values_list("story_id", "manifest_id")
        .distinct()
    )
    cited: dict[str, set[str]] = {}
    for story_id, manifest_id in rows:
        cited.setdefault(story_id, set()).add(manifest_id)
    changes = {"publisher": {"old": before, "new": instance.name}}
    details = {
        story_id: [{"manifest_id": mid, "publisher_id": instance.pk, "changes": changes} for mid in sorted(ids)]
        for story_id, ids in cited.items()
    }
    audit_and_recheck(details, getattr(instance, "changed_by", None))


def audit_and_recheck(details_by_story: dict[str, list[dict]], user) -> None:
    """Leave a ``source_changed`` audit row with each of the details on its published
    story, then re-check each story once."""
    if not details_by_story:
        return
    from stories.checks import check_and_record  # the checks import the desk, not the actions

    user = user if user is not None and user.is_authenticated else None
    for story in Story.objects.filter(pk__in=list(details_by_story)).order_by("pk"):
        for details in details_by_story[story.pk]:
            AuditEntry.objects.create(
                story=story,
                action=AuditEntry.Action.SOURCE_CHANGED,
                user=user,
                version=story.version,
                details=details,
            )
        check_and_record(story)


def connect() -> None:
    sources_changing.connect(refuse_cited_changes, dispatch_uid="stories.sources.refuse")
    for model in (Manifest, Claim):
        pre_save.connect(remember_stored, sender=model, dispatch_uid=f"stories.sources.pre.{model.__name__}")
        post_save.connect(record_source_change, sender=model, dispatch_uid=f"stories.sources.post.{model.__name__}")
    pre_save.connect(remember_publisher_name, sender=Publisher, dispatch_uid="stories.sources.pre.Publisher")
    post_save.connect(record_publisher_change, sender=Publisher, dispatch_uid="stories.sources.post.Publisher")


# --------------------------------------------------------------------------- the desk


def source_change_notice(story: Story) -> dict | None:
    """The latest change to a cited source since the story was last published (or
    corrected), with the latest checks run since: ``{"entry": AuditEntry, "check":
    CheckResult | None}``; None when there is none."""
    if story is None or story.pk is None or not story.is_published:
        return None
    entry = (
        AuditEntry.objects.filter(story=story, action=AuditEntry.Action.SOURCE_CHANGED)
        .select_related("user")
        .order_by("-created_at", "-id")
        .first()
    )
    if entry is None:
        return None
    republished = AuditEntry.objects.filter(
        story=story,
        action__in=[AuditEntry.Action.PUBLISH, AuditEntry.Action.PUBLISH_CHANGES, AuditEntry.Action.CORRECT],
        id__gt=entry.id,
    ).exists()
    if republished:
        return None
    check = (
        CheckResult.objects.filter(story=story, created_at__gte=entry.created_at).order_by("-created_at", "-id").first()
    )
    return {"entry": entry, "check": check}
