"""Fill a benchmark database with N published stories for the API list benchmark.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_pages .venv/bin/python bench/api_stories.py [N]

Each story is the demo story (run `manage.py loaddemo` first) with its own id, slug and
publication time, imported through `stories.actions.import_story` like any desk/1 document. Stories
already there are kept, so running it twice adds nothing.
"""

import copy
import datetime as dt
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "newsroom.settings")

import django  # noqa: E402

django.setup()

from stories import actions, desk  # noqa: E402
from stories.models import Story  # noqa: E402


def main(n: int) -> None:
    demo = json.loads((ROOT / "demo" / "agent-training-stack.json").read_text(encoding="utf-8"))
    published = dt.datetime.fromisoformat(demo["published_at"].replace("Z", "+00:00"))
    for i in range(1, n):
        sid = str(1792400000000000000 + i)
        if Story.objects.filter(id=sid).exists():
            continue
        doc = copy.deepcopy(demo)
        doc.update(id=sid, slug=f"{demo['slug']}-{i}", related=[], headline=f"{demo['headline']} ({i})")
        doc["published_at"] = (published - dt.timedelta(minutes=i)).isoformat().replace("+00:00", "Z")
        actions.import_story(desk.validate(doc), restore=True)
    print(Story.objects.published().count(), "published stories")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
