"""Create the editor login (the demo one for `make run`, or a production one), or report it.

With ``DEBUG`` on (``make run``), the login is ``editor`` / ``editor`` unless
``EDITOR_USERNAME`` / ``EDITOR_PASSWORD`` say otherwise: a local demo login. With ``DEBUG``
off, there is no default password: ``EDITOR_PASSWORD`` must be set and pass
``AUTH_PASSWORD_VALIDATORS``, else the command refuses (exit status 1) and creates nothing.

The login is a staff user in the Editor group (the desk's role, docs/editor-guide.md), not a
superuser: ``--superuser`` asks for one explicitly (or use Django's ``createsuperuser``).
A password the command was given is never printed; only the demo default is shown.
"""

import os

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

DEMO_PASSWORD = "editor"


class Command(BaseCommand):
    help = (
        "Create the editor login (staff, in the Editor group) named by EDITOR_USERNAME (default 'editor'), "
        "or report that it exists. The password comes from EDITOR_PASSWORD; only with DEBUG on does it "
        "default to the demo password 'editor'. With DEBUG off it must be set and pass the password validators."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--superuser",
            action="store_true",
            help="Make the login a superuser (every permission: users, partner keys, ...), not just an editor.",
        )

    def handle(self, *, superuser=False, **options):
        User = get_user_model()
        username = User.normalize_username(os.environ.get("EDITOR_USERNAME") or "editor")
        if User._default_manager.filter(**{User.USERNAME_FIELD: username}).exists():
            where = " (admin at http://127.0.0.1:8000/admin/)" if settings.DEBUG else ""
            self.stdout.write(f"Editor login exists: {username}{where}")
            return
        password = os.environ.get("EDITOR_PASSWORD") or ""
        demo = not password
        if demo and not settings.DEBUG:
            raise CommandError(
                "EDITOR_PASSWORD is not set. With DEBUG off there is no default password: set EDITOR_PASSWORD "
                "to a strong password (it must pass AUTH_PASSWORD_VALIDATORS) for this one command, or use "
                "`manage.py createsuperuser`. No login was created."
            )
        if demo:
            password = DEMO_PASSWORD
        user = User(**{User.USERNAME_FIELD: username}, is_staff=True, is_superuser=superuser)
        if not settings.DEBUG:
            try:
                validate_password(password, user)
            except ValidationError as error:
                raise CommandError(
                    "EDITOR_PASSWORD is refused by the password validators: "
                    + " ".join(error.messages)
                    + " No login was created."
                ) from None
        user.set_password(password)
        with transaction.atomic():
            user.save()
            group = Group.objects.filter(name="Editor").first()
            if group:
                user.groups.add(group)
        role = "superuser" if superuser else "staff, Editor group" if group else "staff, no Editor group yet"
        if demo:
            self.stdout.write(
                f"Created editor login: {username} / {password} ({role}; admin at http://127.0.0.1:8000/admin/). "
                "Local use only."
            )
        else:
            self.stdout.write(f"Created editor login: {username} ({role}; password from EDITOR_PASSWORD).")
