from django.contrib import admin

from .models import Claim, Manifest, Publisher


@admin.register(Publisher)
class PublisherAdmin(admin.ModelAdmin):
    search_fields = ["name"]


class ClaimInline(admin.TabularInline):
    model = Claim
    fields = ["id", "position", "text", "self_reported", "has_text"]
    extra = 0


@admin.register(Manifest)
class ManifestAdmin(admin.ModelAdmin):
    list_display = ["id", "title", "publisher", "published_date"]
    list_select_related = ["publisher"]
    search_fields = ["id", "title", "publisher__name"]
    autocomplete_fields = ["publisher"]
    inlines = [ClaimInline]


@admin.register(Claim)
class ClaimAdmin(admin.ModelAdmin):
    list_display = ["id", "manifest", "self_reported", "has_text"]
    list_select_related = ["manifest"]
    search_fields = ["id", "text", "manifest__id"]
    autocomplete_fields = ["manifest"]
