"""The editing screen and its JSON endpoints, under the story admin (``StoryAdmin.get_urls``,
each wrapped in ``admin_site.admin_view``: staff only, CSRF on every POST).

- ``editor``: the screen (a new story, or a stored one: a live story's edits go to its
  pending changes);
- ``save``: one version of the working document (``screen.save_working``);
- ``live_checks``: the rubric of the unsaved text, in words, per paragraph;
- ``claims``: the claim search;
- ``autosave``: the working copy, kept apart from the revisions.
"""

from __future__ import annotations

import json

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseNotAllowed, HttpResponseRedirect, JsonResponse
from django.template.response import TemplateResponse
from django.urls import reverse

from newsroom.models import Newsroom
from stories import actions, desk
from stories.actions import screen
from stories.actions.drafts import is_live
from stories.checks import run_checks
from stories.desk.derive import iter_cites
from stories.desk.findings import rubric_in_words, where
from stories.desk.working import (
    MAX_BODY,
    Refused,
    editable,
    edited_fields,
    is_version,
    new_document,
    stored_document,
    working_document,
)
from stories.models import Autosave, Story

from .search import claims_info, search_claims


def _error(status: int, message: str, path: str = "") -> JsonResponse:
    return JsonResponse(
        {"error": {"where": where(path) if path else "", "path": path, "message": message}}, status=status
    )


def _body(request) -> dict:
    if request.content_type != "application/json":
        raise Refused("$", "send the story as application/json")
    if len(request.body) > MAX_BODY:
        raise Refused("$", f"the request is over {MAX_BODY} bytes")
    try:
        data = json.loads(request.body)
    except (ValueError, UnicodeDecodeError):
        raise Refused("$", "the request is not JSON") from None
    except RecursionError:
        raise Refused("$", "the JSON is nested too deeply") from None
    if not isinstance(data, dict):
        raise Refused("$", "must be an object")
    return data


def _story(model_admin, request, story_id, *, change: bool) -> Story | None:
    """The story the request names (None: a new one), if the user may see (``change``:
    edit) it; a live story counts as editable by whoever may start its pending changes."""
    if story_id is None:
        if not model_admin.has_add_permission(request):
            raise PermissionDenied("you may not add stories")
        return None
    if not isinstance(story_id, str):
        raise Refused("id", "must be a story id")
    story = Story.objects.filter(pk=story_id).first()
    if story is None or not model_admin.has_view_permission(request, story):
        raise Http404("no such story")
    if change:
        user = request.user
        allowed = actions.can_edit(user, None) if is_live(story) else actions.can_edit(user, story)
        if not (allowed and user.has_perm("stories.change_story")):
            raise PermissionDenied("you may not edit this story")
    return story


def _json_view(func):
    """POST only; bad input, a refusal and a missing story answered as JSON errors."""

    def view(model_admin, request, *args, **kwargs):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        try:
            return func(model_admin, request, _body(request), *args, **kwargs)
        except Refused as exc:
            return _error(400, exc.message, exc.path)
        except desk.DeskError as exc:
            return _error(400, exc.message, exc.path)
        except PermissionDenied as exc:
            return _error(403, str(exc) or "not allowed")
        except Http404 as exc:
            return _error(404, str(exc))

    return view


def _urls(story: Story | None) -> dict:
    if story is None:
        return {}
    return {
        "editor": reverse("admin:stories_story_editor", args=[story.pk]),
        "change": reverse("admin:stories_story_change", args=[story.pk]),
        "publish": reverse(
            "admin:stories_story_publish_changes" if story.draft_of_id else "admin:stories_story_publish",
            args=[story.pk],
        ),
        "revisions": reverse("admin:stories_story_revisions", args=[story.pk]),
    }


# --------------------------------------------------------------------------- the screen


