"""Admin for sources and their claims.

Deleting: a manifest or claim that a story cites is protected by the cites' foreign keys
(``on_delete=PROTECT``). Django's delete pages already refuse and list what protects the
object; ``ProtectedDeleteMixin`` also turns the rare ``ProtectedError`` raised after that
check (a cite added meanwhile) into a message instead of a server error. This module
knows nothing of stories: it only sees that something protects the row.
"""

from collections import Counter

from django import forms
from django.contrib import admin, messages
from django.db import models
from django.db.models import Count, ProtectedError, Q
from django.http import HttpResponseRedirect

from newsroom.adminsite import LabelledInline

from . import provider
from .models import Claim, Manifest, Publisher

# The action fetches synchronously, in the request: keep it to what a provider answers quickly.
FETCH_ACTION_LIMIT = 25
FETCH_ACTION_SECONDS = 30
PROTECTED_LIST_LIMIT = 20


class ProtectedDeleteMixin:
    """Refuse, with a message, to delete what other rows protect."""

    def get_deleted_objects(self, objs, request):
        to_delete, model_count, perms_needed, protected = super().get_deleted_objects(objs, request)
        if protected:
            # Refused either way: say what protects the object, not that the user may not
            # delete the protecting rows (Django's page shows only the first reason).
            perms_needed = set()
        if len(protected) > PROTECTED_LIST_LIMIT:
            rest = len(protected) - PROTECTED_LIST_LIMIT
            protected = [*protected[:PROTECTED_LIST_LIMIT], f"… and {rest} more"]
        return to_delete, model_count, perms_needed, protected

    def delete_view(self, request, object_id, extra_context=None):
        try:
            return super().delete_view(request, object_id, extra_context)
        except ProtectedError as exc:
            self.message_user(request, protected_message(exc), messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())

    def changelist_view(self, request, extra_context=None):
        # The "delete selected" action deletes in the changelist view.
        try:
            return super().changelist_view(request, extra_context)
        except ProtectedError as exc:
            self.message_user(request, protected_message(exc), messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())


class NamesTheEditor:
    """Saved publishers, manifests and claims carry ``changed_by`` (the editor), for the
    receivers of ``post_save``: a change to a source that stories cite is audited with its
    author."""

    def save_model(self, request, obj, form, change):
        obj.changed_by = request.user
        super().save_model(request, obj, form, change)

    def save_formset(self, request, form, formset, change):
        for inline_form in formset.forms:
            inline_form.instance.changed_by = request.user
        super().save_formset(request, form, formset, change)


def protected_message(exc: ProtectedError) -> str:
    """``Not deleted: still referenced by 3 cites and 5 cite claims. Remove those first.``"""
    counts = Counter(obj._meta.verbose_name_plural for obj in exc.protected_objects)
    what = " and ".join(f"{n} {name}" for name, n in sorted(counts.items()))
    return f"Not deleted: still referenced by {what} (stories cite it). Remove those cites first; nothing was deleted."


