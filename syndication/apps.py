from django.apps import AppConfig


class SyndicationConfig(AppConfig):
    name = "syndication"
    default_auto_field = "django.db.models.BigAutoField"
