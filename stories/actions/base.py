"""What every action shares: its errors, the permission checks, the row lock."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied

from stories.models import Story


class ActionError(Exception):
    """The action cannot be done to this story in its present state."""


class ChecksFailed(ActionError):
    def __init__(self, result):
        self.result = result
        super().__init__(f"the checks did not pass (score {result.score:.2f}); publish refused")


def require_perm(user, perm: str) -> None:
    if user is not None and not user.has_perm(perm):
        raise PermissionDenied(f"{user} may not {perm.split('.')[-1].replace('_', ' ')}")


def can_edit(user, story: Story | None) -> bool:
    """Writers edit drafts; once a story is out (published or scheduled) only those who may
    publish may change it, since a change to a live story is an editorial decision."""
    if user is None:
        return True
    if not user.has_perm("stories.change_story"):
        return False
    if story is None or story.status == Story.Status.DRAFT:
        return True
    return user.has_perm("stories.publish_story")


def locked(story: Story) -> Story:
    """The stored story, its row locked until the transaction ends. Nothing is joined: a
    lock that waits on a concurrent update re-reads only the story's row (PostgreSQL checks
    joined rows as they were), so a newsroom or beat changed meanwhile is read afresh."""
    return Story.objects.select_for_update().get(pk=story.pk)


def refuse_pending_draft(story: Story) -> None:
    """Pending changes of a live story reach readers only through ``publish_changes``."""
    if story.draft_of_id is not None:
        raise ActionError("these are pending changes of a live story: publish them with “Publish changes”")