def editor(model_admin, request, object_id=None):
    """The editing screen of a story (``object_id``), or of a new one. "Add story" lands
    here; the admin's own add form still answers its POST and its pop-ups."""
    if object_id is None and (request.method != "GET" or "_popup" in request.GET or "_to_field" in request.GET):
        return model_admin.add_view(request)
    try:
        story = _story(model_admin, request, object_id, change=True)
    except PermissionDenied:
        response = TemplateResponse(
            request,
            "admin/stories/story/forbidden.html" if object_id else "admin/stories/editor_forbidden.html",
            {
                **model_admin.admin_site.each_context(request),
                "opts": model_admin.model._meta,
                "original": Story.objects.filter(pk=object_id).first() if object_id else None,
                "title": "Not allowed",
                "message": "You may not edit this story: ask an editor." if object_id else "You may not add stories.",
            },
        )
        response.status_code = 403
        return response
    if story is not None and is_live(story):
        pending = screen.target_of(story)
        if pending.pk != story.pk:
            return HttpResponseRedirect(reverse("admin:stories_story_editor", args=[pending.pk]))
    loaded = Story.objects.with_everything().get(pk=story.pk) if story is not None else None
    fields = editable(stored_document(loaded)) if loaded is not None else editable({})
    autosave = Autosave.objects.filter(user=request.user, key=story.pk if story else "new").first()
    if autosave is not None and story is not None and autosave.data.get("story") == fields:
        autosave = None  # nothing to offer: it is what is stored
    claim_ids = {cid for _, cite in iter_cites(fields) for cid in cite["claim_ids"]}
    if autosave is not None:
        try:
            saved_fields = edited_fields(autosave.data)
            claim_ids |= {cid for _, cite in iter_cites(saved_fields) for cid in cite["claim_ids"]}
        except Refused:
            autosave = None
    state = {
        "id": story.pk if story else None,
        "version": story.version if story else None,
        "live": bool(story and is_live(story)),
        "pending_of": story.draft_of_id if story else None,
        "story": fields,
        "claims": claims_info(claim_ids),
        "autosave": {"story": autosave.data.get("story"), "saved_at": autosave.saved_at.isoformat()}
        if autosave
        else None,
        "urls": {
            "save": reverse("admin:stories_story_editor_save"),
            "checks": reverse("admin:stories_story_editor_checks"),
            "claims": reverse("admin:stories_story_editor_claims"),
            "autosave": reverse("admin:stories_story_editor_autosave"),
            **_urls(story),
        },
        "can_publish": request.user.has_perm("stories.publish_story"),
    }
    return TemplateResponse(
        request,
        "admin/stories/editor.html",
        {
            **model_admin.admin_site.each_context(request),
            "opts": model_admin.model._meta,
            "original": story,
            "title": "Write the story" if story else "Write a new story",
            "subtitle": story.headline if story else "",
            "state": state,
            "newsrooms": list(Newsroom.objects.order_by("title").values_list("slug", "title")),
            "is_new": story is None,
        },
    )


# --------------------------------------------------------------------------- endpoints


@_json_view
def save(model_admin, request, data):
    story = _story(model_admin, request, data.get("id"), change=True)
    base = data.get("base_version")
    if base is not None and not is_version(base):
        raise Refused("base_version", "must be a version number")
    try:
        saved = screen.save_working(story=story, payload=data, base_version=base, user=request.user)
    except actions.VersionConflict as exc:
        return _error(409, f"{exc}: save again to merge")
    if saved.outcome == "clash":
        return JsonResponse(
            {
                "error": {"message": "Not saved: someone else changed the same text meanwhile."},
                "clashes": saved.clashes,
                "merged": saved.merged,
                "version": saved.story.version,
            },
            status=409,
        )
    return JsonResponse(
        {
            "outcome": saved.outcome,
            "id": saved.story.pk,
            "version": saved.story.version,
            "pending_of": saved.story.draft_of_id,
            "story": editable(stored_document(saved.story)),
            "urls": _urls(saved.story),
        },
        status=201 if saved.outcome == "created" else 200,
    )


@_json_view
def live_checks(model_admin, request, data):
    """The rubric of the unsaved text, through the same checks as publishing."""
    story = _story(model_admin, request, data.get("id"), change=True)
    if story is None:
        base = new_document(data)
    else:
        base = stored_document(Story.objects.with_everything().get(pk=screen.target_of(story).pk))
    doc = working_document(base, data)
    rubric = run_checks(doc, exclude_story_id=story.pk if story else None)
    words = rubric_in_words(rubric)
    compared: dict[str, list[dict]] = {}
    cited = {cid for _, cite in iter_cites(doc) for cid in cite["claim_ids"]}
    info = claims_info(cited)
    for path, cite in iter_cites(doc):
        owner = path.rsplit(".cites", 1)[0]
        compared.setdefault(owner, []).extend(info[cid] for cid in cite["claim_ids"] if cid in info)
    return JsonResponse({**words, "compared": compared})


def claims(model_admin, request):
    """GET ?q=: the claims matching every word, recent manifests first (at most 20)."""
    if not request.user.has_perm("stories.change_story") and not request.user.has_perm("stories.add_story"):
        return _error(403, "you may not cite claims")
    return JsonResponse({"results": search_claims(request.GET.get("q", ""))})


@_json_view
def autosave(model_admin, request, data):
    """Keep the working copy (not a revision: no version, nothing readers see)."""
    story = _story(model_admin, request, data.get("id"), change=True)
    fields = edited_fields(data)  # the shape only: a draft being written need not be valid yet
    for key in ("slug", "newsroom", "edition"):
        value = data["story"].get(key)
        if isinstance(value, str):
            fields[key] = value[:200]
    base = data.get("base_version")
    Autosave.objects.update_or_create(
        user=request.user,
        key=story.pk if story else "new",
        defaults={"data": {"story": fields}, "base_version": base if is_version(base) else None},
    )
    return JsonResponse({"saved": True})
