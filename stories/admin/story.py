"""The editors' desk: the story admin.

The story page edits the story's fields, its key facts, sections (heading and order),
images, related links and the JSON lists (unresolved points, decision card) through
one-item-per-line fields. Paragraphs and their cites sit one level deeper than Django's
inlines reach, so the page shows a *desk panel*: the latest check rubric, then every key
fact and paragraph with its cites and the findings that concern it, with links to edit a
section's paragraphs (``SectionAdmin``) and to add or edit a cite (``CiteAdmin``: pick a
manifest by autocomplete, then its claims, in order). See ``stories/admin/parts.py``.

Every save goes through ``stories.actions.save_story`` (version bump, revision, audit,
``story_updated``), refused when the story moved on since the page was opened.

A live (published or scheduled) story is shown read-only: "Edit (creates pending changes)"
opens its pending draft (``stories.actions.drafts``), a story row of its own that the desk
edits like any draft and that readers never see, until an editor publishes the changes
through the checks. Pending drafts are reached from their live story, never listed.
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import PermissionDenied
from django.db import models
from django.db.models import OuterRef, Subquery
from django.template.loader import render_to_string
from django.urls import path, reverse
from django.utils.html import format_html

from stories import actions, presence
from stories.actions.drafts import is_live, pending_draft_of
from stories.admin.changes import changes, discard_changes, publish_changes, start_changes
from stories.admin.desk import history as desk_history
from stories.admin.desk import views as desk_views
from stories.admin.forms import StoryAdminForm
from stories.admin.parts import (  # noqa: F401  (CiteAdmin, SectionAdmin: imported to register them)
    CiteAdmin,
    OrderedInline,
    RefusesLostSaves,
    SectionAdmin,
    StoryChildInline,
    desk_user,
    may_edit,
)
from stories.admin.review import review_queue, send_back_view, submit_review, with_latest_check
from stories.admin.views import (
    claim_citations,
    correct,
    desk_context,
    latest_check,
    publish,
    revisions,
    run_checks,
    schedule,
    unpublish,
    unschedule,
)
from stories.models import AuditEntry, CheckResult, Correction, Image, KeyFact, RelatedLink, Section, Story


class KeyFactInline(StoryChildInline, OrderedInline, admin.TabularInline):
    model = KeyFact
    fields = ["position", "text"]
    extra = 0
    ordering = ["position", "id"]
    verbose_name_plural = "key facts (their cites are on the desk panel above)"


class SectionInline(StoryChildInline, OrderedInline, admin.TabularInline):
    model = Section
    fields = ["position", "heading", "paragraphs"]
    readonly_fields = ["paragraphs"]
    extra = 0
    ordering = ["position", "id"]
    verbose_name_plural = "sections (in order; edit a section's paragraphs and their cites from its link)"

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("paragraphs")

    def paragraphs(self, obj):
        if not obj.pk:
            return "Save the story to add paragraphs."
        count = len(obj.paragraphs.all())
        return format_html(
            '<a href="{}">{} paragraph{} — edit paragraphs and cites</a>',
            reverse("admin:stories_section_change", args=[obj.pk]),
            count,
            "" if count == 1 else "s",
        )


class HttpsURLs:
    """URLs typed without a scheme are taken as https (Django 6's default, chosen now)."""

    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}


class ImageInline(HttpsURLs, StoryChildInline, OrderedInline, admin.StackedInline):
    model = Image
    fields = [("url", "position"), "alt", "caption", ("credit", "width", "height")]
    extra = 0
    ordering = ["position", "id"]


class RelatedLinkInline(HttpsURLs, StoryChildInline, OrderedInline, admin.TabularInline):
    model = RelatedLink
    fields = ["position", "headline", "url", "slug"]
    extra = 0
    ordering = ["position", "id"]
    verbose_name_plural = "related stories"


