"""``manage.py flush_api_usage``: move the request counts kept in the cache to the database
(``syndication.usage``). Requests flush their own key once a minute; run this from cron
(every few minutes) so that a key no longer in use has its last counts stored too."""

from django.core.management.base import BaseCommand

from syndication.usage import flush_all


class Command(BaseCommand):
    help = "Move the API keys' request counts from the cache to the database."

    def handle(self, *args, **options):
        self.stdout.write(f"{flush_all()} requests counted")
