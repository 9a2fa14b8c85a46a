"""``manage.py create_api_key PARTNER [--scope read|writer]``: prints the new key alone on
standard output (for scripts); the partner is created when new."""

from django.core.management.base import BaseCommand, CommandError
from django.utils.text import slugify

from syndication.models import ApiKey, Partner


class Command(BaseCommand):
    help = "Create an API key for a partner (created when new) and print the key, alone, on stdout."

    def add_arguments(self, parser):
        parser.add_argument("partner", help="The partner's name or slug.")
        parser.add_argument("--scope", choices=ApiKey.Scope.values, default=ApiKey.Scope.READ)
        parser.add_argument("--name", default="", help="What the key is for.")

    def handle(self, *args, partner, scope, name, **options):
        slug = slugify(partner)[:100]
        if not slug:
            raise CommandError(f"{partner!r} makes no slug: use letters or digits")
        owner, created = Partner.objects.get_or_create(slug=slug, defaults={"name": partner})
        if not owner.active:
            raise CommandError(f"partner {owner.slug} is inactive: reactivate it in the admin first")
        _, plaintext = ApiKey.issue(partner=owner, scope=scope, name=name)
        if created:
            self.stderr.write(f"created partner {owner.slug}")
        self.stdout.write(plaintext)
