"""Admin pages for a story's nested parts: a section with its paragraphs, and a cite with
its claims. Django's admin has no nested inlines, so the story page edits sections and
key facts inline and links here for what sits one level deeper. These pages are hidden
from the admin index and always lead back to their story.

Every save or delete here goes through ``stories.actions.save_story``: the story's
version is bumped, a revision kept and ``story_updated`` sent, like a save of the story.
The parts of a live (published or scheduled) story are shown read-only and never deleted
here: they are edited in its pending changes (``stories.actions.drafts``). The pages have
no bulk actions: a part is deleted from its own page, one edit of its story at a time.
"""

from __future__ import annotations

from contextvars import ContextVar

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import HttpResponseRedirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from manifests.models import Claim
from newsroom.adminsite import LabelledInline
from stories import actions
from stories.actions.drafts import is_live
from stories.admin.forms import CiteForm, StoryPartForm, XmlTextModelForm, claim_label
from stories.models import Cite, CiteClaim, KeyFact, Paragraph, Section, Story

# The user of the admin page being rendered: the read-only fields (the desk panel, a
# paragraph's cites) are callables of the object alone, and offer "Add cite" only to those
# who may use it. Set by ``RefusesLostSaves.changeform_view`` for the request's duration.
desk_user: ContextVar = ContextVar("desk_user", default=None)


def may_edit(user, story: Story) -> bool:
    """Whether ``user`` may change ``story``'s rows here: a live story never (its pending
    changes are edited instead); a draft, as ``actions.can_edit`` says."""
    return not is_live(story) and actions.can_edit(user, story)


def story_change_url(story: Story, anchor: str = "desk") -> str:
    return reverse("admin:stories_story_change", args=[story.pk]) + (f"#{anchor}" if anchor else "")


def cites_html(owner) -> str:
    """An owner's (paragraph or key fact) cites, with their claims' text and edit links."""
    return render_to_string("admin/stories/story/cites.html", {"owner": owner})


class StoryChildInline(LabelledInline):
    """Inlines of a story or of its parts follow the story's edit rule: writers edit drafts
    only (``actions.can_edit``). Each row's fields are named for assistive technology, and
    refuse the characters XML cannot hold (``XmlTextModelForm``)."""

    form = XmlTextModelForm

    def _editable(self, request, obj):
        return obj is None or may_edit(request.user, obj if isinstance(obj, Story) else obj.story)

    def has_add_permission(self, request, obj=None):
        return super().has_add_permission(request, obj) and self._editable(request, obj)

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and self._editable(request, obj)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and self._editable(request, obj)


class OrderedInline:
    """Inlines with a ``position``: optional on the form (blank = at the end)."""

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if db_field.name == "position":
            field.required = False
            field.initial = None
            field.widget.attrs.update({"class": "desk-position", "placeholder": "end"})
            field.help_text = "Order: lower first; leave blank to add at the end."
        return field


class RefusesLostSaves:
    """The saving behaviour of the story admin and its part pages. It turns a
    ``VersionConflict`` raised while saving into the conflict message, not a 500, and saves
    ordered inlines in their displayed order.

    The form's ``clean`` already refuses a save when the story moved on since the page was
    opened, and on PostgreSQL it holds the story's row lock until the save is done. Where a
    save still loses the race after its form was validated (SQLite takes no row locks), the
    version check in ``actions.save_story`` raises; the admin's transaction is rolled back
    (nothing of the save is written) and the editor is sent back to the page with the reason.
    """

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        token = desk_user.set(request.user)
        try:
            response = super().changeform_view(request, object_id, form_url, extra_context)
            if hasattr(response, "render"):
                response.render()  # while desk_user is set: the read-only fields read it
            return response
        except actions.VersionConflict as conflict:
            messages.error(
                request,
                f"Not saved: someone else saved this story while you were saving (you opened version "
                f"{conflict.expected_version}; it is now at version {conflict.story.version}). Nothing of your "
                f"save was written: re-apply your edits on the page as it is now.",
            )
            return HttpResponseRedirect(request.get_full_path())
        finally:
            desk_user.reset(token)

    def save_formset(self, request, form, formset, change):
        # The inlines are written by save_related, through actions.save_forms.
        raise NotImplementedError("inlines are saved through stories.actions.save_forms")