class ClaimForm(forms.ModelForm):
    """A claim's id is its identity across stories and providers: settable on a new claim,
    fixed afterwards. Giving a stub its text makes it a claim with text."""

    class Meta:
        model = Claim
        fields = ["id", "manifest", "position", "text", "self_reported"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # A user who may only view claims (a Writer) gets a form without fields: the admin
        # shows every value read-only.
        if not self.instance._state.adding and "id" in self.fields:
            self.fields["id"].disabled = True
        if "position" in self.fields:
            self.fields["position"].required = False
            self.fields["position"].initial = None
            self.fields["position"].widget.attrs["placeholder"] = "next"
            self.fields["position"].help_text = "Blank: numbered after the last claim, in the order listed."

    def clean(self):
        cleaned = super().clean()
        if "text" in self.fields:
            self.instance.has_text = bool((cleaned.get("text") or "").strip())
        return cleaned


@admin.register(Publisher)
class PublisherAdmin(NamesTheEditor, ProtectedDeleteMixin, admin.ModelAdmin):
    """A publisher's name is the source name of its manifests: renaming one that stories
    cite is audited on them, like a change to the manifests themselves. A publisher with
    manifests is protected from deletion."""

    search_fields = ["name"]


class NumberedClaimsFormSet(forms.BaseInlineFormSet):
    """New claims whose position is left blank are numbered in order after the manifest's
    last one (1, 2, 3... on a new manifest), as listed on the page."""

    def clean(self):
        super().clean()
        kept = [f for f in self.forms if f.has_changed() or f.instance.pk]
        kept = [f for f in kept if not (self.can_delete and self._should_delete_form(f))]
        numbered = [f.cleaned_data.get("position") for f in kept if getattr(f, "cleaned_data", None)]
        last = max([p for p in numbered if p is not None] or [0])
        for form in kept:
            if getattr(form, "cleaned_data", None) is not None and form.cleaned_data.get("position") is None:
                last += 1
                form.cleaned_data["position"] = form.instance.position = last


class ClaimInline(LabelledInline, admin.TabularInline):
    model = Claim
    form = ClaimForm
    formset = NumberedClaimsFormSet
    fields = ["id", "position", "text", "self_reported", "status"]
    readonly_fields = ["status"]
    extra = 0
    show_change_link = True

    @admin.display(description="status")
    def status(self, claim):
        return claim_status(claim)


def claim_status(claim: Claim) -> str:
    if claim.pk is None:
        return ""
    return "has text" if claim.has_text else "stub: no text yet (fetch from provider)"


class StubClaimsFilter(admin.SimpleListFilter):
    title = "claim texts"
    parameter_name = "stubs"

    def lookups(self, request, model_admin):
        return [("yes", "Some claims have no text yet"), ("no", "Every claim has its text")]

    def queryset(self, request, queryset):
        stubbed = Claim.objects.stubs().values("manifest_id")
        if self.value() == "yes":
            return queryset.filter(id__in=stubbed)
        if self.value() == "no":
            return queryset.exclude(id__in=stubbed)
        return queryset


@admin.register(Manifest)
class ManifestAdmin(NamesTheEditor, ProtectedDeleteMixin, admin.ModelAdmin):
    list_display = ["id", "title", "publisher", "published_date", "claim_count", "stub_count", "fetched_at"]
    list_select_related = ["publisher"]
    list_filter = [StubClaimsFilter, "published_date", "fetched_at", ("publisher", admin.RelatedOnlyFieldListFilter)]
    # Other admins' autocomplete fields (a cite's manifest) search with these.
    search_fields = ["id", "title", "publisher__name"]
    autocomplete_fields = ["publisher"]
    readonly_fields = ["fetched_at", "updated_at"]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    inlines = [ClaimInline]
    actions = ["fetch_from_provider"]

    def get_readonly_fields(self, request, obj=None):
        # A stored manifest's id is what cites name: changed on its form, it would be saved as
        # another manifest, its claims moved there, and every cite of it left pointing at the old one.
        fields = super().get_readonly_fields(request, obj)
        return fields if obj is None else ["id", *fields]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(n_claims=Count("claims"), n_stubs=Count("claims", filter=Q(claims__has_text=False)))
            # Meta.ordering does not apply to a GROUP BY query; autocomplete pages need an order.
            .order_by(*Manifest._meta.ordering)
        )

    @admin.display(description="claims", ordering="n_claims")
    def claim_count(self, manifest):
        return manifest.n_claims

    @admin.display(description="without text", ordering="n_stubs")
    def stub_count(self, manifest):
        return manifest.n_stubs

    @admin.action(description="Fetch from provider", permissions=["change"])
    def fetch_from_provider(self, request, queryset):
        ids = list(queryset.order_by("id").values_list("id", flat=True)[: FETCH_ACTION_LIMIT + 1])
        if len(ids) > FETCH_ACTION_LIMIT:
            self.message_user(
                request,
                f"Select at most {FETCH_ACTION_LIMIT} manifests to fetch at once "
                "(or run `manage.py fetch_manifests --missing`).",
                messages.ERROR,
            )
            return
        summary = provider.fetch_manifests(ids, force=True, time_limit=FETCH_ACTION_SECONDS)
        troubles = summary.with_outcome(provider.FAILED, provider.NOT_FOUND)
        level = messages.WARNING if troubles else messages.SUCCESS
        self.message_user(request, f"Fetched from the provider: {summary.line()}.", level)
        for result in summary.results:
            if result.outcome in (provider.FAILED, provider.NOT_FOUND):
                self.message_user(request, f"{result.manifest_id}: {result.outcome}: {result.message}", messages.ERROR)
            elif result.stubs_left:
                self.message_user(request, f"{result.manifest_id}: {result.message}", messages.WARNING)


@admin.register(Claim)
class ClaimAdmin(NamesTheEditor, ProtectedDeleteMixin, admin.ModelAdmin):
    form = ClaimForm
    list_display = ["id", "manifest", "short_text", "self_reported", "has_text"]
    list_select_related = ["manifest"]
    list_filter = ["has_text", "self_reported"]
    # Other admins' autocomplete fields (a cite's claims) search with these.
    search_fields = ["id", "text", "manifest__id"]
    autocomplete_fields = ["manifest"]
    readonly_fields = ["status"]
    fields = ["id", "manifest", "position", "text", "self_reported", "status"]

    def get_search_results(self, request, queryset, search_term):
        """On the autocomplete view, ``?manifest=<id>`` offers only that manifest's claims:
        a cite's claims widget passes its chosen manifest."""
        queryset, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        manifest_id = request.GET.get("manifest")
        if manifest_id and request.resolver_match and request.resolver_match.url_name == "autocomplete":
            queryset = queryset.filter(manifest_id=manifest_id)
        return queryset, may_have_duplicates

    @admin.display(description="text")
    def short_text(self, claim):
        return claim.text[:120] if claim.has_text else "(stub: no text yet)"

    @admin.display(description="status")
    def status(self, claim):
        return claim_status(claim)
