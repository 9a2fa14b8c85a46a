from django.apps import AppConfig


class PublicConfig(AppConfig):
    """The readers' site: pages, renderings, feeds and sitemaps. No models of its own."""

    name = "public"
    verbose_name = "Readers' site"
