"""The review flow in the admin: the review queue (the editors' landing page), "Submit for
review" and "Send back". Each verb calls ``stories.actions.review``; the queue lists what
writers submitted, with the result of the latest checks, in a fixed number of queries."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef, Subquery
from django.http import HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse

from stories import actions
from stories.actions.review import NOTE_MAX_LENGTH
from stories.models import CheckResult, Story


def with_latest_check(queryset):
    """Each story's latest check: ``check_passed``, ``check_score``, ``check_version``
    (None when never checked), one subquery each, no query per row."""
    latest = CheckResult.objects.filter(story=OuterRef("pk")).order_by("-created_at", "-id")
    return queryset.annotate(
        check_passed=Subquery(latest.values("passed")[:1]),
        check_score=Subquery(latest.values("score")[:1]),
        check_version=Subquery(latest.values("version")[:1]),
    )


QUEUE_STATUSES = {
    "in_review": ("In review", {"review_status": Story.Review.IN_REVIEW}),
    "sent_back": ("Sent back", {"review_status": Story.Review.SENT_BACK}),
    "all": ("All submitted", {"review_status__in": [Story.Review.IN_REVIEW, Story.Review.SENT_BACK]}),
}
QUEUE_CHECKS = {
    "passed": ("Checks passed", {"check_passed": True}),
    "failed": ("Checks failed", {"check_passed": False}),
    "none": ("Checks not run", {"check_passed__isnull": True}),
}


class SendBackForm(forms.Form):
    note = forms.CharField(
        label="Note to the writer",
        max_length=NOTE_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 5, "cols": 80}),
        help_text="What must change before it can be published. The writer sees it on the story; it is kept in "
        "the audit log.",
    )


def _page(model_admin, request, template, title, **context):
    return TemplateResponse(
        request,
        f"admin/stories/story/{template}",
        {**model_admin.admin_site.each_context(request), "opts": model_admin.model._meta, "title": title, **context},
    )


def review_queue(model_admin, request):
    """The drafts submitted for review, oldest first: status, checks, writer, updated."""
    if not model_admin.has_view_permission(request):
        raise PermissionDenied("you may not see the stories of the desk")
    status = request.GET.get("status") if request.GET.get("status") in QUEUE_STATUSES else "in_review"
    checks = request.GET.get("checks") if request.GET.get("checks") in QUEUE_CHECKS else ""
    rows = with_latest_check(Story.objects.filter(**QUEUE_STATUSES[status][1]))
    if checks:
        rows = rows.filter(**QUEUE_CHECKS[checks][1])
    rows = rows.select_related("created_by", "newsroom", "draft_of").order_by("review_changed_at", "id")[:200]
    return _page(
        model_admin,
        request,
        "review_queue.html",
        "Review queue",
        rows=list(rows),
        status=status,
        checks=checks,
        statuses=[(key, label) for key, (label, _) in QUEUE_STATUSES.items()],
        check_choices=[(key, label) for key, (label, _) in QUEUE_CHECKS.items()],
        can_send_back=request.user.has_perm("stories.publish_story"),
    )


def _story(model_admin, request, object_id) -> Story:
    from stories.admin.views import _story_or_404

    return _story_or_404(model_admin, request, object_id)


def _back(story: Story) -> HttpResponseRedirect:
    return HttpResponseRedirect(reverse("admin:stories_story_change", args=[story.pk]))


def submit_review(model_admin, request, object_id):
    """POST: the writer marks the draft ready for an editor."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    story = _story(model_admin, request, object_id)
    try:
        actions.submit_for_review(story=story, user=request.user)
    except actions.ActionError as exc:
        messages.error(request, f"Not submitted: {exc}.")
    else:
        messages.success(request, "Submitted for review: the draft is in the editors' review queue.")
    return _back(story)


def send_back_view(model_admin, request, object_id):
    """An editor returns a draft in review to its writer with a note."""
    story = _story(model_admin, request, object_id)
    if not request.user.has_perm("stories.publish_story"):
        raise PermissionDenied("only an editor may send a draft back to its writer")
    form = SendBackForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            actions.send_back(story=story, user=request.user, note=form.cleaned_data["note"])
        except actions.ActionError as exc:
            form.add_error(None, f"Not sent back: {exc}.")
        else:
            messages.success(request, "Sent back to the writer with your note.")
            return HttpResponseRedirect(reverse("admin:stories_story_review_queue"))
    return _page(
        model_admin,
        request,
        "verb_form.html",
        "Send back to the writer",
        form=form,
        original=story,
        subtitle=story.headline,
    )
