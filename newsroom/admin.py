from django.contrib import admin

from .models import Beat, Edition, Newsroom, SiteProfile


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