class StoryPartAdmin(RefusesLostSaves, admin.ModelAdmin):
    """Shared behaviour of the part pages: saves through ``save_story``, permissions follow
    the story's (writers edit drafts only), hidden from the index, redirects to the story."""

    form = StoryPartForm
    change_form_template = "admin/stories/part_change_form.html"
    # No bulk actions, Django's "Delete selected" included: a part is deleted from its page,
    # as an edit of its story.
    actions = None

    def get_model_perms(self, request):
        return {}  # reached from the story page, not listed on the admin index

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and (obj is None or may_edit(request.user, obj.story))

    def has_delete_permission(self, request, obj=None):
        # The admin also asks this of the parts a deletion elsewhere would touch (the cites
        # protecting a manifest): ``manifests.admin.ProtectedDeleteMixin`` still explains
        # the protection. ``delete_view``, ``delete_model`` and ``delete_queryset`` refuse too.
        return super().has_delete_permission(request, obj) and (obj is None or may_edit(request.user, obj.story))

    def story_link(self, obj):
        return format_html('<a href="{}">{}</a>', story_change_url(obj.story), obj.story.headline)

    story_link.short_description = "Story"

    def save_model(self, request, obj, form, change):
        pass  # written in save_related, with the inlines, in one save_story

    def save_related(self, request, form, formsets, change):
        if not may_edit(request.user, form.instance.story):
            raise PermissionDenied("the parts of a live story are edited in its pending changes")
        actions.save_forms(
            story=form.instance.story,
            user=request.user,
            form=form,
            formsets=formsets,
            expected_version=form.cleaned_data.get("opened_version"),
            details={"part": form.instance._meta.model_name},
        )

    def delete_model(self, request, obj):
        if not may_edit(request.user, obj.story):
            raise PermissionDenied("the parts of a live story are edited in its pending changes")
        actions.delete_part(part=obj, user=request.user)

    def delete_queryset(self, request, queryset):
        """Deleting a selection (no page offers it): refused whole, nothing deleted, when any
        part belongs to a story the user may not edit here (a live one); otherwise each part
        is deleted as an edit of its story, as on its delete page."""
        parts = list(queryset)
        refused = sorted({part.story.pk for part in parts if not may_edit(request.user, part.story)})
        if refused:
            raise PermissionDenied(
                f"nothing was deleted: story {', '.join(map(str, refused))} is live or not yours to edit; "
                "the parts of a live story are edited in its pending changes"
            )
        with transaction.atomic():
            for part in parts:
                actions.delete_part(part=part, user=request.user)

    def _back(self, request, obj):
        return HttpResponseRedirect(story_change_url(obj.story))

    def response_change(self, request, obj):
        if "_continue" in request.POST:
            return super().response_change(request, obj)
        version = Story.objects.only("version").get(pk=obj.story.pk).version
        messages.success(request, f"Saved {obj._meta.verbose_name}. The story is now at version {version}.")
        return self._back(request, obj)

    def response_delete(self, request, obj_display, obj_id):
        story = getattr(request, "_desk_story", None)
        if story is not None:
            messages.success(request, f"Deleted {obj_display}.")
            return HttpResponseRedirect(story_change_url(story))
        return super().response_delete(request, obj_display, obj_id)

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        form = context["adminform"].form
        context.update(
            desk_story=obj.story if obj is not None else form.story_for_version(),
            show_save_and_add_another=False,  # a part is added from its place on the story page
        )
        return super().render_change_form(request, context, add, change, form_url, obj)

    def delete_view(self, request, object_id, extra_context=None):
        obj = self.get_object(request, object_id)
        if obj is not None:
            if not may_edit(request.user, obj.story):
                raise PermissionDenied("the parts of a live story are edited in its pending changes")
            request._desk_story = obj.story
        return super().delete_view(request, object_id, extra_context)


