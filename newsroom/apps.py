from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class NewsroomConfig(AppConfig):
    default = True
    name = "newsroom"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from django.conf import settings
        from django.core.checks import register

        from .infra import login_throttle, signing
        from .infra.middleware import session_stack_check

        login_throttle.connect()
        register(session_stack_check)
        if not settings.SIGNING_DEVELOPMENT_KEY:
            # Production refuses to start without a usable signing key (ImproperlyConfigured).
            signing.require_key()


class NewsroomAdminConfig(admin_apps.AdminConfig):
    """Django's admin, with the desk's site: see ``newsroom.adminsite``."""

    default = False
    default_site = "newsroom.adminsite.NewsroomAdminSite"
