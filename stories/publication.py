"""How a story's live version reached readers: whether its checks passed or an editor
overrode them (which criteria failed, the reason, who), and the rubric recorded then.

Read from the audit row of the action that made the version live (``publish``,
``publish_changes``, or an import, restore or submission that published it) and the
``CheckResult`` its action recorded for that version. ``Story.objects.with_everything()`` and
``loaded()`` prefetch both (``stories.models.records.live_entries_prefetch``), so that the renderings read them
without a query. Nothing here writes.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from .models.records import LIVE_ENTRIES, live_entries_prefetch


@dataclass(frozen=True)
class Publication:
    """The record of how the live version was published."""

    action: str
    at: dt.datetime
    version: int
    passed: bool | None  # None: the action recorded no verdict (an import of an older archive)
    overridden: bool
    score: float | None
    reason: str
    editor: str  # who published it, by full name; "" for the system itself or a user with no name
    revised_by_people: bool  # a person edited the story before this publication
    rubric: dict | None = field(default=None, compare=False)

    @property
    def failed_criteria(self) -> list[str]:
        if not self.rubric:
            return []
        return [c["name"] for c in self.rubric.get("criteria", []) if not c.get("passed")]


def display_name(user) -> str:
    """A person as the public record names them: their full name. Never the username: that
    is half of a login, and the public record would hand it to anyone guessing passwords.
    A user with no name is left unnamed ("an editor")."""
    if user is None:
        return ""
    return user.get_full_name().strip()


def publication_of(story) -> Publication | None:
    """How ``story``'s live version was published, or None for a story never published
    through a recorded action. No query when the story was loaded with its live entries."""
    entries = getattr(story, LIVE_ENTRIES, None)
    if entries is None:
        entries = list(live_entries_prefetch().queryset.filter(story=story))
    if not entries:
        return None
    entry = entries[0]
    return record_of(
        entry,
        rubric=getattr(entry, "recorded_rubric", None),
        edited_by_people=bool(getattr(entry, "edited_by_people", False)),
    )


def record_of(entry, *, rubric: dict | None, edited_by_people: bool) -> Publication:
    """The record of the live version made by the audit row ``entry`` (saved or not), with
    the rubric recorded for it and whether a person had edited the story by then."""
    details = entry.details or {}
    passed = details.get("passed")
    overridden = bool(details.get("overridden")) or (passed is False and bool(entry.reason))
    score = details.get("score")
    return Publication(
        action=entry.action,
        at=entry.created_at,
        version=entry.version,
        passed=passed if isinstance(passed, bool) else None,
        overridden=overridden,
        score=float(score) if isinstance(score, int | float) else None,
        reason=entry.reason if overridden else "",
        editor=display_name(entry.user),
        revised_by_people=edited_by_people,
        rubric=rubric,
    )