class ParagraphInline(StoryChildInline, OrderedInline, admin.StackedInline):
    model = Paragraph
    fields = ["position", "markdown", "cites"]
    readonly_fields = ["cites"]
    extra = 1
    ordering = ["position", "id"]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("section__story")  # whether "Add cite" is offered reads the story
            .prefetch_related("cites__manifest__publisher", "cites__claims__claim")
        )

    def cites(self, obj):
        if not obj.pk:
            return "Save this paragraph first; then add its cites."
        if not may_edit(desk_user.get(), obj.section.story):
            return cites_html(obj)
        return format_html(
            '{}<a class="button" href="{}?paragraph={}">Add cite</a> <span class="desk-muted">(leaves this page: save your edits first)</span>',
            cites_html(obj),
            reverse("admin:stories_cite_add"),
            obj.pk,
        )


@admin.register(Section)
class SectionAdmin(StoryPartAdmin):
    fields = ["story_link", "heading", "position", "opened_version"]
    readonly_fields = ["story_link"]
    inlines = [ParagraphInline]

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("story")

    def has_add_permission(self, request):
        return False  # sections are added on the story page


class CiteClaimInline(StoryChildInline, OrderedInline, admin.TabularInline):
    model = CiteClaim
    fields = ["position", "claim"]
    extra = 3
    ordering = ["position", "id"]
    verbose_name = "claim"
    verbose_name_plural = "claims cited, in order"

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)
        field = formset.form.base_fields["claim"]
        # Only the chosen manifest's claims are offered, each with its text.
        field.queryset = Claim.objects.filter(manifest=obj.manifest) if obj else Claim.objects.none()
        field.label_from_instance = claim_label
        field.help_text = "Only this manifest's claims are offered."
        for attr in ("can_add_related", "can_change_related", "can_delete_related", "can_view_related"):
            setattr(field.widget, attr, False)
        return formset

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("claim")


@admin.register(Cite)
class CiteAdmin(StoryPartAdmin):
    form = CiteForm
    autocomplete_fields = ["manifest"]
    inlines = [CiteClaimInline]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("manifest__publisher", "paragraph__section__story", "key_fact__story")
        )

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["cited_by", "paragraph", "key_fact", "manifest", "position", "opened_version"]
        return ["story_link", "cited_by", "manifest", "position", "manifest_claims", "opened_version"]

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ["cited_by"]
        # A cite's claims belong to its manifest: to cite another, add another cite.
        return ["story_link", "cited_by", "manifest", "manifest_claims"]

    def get_inlines(self, request, obj):
        return self.inlines if obj is not None else []

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        field = super().formfield_for_foreignkey(db_field, request, **kwargs)
        if db_field.name == "manifest":
            field.help_text = "Type part of the manifest's id, title or publisher. Save, then choose its claims."
        return field

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        owner = CiteForm._owner(request.GET.get("paragraph"), request.GET.get("key_fact"))
        if owner is not None:
            initial["position"] = owner.cites.count()
        return initial

    def cited_by(self, obj):
        owner = (obj.paragraph if obj.paragraph_id else obj.key_fact if obj.key_fact_id else None) if obj else None
        if owner is None:
            return "-"
        label = "Key fact" if isinstance(owner, KeyFact) else "Paragraph"
        text = owner.text if isinstance(owner, KeyFact) else owner.markdown
        return format_html("<strong>{}:</strong> {}", label, text)

    cited_by.short_description = "Cited by"

    def manifest_claims(self, obj):
        claims = obj.manifest.claims.all()
        if not claims:
            return "This manifest has no claims stored yet."
        return format_html(
            '<table class="desk-claims"><thead><tr><th>claim id</th><th>text</th><th>self-reported</th></tr></thead><tbody>{}</tbody></table>',
            format_html_join(
                "",
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                (
                    (
                        c.id,
                        c.text if c.has_text else "(stub: no text yet)",
                        {True: "yes", False: "no"}.get(c.self_reported, "?"),
                    )
                    for c in claims
                ),
            ),
        )

    manifest_claims.short_description = "Claims of this manifest"

    def response_add(self, request, obj, post_url_continue=None):
        # Claims are chosen once the manifest is known: always continue to the change page.
        messages.success(request, "Cite added. Now choose its claims, in order, and save.")
        return HttpResponseRedirect(reverse("admin:stories_cite_change", args=[obj.pk]))
