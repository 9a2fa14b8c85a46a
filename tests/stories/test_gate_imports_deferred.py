"""A batch of new stories has its foreign keys checked at the end of its own writes, inside
its savepoint (PostgreSQL defers them to the commit otherwise): a row left dangling by the
batch's writer is refused there, the batch rolled back and its stories imported one by
one, instead of failing the whole file at its commit."""

import datetime as dt
import io
import json

import pytest
from django.core.management import call_command
from django.db import connection

from stories.actions import imports
from stories.models import Correction, Story
from tests.seed import SEED_MANIFESTS

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL defers foreign-key checks"),
]


def test_a_dangling_row_of_the_batch_is_refused_inside_its_savepoint(tmp_path, story_doc, monkeypatch):
    call_command("import_manifests", str(SEED_MANIFESTS), stdout=io.StringIO())
    docs = [story_doc(id=str(960 + i), slug=f"deferred-{i}", newsroom=f"desk-{i}", published_at=None) for i in range(3)]
    path = tmp_path / "stories.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    real, batches = imports.write_new, []

    def faulty_write_new(run, *args, **kwargs):  # a planted fault: the writer leaves a row dangling
        batches.append(len(run))
        out = real(run, *args, **kwargs)
        Correction.objects.create(
            story_id="no-such-story", corrected_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC), kind="correction", text="x"
        )
        return out

    monkeypatch.setattr(imports, "write_new", faulty_write_new)
    call_command("import_stories", str(path), stdout=io.StringIO(), stderr=io.StringIO())
    assert batches == [3]  # one batch, rolled back, then each story on its own (not through write_new)
    assert not Correction.objects.filter(story_id="no-such-story").exists()
    assert sorted(Story.objects.filter(id__in=["960", "961", "962"]).values_list("id", flat=True)) == [
        "960",
        "961",
        "962",
    ]
