"""The pending changes of a live story in the admin: start them, see what changes, publish
them through the checks, or discard them. Each calls ``stories.actions.drafts``; the buttons
are hidden from those who may not use them, and the views refuse them too."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseNotAllowed
from django.template.response import TemplateResponse
from django.urls import reverse

from stories import actions
from stories.actions import drafts
from stories.actions.verbs import ReviewedVersionChanged
from stories.admin.desk.checking import checks_in_words
from stories.admin.forms import PublishChangesForm, ReasonForm
from stories.admin.views import (
    UnknownReview,
    _back,
    _page,
    _review_refused,
    _reviewed_version,
    _shown,
    _story_or_404,
)
from stories.history import other_changes, prose_diff
from stories.models import Story


def _forbidden(model_admin, request, story, message: str) -> TemplateResponse:
    """A refusal on the admin's own page (styled, with the way back), status 403."""
    response = _page(model_admin, request, story, "forbidden.html", "Not allowed", message=message)
    response.status_code = 403
    return response


def _pending_or_404(model_admin, request, object_id) -> Story:
    story = _story_or_404(model_admin, request, object_id)
    if story.draft_of_id is None:
        raise Http404("these are not pending changes of a live story")
    return story


def changes_context(draft: Story) -> dict:
    """What the pending changes are: the prose diff and the other parts that changed."""
    live = Story.objects.select_related("newsroom").get(pk=draft.draft_of_id)
    old, new = drafts._content_doc(live), drafts._content_doc(draft)
    return {
        "live": live,
        "draft": draft,
        "prose": prose_diff(old, new),
        "others": other_changes(old, new),
        "text_changed": drafts.text_changed(old, new),
    }


def start_changes(model_admin, request, object_id):
    """POST: open the pending changes of a live story (created on the first edit)."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    story = _story_or_404(model_admin, request, object_id)
    try:
        draft = drafts.start_changes(story=story, user=request.user)
    except PermissionDenied:
        return _forbidden(model_admin, request, story, "You may not edit stories.")
    except actions.ActionError as exc:
        messages.error(request, f"Not started: {exc}.")
        return _back(story)
    messages.info(
        request,
        "You are editing the pending changes of a live story. Readers see the live version until an editor "
        "publishes these changes (the checks run first).",
    )
    return _back(draft)


def changes(model_admin, request, object_id):
    """The pending changes of a live story, as a diff of its prose (anyone who may see it)."""
    draft = _pending_or_404(model_admin, request, object_id)
    return _page(
        model_admin,
        request,
        draft,
        "changes.html",
        "Pending changes",
        can_publish=request.user.has_perm("stories.publish_story"),
        **changes_context(draft),
    )


def publish_changes(model_admin, request, object_id):
    draft = _pending_or_404(model_admin, request, object_id)
    if not request.user.has_perm("stories.publish_story"):
        return _forbidden(
            model_admin, request, draft, "Only an editor may publish the changes of a live story to its readers."
        )
    context = changes_context(draft)
    live = context["live"]
    can_override = request.user.has_perm("stories.override_checks")
    ask_note = context["text_changed"] and live.is_published
    form = PublishChangesForm(request.POST if request.method == "POST" else None, ask_note=ask_note)
    if request.method == "POST" and form.is_valid():
        reason = form.cleaned_data["override_reason"] if can_override else ""
        try:
            reviewed = _reviewed_version(request, draft, form, reason)
            drafts.publish_changes(
                draft=draft,
                user=request.user,
                override_reason=reason,
                correction=form.correction(),
                reviewed_version=reviewed,
            )
        except (UnknownReview, ReviewedVersionChanged) as exc:
            form.add_error(None, _review_refused(exc))
        except actions.ChecksFailed as exc:
            form.add_error(
                None,
                f"Not published: the checks failed on the changes (score {exc.result.score:.2f}); readers still see "
                "the live version. Fix the findings listed here"
                + (", or give a reason to publish anyway." if can_override else "."),
            )
        except actions.ActionError as exc:
            form.add_error(None, f"Not published: {exc}.")
        else:
            messages.success(
                request,
                "Changes published: readers now see them."
                + (" Checks overridden; the reason is in the audit log." if reason else "")
                + (" The note to readers is on the story." if form.correction() else ""),
            )
            return _back(live)
    if request.method == "POST":
        draft.refresh_from_db(fields=["version"])
        context = changes_context(draft)  # the changes as they are now, saved since or not
    checks = checks_in_words(draft)
    _shown(request, draft)
    return _page(
        model_admin,
        request,
        draft,
        "publish_changes.html",
        "Publish changes",
        form=form,
        can_override=can_override and not checks["passed"],
        checks=checks,
        editor_url=reverse("admin:stories_story_editor", args=[draft.pk]),
        **context,
    )


def discard_changes(model_admin, request, object_id):
    draft = _pending_or_404(model_admin, request, object_id)
    live = draft.draft_of
    if not (request.user.has_perm("stories.publish_story") and actions.can_edit(request.user, live)):
        return _forbidden(model_admin, request, draft, "Only an editor may discard the changes of a live story.")
    form = ReasonForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            drafts.discard_changes(draft=draft, user=request.user, reason=form.cleaned_data["reason"])
        except actions.ActionError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, "Pending changes discarded. The live story is as it was.")
            return _back(live)
    return _page(model_admin, request, draft, "verb_form.html", "Discard the pending changes", form=form)
