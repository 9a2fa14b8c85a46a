import datetime as dt

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError

from .models import Beat, Edition, Newsroom, SiteProfile, parse_edition


class EditionForm(forms.ModelForm):
    """An edition is an hour: give its id (``2026-12-01T01``) or its start (the admin's "Now"
    works), and the other follows. A start inside the hour snaps to the hour's beginning."""

    class Meta:
        model = Edition
        fields = ["id", "starts_at"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["id"].required = False
        self.fields["id"].help_text = "The UTC hour, YYYY-MM-DDTHH. Blank: the hour of the start time."
        self.fields["starts_at"].required = False
        self.fields["starts_at"].help_text = "Any time in the hour: it snaps to the hour's beginning (UTC)."

    def clean(self):
        cleaned = super().clean()
        edition_id, start = (cleaned.get("id") or "").strip(), cleaned.get("starts_at")
        if edition_id:
            try:
                hour = parse_edition(edition_id)
            except ValueError as exc:
                raise ValidationError({"id": str(exc)}) from exc
        elif start is not None:
            hour = start.astimezone(dt.UTC).replace(minute=0, second=0, microsecond=0)
            edition_id = hour.strftime("%Y-%m-%dT%H")
        else:
            raise ValidationError("Give the edition's id or its start time.")
        if start is not None and edition_id and not (hour <= start < hour + dt.timedelta(hours=1)):
            raise ValidationError({"starts_at": f"{start:%Y-%m-%d %H:%M} UTC is not in the hour {edition_id} names."})
        cleaned["id"], cleaned["starts_at"] = edition_id, hour
        self.instance.id, self.instance.starts_at = edition_id, hour
        return cleaned


@admin.register(Newsroom)
class NewsroomAdmin(admin.ModelAdmin):
    list_display = ["title", "slug", "auto_publish"]
    search_fields = ["title", "slug"]
    prepopulated_fields = {"slug": ["title"]}


@admin.register(Beat)
class BeatAdmin(admin.ModelAdmin):
    list_display = ["slug", "title", "newsroom"]
    list_filter = ["newsroom"]
    search_fields = ["slug", "title"]


@admin.register(Edition)
class EditionAdmin(admin.ModelAdmin):
    form = EditionForm
    list_display = ["id", "starts_at"]
    search_fields = ["id"]
    date_hierarchy = "starts_at"


@admin.register(SiteProfile)
class SiteProfileAdmin(admin.ModelAdmin):
    fieldsets = [
        (None, {"fields": ["disclosure", "sponsor", "reuse", "run_these_manifests", "command_one", "command_all"]}),
        (
            "Policies (Markdown; each is a public page under /policies/ when not empty)",
            {
                "fields": [
                    "publishing_principles",
                    "corrections_policy",
                    "verification_policy",
                    "ownership_funding",
                    "masthead",
                ]
            },
        ),
        ("Logo and default image", {"fields": ["logo_url", "default_image_url"]}),
        (
            "trust.txt (one value per line)",
            {
                "fields": [
                    "trust_member",
                    "trust_belongto",
                    "trust_control",
                    "trust_social",
                    "trust_contact",
                    "trust_datatrainingallowed",
                ]
            },
        ),
    ]

    def has_add_permission(self, request):
        return not SiteProfile.objects.exists()

    def has_delete_permission(self, request, obj=None):
        return False