class CorrectionInline(admin.TabularInline):
    """Shown, never edited: corrections are recorded through "Record a correction"."""

    model = Correction
    fields = ["corrected_at", "kind", "text", "created_by"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("created_by")

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class StoryChangeList(ChangeList):
    """The story list: live stories and drafts, never the pending changes of a live story
    (each shows as a column of its live story)."""

    def get_queryset(self, request, exclude_parameters=None):
        pending = Story.objects.filter(draft_of=OuterRef("pk")).values("pk")[:1]
        return with_latest_check(
            super()
            .get_queryset(request, exclude_parameters)
            .filter(draft_of__isnull=True)
            .annotate(pending_draft_id=Subquery(pending))
        )


class ChecksFilter(admin.SimpleListFilter):
    """The result of each story's latest checks: passed, failed, or never run."""

    title = "checks"
    parameter_name = "checks"

    def lookups(self, request, model_admin):
        return [("passed", "Passed"), ("failed", "Failed"), ("none", "Not run")]

    def queryset(self, request, queryset):
        latest = CheckResult.objects.filter(story=OuterRef("pk")).order_by("-created_at", "-id").values("passed")[:1]
        lookup = {"passed": {"latest_passed": True}, "failed": {"latest_passed": False}}.get(
            self.value(), {"latest_passed__isnull": True} if self.value() == "none" else None
        )
        if lookup is None:
            return queryset
        return queryset.alias(latest_passed=Subquery(latest)).filter(**lookup)


@admin.register(Story)
class StoryAdmin(RefusesLostSaves, admin.ModelAdmin):
    form = StoryAdminForm
    change_form_template = "admin/stories/story/change_form.html"
    save_on_top = True
    list_display = [
        "headline",
        "write",
        "status",
        "review_status",
        "checks",
        "writer",
        "updated_at",
        "newsroom",
        "pending_changes",
        "published_at",
        "version",
    ]
    list_filter = [
        "status",
        "review_status",
        ChecksFilter,
        ("created_by", admin.RelatedOnlyFieldListFilter),
        "updated_at",
        "newsroom",
    ]
    # The paragraphs' text too; the admin makes the results distinct (a story matches once).
    search_fields = ["id", "headline", "dek", "slug", "sections__paragraphs__markdown"]
    search_help_text = "Searches the headline, dek, slug, id and the text of every paragraph."
    list_select_related = ["newsroom", "created_by"]
    # Plain labelled selects (newsrooms and beats are few) and the edition by its id (blank:
    # the current hour): the search pickers drawn by script have no accessible name.
    raw_id_fields = ["edition"]
    readonly_fields = ["id", "status", "version", "published_at", "scheduled_for", "desk"]
    inlines = [KeyFactInline, SectionInline, ImageInline, RelatedLinkInline, CorrectionInline]
    fieldsets = [
        (
            None,
            {
                "fields": [
                    "headline",
                    "dek",
                    "angle",
                    ("slug", "edition"),
                    ("newsroom", "beat"),
                    ("audience", "trust"),
                    "opened_version",
                ]
            },
        ),
        (
            "Status",
            {"fields": [("status", "version"), ("published_at", "scheduled_for"), "id"], "classes": ["collapse"]},
        ),
        ("Desk: checks, cites and findings", {"fields": ["desk"], "classes": ["desk-fieldset"]}),
        ("Unresolved points and decision card", {"fields": ["unresolved", "useful_for", "not_for", "compare_against"]}),
        ("Writer", {"fields": [("writer_agent", "writer_run_id")], "classes": ["collapse"]}),
    ]

    prepopulated_fields = {"slug": ["headline"]}  # and server-side when blank (StoryAdminForm)

    def get_prepopulated_fields(self, request, obj=None):
        # A pending draft's address is its live story's, shown read-only.
        return (
            {}
            if obj is not None and (obj.draft_of_id or not self.has_change_permission(request, obj))
            else super().get_prepopulated_fields(request, obj)
        )

    def get_inlines(self, request, obj):
        # A story being created has no corrections to show.
        return self.inlines if obj is not None else [i for i in self.inlines if i is not CorrectionInline]

    def get_fieldsets(self, request, obj=None):
        if obj is None:  # the desk panel and status exist once the story does
            return [fs for fs in self.fieldsets if fs[0] not in ("Status", "Desk: checks, cites and findings")]
        return self.fieldsets

    def get_changelist(self, request, **kwargs):
        return StoryChangeList

    @admin.display(description="editing screen")
    def write(self, obj):
        return format_html(
            '<a href="{}" aria-label="Write “{}” on the editing screen">write</a>',
            reverse("admin:stories_story_editor", args=[obj.pk]),
            obj.headline,
        )

    @admin.display(description="checks", ordering="check_score")
    def checks(self, obj):
        passed = getattr(obj, "check_passed", None)
        if passed is None:
            return "not run"
        return format_html(
            '<span class="{}">{}</span> ({})',
            "desk-pass" if passed else "desk-fail",
            "passed" if passed else "failed",
            f"{obj.check_score:.2f}",
        )

    @admin.display(description="writer", ordering="created_by__username")
    def writer(self, obj):
        return obj.created_by or "—"

    @admin.display(description="pending changes")
    def pending_changes(self, obj):
        draft_id = getattr(obj, "pending_draft_id", None)
        if not draft_id:
            return "-"
        return format_html(
            '<a href="{}">unpublished changes</a>', reverse("admin:stories_story_change", args=[draft_id])
        )

    def get_readonly_fields(self, request, obj=None):
        if obj is not None and obj.draft_of_id is not None:
            # The address stays the live story's: its changes replace its content only.
            return [*self.readonly_fields, "slug", "edition", "newsroom"]
        return self.readonly_fields

    def has_change_permission(self, request, obj=None):
        # A live story is never edited in place: its pending changes are (see the docstring).
        return super().has_change_permission(request, obj) and (obj is None or may_edit(request.user, obj))

    def has_delete_permission(self, request, obj=None):
        # A live story is taken down with Unpublish, never deleted from under its readers;
        # pending changes are discarded (audited), not deleted.
        return super().has_delete_permission(request, obj) and (
            obj is None or (not obj.is_published and obj.draft_of_id is None)
        )

    # ------------------------------------------------------------------ the desk panel

    @admin.display(description="")
    def desk(self, obj):
        if obj is None or not obj.pk:
            return "Save the story first."
        loaded = Story.objects.with_everything().get(pk=obj.pk)
        user = desk_user.get()
        context = {**desk_context(loaded), "can_cite": user is not None and may_edit(user, obj)}
        link = format_html(
            '<p><a href="{}" class="desk-primary" id="desk-open-editor">Write, cite and check on the editing screen</a></p>',
            reverse("admin:stories_story_editor", args=[obj.pk]),
        )
        return link + render_to_string("admin/stories/story/desk_panel.html", context)

    # ------------------------------------------------------------------ saving

    def save_model(self, request, obj, form, change):
        # Written in save_related, with the inlines, in one save_story.
        if not change:
            obj.created_by = request.user  # a submission may never replace an editor's story

    def save_related(self, request, form, formsets, change):
        if change and not form.has_changed() and not any(fs.has_changed() for fs in formsets):
            return  # nothing edited: no new version
        if change and not may_edit(request.user, form.instance):
            raise PermissionDenied("a live story is edited in its pending changes")

        actions.save_forms(
            story=form.instance,
            user=request.user,
            form=form,
            formsets=formsets,
            expected_version=form.cleaned_data.get("opened_version"),
        )

    # ------------------------------------------------------------------ pages

    def change_view(self, request, object_id, form_url="", extra_context=None):
        extra_context = dict(extra_context or {})
        story = self.get_object(request, object_id)
        if story is not None:
            user = request.user
            editable = may_edit(user, story)
            if request.method == "GET" and editable:
                # Only those who may save are noted: a reader of the page clashes with nobody.
                presence.touch(story.pk, user.get_username())
            live = story.draft_of if story.draft_of_id else None
            extra_context.update(
                {
                    "is_live": is_live(story),
                    "live_story": live,
                    # (a story taken down with changes pending lists them in the story list)
                    "pending_draft": pending_draft_of(story) if is_live(story) else None,
                    "can_start_changes": actions.can_edit(user, None),
                    "can_discard_changes": actions.can_edit(user, live or story),
                    "others_open": presence.others(story.pk, user.get_username()) if editable else [],
                    "can_run_checks": user.has_perm("stories.change_story"),
                    "can_submit_review": editable
                    and story.status == Story.Status.DRAFT
                    and story.review_status != Story.Review.IN_REVIEW,
                    "can_send_back": user.has_perm("stories.publish_story")
                    and story.review_status == Story.Review.IN_REVIEW,
                    "can_publish": user.has_perm("stories.publish_story"),
                    "can_correct": user.has_perm("stories.add_correction") and story.is_published,
                    "last_audit": AuditEntry.objects.filter(story=story).select_related("user").first(),
                    "last_check": latest_check(story),
                }
            )
        return super().change_view(request, object_id, form_url, extra_context)

    def get_urls(self):
        def view(func):
            return self.admin_site.admin_view(lambda request, *args, **kwargs: func(self, request, *args, **kwargs))

        name = "stories_story_"
        return [
            # The editing screen: "Add story" lands on it; its endpoints answer JSON.
            path("add/", view(desk_views.editor), name=name + "editor_new"),
            path("editor/save/", view(desk_views.save), name=name + "editor_save"),
            path("editor/checks/", view(desk_views.live_checks), name=name + "editor_checks"),
            path("editor/claims/", view(desk_views.claims), name=name + "editor_claims"),
            path("editor/autosave/", view(desk_views.autosave), name=name + "editor_autosave"),
            path("<path:object_id>/editor/", view(desk_views.editor), name=name + "editor"),
            path(
                "<path:object_id>/revisions/<int:version>/restore/",
                view(desk_history.restore),
                name=name + "restore",
            ),
            path("claim/<str:claim_id>/citations/", view(claim_citations), name=name + "claim_citations"),
            path("review/", view(review_queue), name=name + "review_queue"),
            path("<path:object_id>/submit-review/", view(submit_review), name=name + "submit_review"),
            path("<path:object_id>/send-back/", view(send_back_view), name=name + "send_back"),
            path("<path:object_id>/run-checks/", view(run_checks), name=name + "run_checks"),
            path("<path:object_id>/start-changes/", view(start_changes), name=name + "start_changes"),
            path("<path:object_id>/changes/", view(changes), name=name + "changes"),
            path("<path:object_id>/publish-changes/", view(publish_changes), name=name + "publish_changes"),
            path("<path:object_id>/discard-changes/", view(discard_changes), name=name + "discard_changes"),
            path("<path:object_id>/publish/", view(publish), name=name + "publish"),
            path("<path:object_id>/unpublish/", view(unpublish), name=name + "unpublish"),
            path("<path:object_id>/schedule/", view(schedule), name=name + "schedule"),
            path("<path:object_id>/unschedule/", view(unschedule), name=name + "unschedule"),
            path("<path:object_id>/correct/", view(correct), name=name + "correct"),
            path("<path:object_id>/revisions/", view(revisions), name=name + "revisions"),
            path("<path:object_id>/revisions/compare/", view(desk_history.compare), name=name + "compare"),
        ] + super().get_urls()


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    """The audit log: read-only."""

    list_display = ["created_at", "action", "story", "version", "user", "reason"]
    list_filter = ["action"]
    search_fields = ["story__id", "story__headline", "reason"]
    list_select_related = ["story", "user"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
