"""Export every manifest and its claims as one hangingcontext.manifests/1 document."""

import os
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from manifests import formats


class Command(BaseCommand):
    help = (
        "Write all manifests with their claims as hangingcontext.manifests/1 JSON (manifests by id, "
        "claims in order; stub claims are left out: importing the stories that cite them recreates them)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--out", metavar="FILE", help="write here instead of standard output")

    def handle(self, *args, out=None, **options):
        text = formats.dumps(formats.export_manifests_document())
        if not out:
            self.stdout.write(text, ending="")
            return
        # Written beside the target and renamed into place: a failed export leaves no half file.
        target = Path(out)
        partial = target.with_name(target.name + ".partial")
        try:
            partial.write_text(text, encoding="utf-8")
            os.replace(partial, target)
        except OSError as exc:
            raise CommandError(f"cannot write {out}: {exc.strerror or exc}") from None
        finally:
            partial.unlink(missing_ok=True)
