from django.apps import AppConfig


class NewsroomConfig(AppConfig):
    name = "newsroom"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from django.core.checks import register

        from .infra import login_throttle
        from .infra.middleware import session_stack_check

        login_throttle.connect()
        register(session_stack_check)
