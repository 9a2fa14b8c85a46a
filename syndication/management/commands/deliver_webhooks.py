"""``manage.py deliver_webhooks [--once] [--loop]``: send the due webhook deliveries."""

import time

from django.core.management.base import BaseCommand

from syndication.webhooks import deliver_due


class Command(BaseCommand):
    help = "Send due webhook deliveries from the outbox (--once: one pass, the default; --loop: keep polling)."

    def add_arguments(self, parser):
        mode = parser.add_mutually_exclusive_group()
        mode.add_argument("--once", action="store_true", help="One pass over the due deliveries (default).")
        mode.add_argument("--loop", action="store_true", help="Keep running, polling every --interval seconds.")
        parser.add_argument("--interval", type=float, default=5.0)
        parser.add_argument("--limit", type=int, default=500, help="At most this many sends per pass.")

    def handle(self, *args, once, loop, interval, limit, **options):
        while True:
            sent = deliver_due(limit=limit)
            if sent:
                self.stdout.write(f"tried {sent} deliveries")
            if not loop:
                return
            if sent < limit:
                time.sleep(interval)
