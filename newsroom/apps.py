from django.apps import AppConfig


class NewsroomConfig(AppConfig):
    name = "newsroom"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from .infra import login_throttle

        login_throttle.connect()
