"""Revisions in prose: what changed between two versions of a story, paragraph by
paragraph (the words, not the JSON), and restoring a revision as a new version."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse

from stories import actions, desk
from stories.actions import screen
from stories.actions.drafts import is_live
from stories.desk.working import Refused, is_version
from stories.history import compare_versions, other_changes, prose_diff
from stories.models import Story


def _story(model_admin, request, object_id) -> Story:
    story = model_admin.get_object(request, object_id)
    if story is None or not model_admin.has_view_permission(request, story):
        raise Http404("no such story")
    return story


def may_restore(user, story: Story) -> bool:
    return actions.can_edit(user, None) if is_live(story) else actions.can_edit(user, story)


def compare(model_admin, request, object_id):
    """GET ?a=&b=: the prose of version a against version b, and what else changed."""
    story = _story(model_admin, request, object_id)
    try:
        a, b = int(request.GET.get("a", "")), int(request.GET.get("b", ""))
    except ValueError:
        messages.error(request, "Choose two revisions to compare.")
        return HttpResponseRedirect(reverse("admin:stories_story_revisions", args=[story.pk]))
    if not (is_version(a) and is_version(b)):
        raise Http404("no such revision")
    old_v, new_v = min(a, b), max(a, b)
    lines, found = compare_versions(story.pk, old_v, new_v)
    if old_v not in found or new_v not in found:
        raise Http404("no such revision")
    old, new = found[old_v], found[new_v]
    return TemplateResponse(
        request,
        "admin/stories/editor_compare.html",
        {
            **model_admin.admin_site.each_context(request),
            "opts": model_admin.model._meta,
            "original": story,
            "title": f"Version {old_v} → {new_v}",
            "subtitle": story.headline,
            "old": old,
            "new": new,
            "prose": prose_diff(old.data, new.data),
            "others": other_changes(old.data, new.data),
            "lines": lines,
            "can_restore": may_restore(request.user, story) and request.user.has_perm("stories.change_story"),
            "is_live": is_live(story),
        },
    )


def restore(model_admin, request, object_id, version):
    """POST: restore revision ``version`` as a new version (a live story: its pending
    changes, published only through the checks)."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    story = _story(model_admin, request, object_id)
    if not (request.user.has_perm("stories.change_story") and may_restore(request.user, story)):
        raise PermissionDenied
    if not is_version(version):
        raise Http404("no such revision")
    try:
        saved = screen.restore(story=story, version=version, user=request.user)
    except (Refused, desk.DeskError) as exc:
        messages.error(request, f"Not restored: {exc.message}.")
        return HttpResponseRedirect(reverse("admin:stories_story_revisions", args=[story.pk]))
    except PermissionDenied:
        raise
    if saved.story.draft_of_id:
        messages.success(
            request,
            f"Version {version} restored into the pending changes (version {saved.story.version}). Readers see "
            "the live story until an editor publishes the changes through the checks.",
        )
    else:
        messages.success(request, f"Version {version} restored as version {saved.story.version}.")
    return HttpResponseRedirect(reverse("admin:stories_story_editor", args=[saved.story.pk]))
