"""The story admin's own pages, for what a model form cannot say: run the checks,
publish / unpublish / schedule, record a correction, the revision history and its
comparisons, and the stories citing a claim (the pending changes of a live story:
``stories.admin.changes``). Each verb calls ``stories.actions``; the
buttons are hidden from those who may not use them, and the views refuse them too."""

from __future__ import annotations

import re

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse

from manifests.models import Claim
from stories import actions
from stories.actions.verbs import ReviewedVersionChanged
from stories.admin.desk.checking import checks_in_words
from stories.admin.forms import CorrectionForm, PublishForm, ReasonForm, ScheduleForm
from stories.models import AuditEntry, CheckResult, Cite, Revision, Story

# The part of a finding's path that names a key fact, a paragraph or a section.
_OWNER_PATH = re.compile(r"^(key_facts\[\d+\]|sections\[\d+\]\.paragraphs\[\d+\]|sections\[\d+\])")
# The audit actions that change what the checks read (the rubric is stale after them).
_A = AuditEntry.Action
CONTENT_ACTIONS = (_A.CREATE, _A.EDIT, _A.IMPORT, _A.RESTORE, _A.DEMO, _A.SUBMISSION, _A.SOURCE_CHANGED)


def latest_check(story: Story) -> CheckResult | None:
    return CheckResult.objects.filter(story=story).order_by("-created_at", "-id").first()


def findings_by_owner(rubric: dict | None) -> tuple[dict[str, list[dict]], list[dict]]:
    """Findings grouped by the key fact / paragraph / section they concern, and the rest."""
    by_owner: dict[str, list[dict]] = {}
    general: list[dict] = []
    for criterion in (rubric or {}).get("criteria", []):
        for finding in criterion.get("findings", []):
            item = {**finding, "criterion": criterion.get("name", "")}
            match = _OWNER_PATH.match(finding.get("path") or "")
            if match:
                by_owner.setdefault(match.group(1), []).append(item)
            else:
                general.append(item)
    return by_owner, general


def desk_context(story: Story) -> dict:
    """What the story page's desk panel shows: the latest rubric, and the story's key
    facts and paragraphs, each with its cites and the findings that concern it.
    ``story`` must be loaded with ``Story.objects.with_everything()``."""
    result = latest_check(story)
    by_owner, general = findings_by_owner(result.rubric if result else None)
    stale = bool(
        result
        and AuditEntry.objects.filter(story=story, action__in=CONTENT_ACTIONS, version__gt=result.version).exists()
    )
    key_facts = [
        {"obj": fact, "path": f"key_facts[{i}]", "findings": by_owner.get(f"key_facts[{i}]", [])}
        for i, fact in enumerate(story.key_facts.all())
    ]
    sections = []
    for i, section in enumerate(story.sections.all()):
        paragraphs = [
            {
                "obj": para,
                "path": f"sections[{i}].paragraphs[{j}]",
                "findings": by_owner.get(f"sections[{i}].paragraphs[{j}]", []),
            }
            for j, para in enumerate(section.paragraphs.all())
        ]
        sections.append(
            {
                "obj": section,
                "path": f"sections[{i}]",
                "findings": by_owner.get(f"sections[{i}]", []),
                "paragraphs": paragraphs,
            }
        )
    return {
        "story": story,
        "result": result,
        "criteria": (result.rubric or {}).get("criteria", []) if result else [],
        "stale": stale,
        "general_findings": general,
        "key_facts": key_facts,
        "sections": sections,
    }


# --------------------------------------------------------------------------- verbs


def _story_or_404(model_admin, request, object_id) -> Story:
    story = model_admin.get_object(request, object_id)
    if story is None or not model_admin.has_view_permission(request, story):
        raise Http404("no such story")
    return story


def _back(story: Story, anchor: str = "") -> HttpResponseRedirect:
    return HttpResponseRedirect(
        reverse("admin:stories_story_change", args=[story.pk]) + (f"#{anchor}" if anchor else "")
    )


