from django.contrib import admin

from .models import Correction, Story


class CorrectionInline(admin.TabularInline):
    model = Correction
    fields = ["corrected_at", "kind", "text", "created_by"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Story)
class StoryAdmin(admin.ModelAdmin):
    list_display = ["headline", "newsroom", "edition", "status", "published_at", "version"]
    list_filter = ["status", "newsroom"]
    search_fields = ["id", "headline", "slug"]
    list_select_related = ["newsroom", "edition"]
    inlines = [CorrectionInline]
