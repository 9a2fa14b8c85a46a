from django.apps import AppConfig


class NewsroomConfig(AppConfig):
    name = "newsroom"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from django.conf import settings

        from .infra import login_throttle, signing

        login_throttle.connect()
        if not settings.SIGNING_DEVELOPMENT_KEY:
            # Production refuses to start without a usable signing key (ImproperlyConfigured).
            signing.require_key()
