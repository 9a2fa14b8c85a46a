"""Export stories as desk/1 JSON Lines."""


from django.core.management.base import BaseCommand, CommandError

from newsroom.models import SiteProfile
from stories import desk
from stories.models import Story


class Command(BaseCommand):
    help = "Write stories as hangingcontext.desk/1 JSON Lines (all stories when no id is given)."

    def add_arguments(self, parser):
        parser.add_argument("ids", nargs="*", metavar="ID")
        parser.add_argument("--out", metavar="FILE", help="write here instead of standard output")

    def handle(self, *args, ids, out=None, **options):
        stories = Story.objects.with_everything().order_by("edition_id", "id")
        if ids:
            stories = stories.filter(id__in=ids)
            missing = sorted(set(ids) - set(stories.values_list("id", flat=True)))
            if missing:
                raise CommandError(f"no story with id {', '.join(missing)}")
        profile = SiteProfile.load()
        fh = open(out, "w", encoding="utf-8") if out else None
        try:
            write = fh.write if fh else self.stdout.write
            for story in stories.iterator(chunk_size=200):
                line = desk.dumps(desk.export_story(story, profile=profile), pretty=False) + "\n"
                if fh:
                    fh.write(line)
                else:
                    self.stdout.write(line, ending="")
        finally:
            if fh:
                fh.close()
