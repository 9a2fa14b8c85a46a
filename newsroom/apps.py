from django.apps import AppConfig


class NewsroomConfig(AppConfig):
    name = "newsroom"
    default_auto_field = "django.db.models.BigAutoField"
