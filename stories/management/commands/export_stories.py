"""Export stories as desk/1 JSON Lines."""

import os
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from newsroom.models import SiteProfile
from stories import desk
from stories.models import Story


class Command(BaseCommand):
    help = (
        "Write stories as hangingcontext.desk/1 JSON Lines (all stories when no id is given). Pending "
        "changes of live stories are not exported: desk/1 has no place for them, and a restore would "
        "turn them into stories of their own."
    )

    def add_arguments(self, parser):
        parser.add_argument("ids", nargs="*", metavar="ID")
        parser.add_argument("--out", metavar="FILE", help="write here instead of standard output")

    def handle(self, *args, ids, out=None, **options):
        stories = Story.objects.with_everything().filter(draft_of__isnull=True).order_by("edition_id", "id")
        if ids:
            stories = stories.filter(id__in=ids)
            missing = sorted(set(ids) - set(stories.values_list("id", flat=True)))
            if missing:
                raise CommandError(f"no story with id {', '.join(missing)}")
        profile = SiteProfile.load()
        lines = (
            desk.dumps(desk.export_story(story, profile=profile), pretty=False) + "\n"
            for story in stories.iterator(chunk_size=200)
        )
        if not out:
            for line in lines:
                self.stdout.write(line, ending="")
            return
        # Written beside the target and renamed into place: a failed export leaves no half file.
        target = Path(out)
        partial = target.with_name(target.name + ".partial")
        try:
            with partial.open("w", encoding="utf-8") as fh:
                fh.writelines(lines)
            os.replace(partial, target)
        except OSError as exc:
            raise CommandError(f"cannot write {out}: {exc.strerror or exc}") from None
        finally:
            partial.unlink(missing_ok=True)
