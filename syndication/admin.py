"""Partners, keys (made here, shown once), webhook endpoints and the delivery log."""

from django.contrib import admin, messages
from django.utils import timezone

from . import keys
from .models import ApiKey, ApiKeyUsage, Partner, WebhookAttempt, WebhookDelivery, WebhookEndpoint


class ApiKeyInline(admin.TabularInline):
    model = ApiKey
    fields = ["prefix", "name", "scope", "created_at", "last_used_at", "revoked_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False  # keys are made on the API key page, where the plaintext is shown once


@admin.register(Partner)
class PartnerAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "active", "contact", "created_at"]
    list_filter = ["active"]
    search_fields = ["name", "slug", "contact"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [ApiKeyInline]


@admin.action(description="Revoke the selected keys", permissions=["change"])
def revoke_keys(modeladmin, request, queryset):
    revoking = queryset.filter(revoked_at__isnull=True)
    prefixes = list(revoking.values_list("prefix", flat=True))
    count = revoking.update(revoked_at=timezone.now())
    keys.forget(*prefixes)  # an update sends no signal: the cached look-ups go here
    modeladmin.message_user(request, f"Revoked {count} key(s).", messages.SUCCESS)


class ApiKeyUsageInline(admin.TabularInline):
    model = ApiKeyUsage
    fields = ["day", "count"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    max_num = 0
    ordering = ["-day"]


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ["__str__", "partner", "name", "scope", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["scope", "partner", ("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["prefix", "name", "partner__name"]
    autocomplete_fields = ["partner"]
    readonly_fields = ["prefix", "created_at", "last_used_at", "revoked_at"]
    actions = [revoke_keys]
    inlines = [ApiKeyUsageInline]

    def get_inlines(self, request, obj):
        return self.inlines if obj is not None else []

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["partner", "name", "scope"]
        return ["partner", "name", "scope", "prefix", "created_at", "last_used_at", "revoked_at"]

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []
        return ["partner", "scope", "prefix", "created_at", "last_used_at", "revoked_at"]

    def save_model(self, request, obj, form, change):
        if change:
            return super().save_model(request, obj, form, change)
        plaintext = obj.set_new_secret()
        super().save_model(request, obj, form, change)
        # The only time the key exists outside the partner's hands: it is not stored.
        self.message_user(
            request,
            f"The new key (copy it now, it will not be shown again): {plaintext}",
            messages.WARNING,
        )


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin):
    list_display = ["url", "partner", "events", "active", "created_at"]
    list_filter = ["active", "partner"]
    search_fields = ["url", "partner__name"]
    autocomplete_fields = ["partner"]


class WebhookAttemptInline(admin.TabularInline):
    model = WebhookAttempt
    fields = ["at", "status_code", "error", "duration_ms"]
    readonly_fields = fields
    extra = 0
    max_num = 0
    can_delete = False


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = [
        "delivery_id",
        "event",
        "story_id",
        "endpoint",
        "status",
        "attempts",
        "next_attempt_at",
        "created_at",
    ]
    list_filter = ["status", "event", "endpoint__partner"]
    search_fields = ["delivery_id", "story_id", "endpoint__url"]
    list_select_related = ["endpoint__partner"]
    date_hierarchy = "created_at"
    inlines = [WebhookAttemptInline]

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in self.model._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
