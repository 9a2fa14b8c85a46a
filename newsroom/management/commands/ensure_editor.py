"""Create the local editor login for `make run`, or report the one that exists."""

import os

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create a superuser 'editor' for local use (password from EDITOR_PASSWORD, default 'editor'), or report it."

    def handle(self, **options):
        User = get_user_model()
        username = os.environ.get("EDITOR_USERNAME", "editor")
        user = User.objects.filter(username=username).first()
        if user:
            self.stdout.write(f"Editor login exists: {username} (admin at http://127.0.0.1:8000/admin/)")
            return
        password = os.environ.get("EDITOR_PASSWORD", "editor")
        user = User.objects.create_superuser(username=username, email="", password=password)
        group = Group.objects.filter(name="Editor").first()
        if group:
            user.groups.add(group)
        self.stdout.write(
            f"Created editor login: {username} / {password} (admin at http://127.0.0.1:8000/admin/). Local use only."
        )
