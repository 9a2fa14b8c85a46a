"""Publish the scheduled stories that are due (run it every minute from cron)."""

from django.core.management.base import BaseCommand
from django.utils import timezone

from stories import actions
from stories.models import Story


class Command(BaseCommand):
    help = (
        "Publish every scheduled story whose time has come, through publish_story (the checks run "
        "again). A story whose checks fail goes back to draft, with the reason in its audit log."
    )

    def handle(self, **options):
        now = timezone.now()
        due = Story.objects.filter(status=Story.Status.SCHEDULED, scheduled_for__lte=now).order_by(
            "scheduled_for", "id"
        )
        published = failed = 0
        for story in due:
            try:
                actions.publish_story(story=story, scheduled_by=now)  # unless cancelled or moved since
            except actions.ChecksFailed as exc:
                failed += 1
                # Back to draft, so that it is not retried every minute and an editor sees why.
                actions.cancel_schedule(
                    story=story, reason=f"checks failed at the scheduled time (score {exc.result.score:.2f})"
                )
                self.stderr.write(f"{story.pk}: not published, {exc}")
            except actions.ActionError as exc:
                failed += 1
                self.stderr.write(f"{story.pk}: not published, {exc}")
            else:
                published += 1
                self.stdout.write(f"{story.pk}: published")
        self.stdout.write(f"publish_scheduled: {published} published, {failed} not published")
