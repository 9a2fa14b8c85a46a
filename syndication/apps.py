from django.apps import AppConfig


class SyndicationConfig(AppConfig):
    name = "syndication"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from . import keys, receivers, schema  # noqa: F401  (connect the outbox; register the auth scheme)

        receivers.connect()
        keys.connect()