def _page(model_admin, request, story, template, title, **context):
    return TemplateResponse(
        request,
        f"admin/stories/story/{template}",
        {
            **model_admin.admin_site.each_context(request),
            "opts": model_admin.model._meta,
            "original": story,
            "title": title,
            "subtitle": story.headline,
            **context,
        },
    )


def run_checks(model_admin, request, object_id):
    """POST: run the checks on the stored story and record the rubric (writers may)."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    story = _story_or_404(model_admin, request, object_id)
    if not request.user.has_perm("stories.change_story"):
        raise PermissionDenied("only writers and editors may run the checks")
    from stories.checks import check_and_record  # imported when used

    result = check_and_record(story)
    level = messages.SUCCESS if result.passed else messages.WARNING
    messages.add_message(request, level, f"Checks {'passed' if result.passed else 'failed'}: score {result.score:.2f}.")
    return _back(story, "desk")


def _reviewed_key(story: Story) -> str:
    return f"stories.reviewed_version.{story.pk}"


def _reviewed_version(request, story: Story, form, reason: str) -> int | None:
    """The version of ``story`` the editor reviewed: the one the page they submitted showed
    (its hidden field), else the one last shown to them in this session (a page without the
    field, rendered before it existed). ``UnknownReview`` when neither is known and the
    editor overrides the checks (``reason``); None when neither is known without one."""
    version = form.cleaned_data.get("reviewed_version")
    version = version if version is not None else request.session.get(_reviewed_key(story))
    if reason and version is None:
        raise UnknownReview
    return version


def _shown(request, story: Story) -> None:
    """Remember the version whose checks the publish page shows this editor."""
    request.session[_reviewed_key(story)] = story.version


class UnknownReview(Exception):
    """An override from a page that did not say which version the editor reviewed."""


UNREVIEWED = (
    "Not published: this page did not say which version you reviewed, and an override covers only the text you "
    "reviewed. The checks of the story as it is now are below: review them and submit again."
)


def _review_refused(exc: UnknownReview | ReviewedVersionChanged) -> str:
    """Why an override was refused: the page named no reviewed version, or the story has
    been saved since the one it named."""
    if isinstance(exc, UnknownReview):
        return UNREVIEWED
    return f"Not published: {exc}. The checks as it is now are below: review them and submit again."


def publish(model_admin, request, object_id):
    story = _story_or_404(model_admin, request, object_id)
    if not request.user.has_perm("stories.publish_story"):
        raise PermissionDenied
    if story.draft_of_id is not None:
        return HttpResponseRedirect(reverse("admin:stories_story_publish_changes", args=[story.pk]))
    can_override = request.user.has_perm("stories.override_checks")
    form = PublishForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        reason = form.cleaned_data["override_reason"] if can_override else ""
        try:
            reviewed = _reviewed_version(request, story, form, reason)
            actions.publish_story(story=story, user=request.user, override_reason=reason, reviewed_version=reviewed)
        except (UnknownReview, ReviewedVersionChanged) as exc:
            form.add_error(None, _review_refused(exc))
        except actions.ChecksFailed as exc:
            form.add_error(
                None,
                f"Not published: the checks failed (score {exc.result.score:.2f}). Fix the findings listed here"
                + (", or give a reason to publish anyway." if can_override else "."),
            )
        except actions.ActionError as exc:
            form.add_error(None, f"Not published: {exc}.")
        else:
            messages.success(
                request, "Published." + (" Checks overridden; the reason is in the audit log." if reason else "")
            )
            return _back(story)
    if request.method == "POST":
        story.refresh_from_db(fields=["version"])
    checks = checks_in_words(story)
    _shown(request, story)
    return _page(
        model_admin,
        request,
        story,
        "publish.html",
        "Publish",
        form=form,
        # The override is offered only when something failed.
        can_override=can_override and not checks["passed"],
        checks=checks,
        editor_url=reverse("admin:stories_story_editor", args=[story.pk]),
    )


# Why a verb is refused to a user without its permission (shown on the refusal page).
REFUSALS = {
    "stories.publish_story": "only an editor may publish, unpublish or schedule a story",
    "stories.add_correction": "only an editor may record a correction",
}


def _simple_verb(model_admin, request, object_id, *, perm, form_class, template, title, run, done):
    story = _story_or_404(model_admin, request, object_id)
    if not request.user.has_perm(perm):
        raise PermissionDenied(REFUSALS.get(perm, "your role does not allow this"))
    form = form_class(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            run(story, form.cleaned_data)
        except actions.ActionError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, done)
            return _back(story)
    return _page(model_admin, request, story, template, title, form=form)


def _verb(*, perm, form_class, title, done, run):
    """An admin view for a verb whose page is one form: ``run(story, data, user)`` does it."""

    def view(model_admin, request, object_id):
        return _simple_verb(
            model_admin,
            request,
            object_id,
            perm=perm,
            form_class=form_class,
            template="verb_form.html",
            title=title,
            done=done,
            run=lambda story, data: run(story, data, request.user),
        )

    return view


unpublish = _verb(
    perm="stories.publish_story",
    form_class=ReasonForm,
    title="Unpublish",
    done="Unpublished: the story is a draft again.",
    run=lambda story, data, user: actions.unpublish_story(story=story, user=user, reason=data["reason"]),
)
schedule = _verb(
    perm="stories.publish_story",
    form_class=ScheduleForm,
    title="Schedule",
    done="Scheduled. The checks run again at publish time.",
    run=lambda story, data, user: actions.schedule_story(story=story, user=user, when=data["when"]),
)
unschedule = _verb(
    perm="stories.publish_story",
    form_class=ReasonForm,
    title="Cancel the schedule",
    done="Schedule cancelled: the story is a draft again.",
    run=lambda story, data, user: actions.cancel_schedule(story=story, user=user, reason=data["reason"]),
)
correct = _verb(
    perm="stories.add_correction",
    form_class=CorrectionForm,
    title="Record a correction",
    done="Correction recorded. It is now on the story and can never be edited or deleted.",
    run=lambda story, data, user: actions.record_correction(
        story=story, user=user, kind=data["kind"], text=data["text"]
    ),
)


# --------------------------------------------------------------------------- history


def revisions(model_admin, request, object_id):
    story = _story_or_404(model_admin, request, object_id)
    rows = list(Revision.objects.filter(story=story).select_related("created_by").defer("data").order_by("-version"))
    audit = {}
    for entry in AuditEntry.objects.filter(story=story).select_related("user").order_by("version", "id"):
        audit.setdefault(entry.version, entry)
    for row in rows:
        row.audit = audit.get(row.version)
    return _page(model_admin, request, story, "revisions.html", "Revisions", revisions=rows)


def claim_citations(model_admin, request, claim_id):
    """Every story citing a claim: where (key fact or paragraph) and in which status."""
    if not model_admin.has_view_permission(request):
        raise PermissionDenied("you may not see the stories of the desk")
    claim = get_object_or_404(Claim.objects.select_related("manifest__publisher"), pk=claim_id)
    cites = (
        Cite.objects.citing(claim=claim).select_related("paragraph__section__story", "key_fact__story").order_by("id")
    )
    rows = []
    for cite in cites:
        if cite.paragraph_id:
            where, text = f"paragraph in “{cite.paragraph.section.heading}”", cite.paragraph.markdown
        else:
            where, text = "key fact", cite.key_fact.text
        rows.append({"story": cite.story, "where": where, "text": text})
    return TemplateResponse(
        request,
        "admin/stories/story/claim_citations.html",
        {
            **model_admin.admin_site.each_context(request),
            "opts": model_admin.model._meta,
            "title": f"Stories citing claim {claim.id}",
            "claim": claim,
            "rows": rows,
        },
    )
