"""An import file's runs of new stories are written ahead (``actions.Importer``): each run
is written, and its checks begin, before the run before it is published. The publications
are still made in file order, with the rubrics of stories checked one at a time, a repeat of
a story of the run just before included; an error in a later run leaves nothing written and
no worker running."""

import contextlib
import io

import pytest
from django.core.management import CommandError, call_command

from stories.actions import imports
from stories.checks import ahead, runner
from stories.models import AuditEntry, Story
from tests.stories.documents import db_state, variant, write_jsonl
from tests.stories.test_gate_imports_batch import faulty_docs, rubrics

pytestmark = pytest.mark.django_db


@pytest.fixture
def events(monkeypatch):
    """The runs written (ids) and published (ids), in the order it happened."""
    seen = []
    write_new, publish_written = imports.write_new, imports.publish_written

    def writing(run, *args, **kwargs):
        seen.append(("written", [doc["id"] for _, doc in run]))
        return write_new(run, *args, **kwargs)

    def publishing(stories, **kwargs):
        seen.append(("published", [story.pk for story, _ in stories]))
        return publish_written(stories, **kwargs)

    monkeypatch.setattr(imports, "write_new", writing)
    monkeypatch.setattr(imports, "publish_written", publishing)
    return seen


def test_each_run_is_written_before_the_one_before_it_is_published(tmp_path, demo, story_doc, events, monkeypatch):
    monkeypatch.setattr(imports, "RUN_SIZE", 4)
    docs = faulty_docs(story_doc)  # 8 documents: two runs; the last repeats the first
    written_ahead = rubrics(tmp_path, docs)
    ids = [d["id"] for d in docs]
    assert events == [
        ("written", ids[:4]),
        ("written", ids[4:]),
        ("published", ids[:4]),
        ("published", ids[4:]),
    ]
    # Published in file order: the publish audit rows follow the file.
    published = AuditEntry.objects.filter(action="publish", story_id__in=ids).order_by("id")
    assert list(published.values_list("story_id", flat=True)) == written_ahead["published"] == ["910", "915"]

    # The same rubrics as one run, and as each story checked with its own queries.
    Story.objects.exclude(pk=demo.pk).delete()
    monkeypatch.setattr(imports, "RUN_SIZE", 250)
    assert rubrics(tmp_path, docs) == written_ahead
    Story.objects.exclude(pk=demo.pk).delete()
    monkeypatch.setattr(imports, "RUN_SIZE", 4)
    monkeypatch.setattr(imports, "batch_reads", lambda reads: contextlib.nullcontext(reads))
    assert rubrics(tmp_path, docs) == written_ahead
    # 921 repeats 910, of the run before, which was published after 921's run was written.
    repeat = next(c for c in written_ahead["921"]["criteria"] if c["name"] == "not_a_repeat")
    assert not repeat["passed"] and [f["story_id"] for f in repeat["findings"]] == ["910"]


def test_a_document_that_is_not_new_waits_for_the_run_before_it(tmp_path, demo, story_doc, events, monkeypatch):
    """An update goes through ``import_story`` after the new stories before it are published."""
    monkeypatch.setattr(imports, "RUN_SIZE", 2)
    first = [variant(story_doc, n, newsroom=f"desk-{n}") for n in (1, 2, 3)]
    call_command("import_stories", write_jsonl(tmp_path, first[:1]), stdout=io.StringIO(), stderr=io.StringIO())
    events.clear()
    again = {**first[0], "published_at": None}  # takes the published story down
    call_command(
        "import_stories", write_jsonl(tmp_path, [first[1], first[2], again]), stdout=io.StringIO(), stderr=io.StringIO()
    )
    assert events == [("written", [first[1]["id"], first[2]["id"]]), ("published", [first[1]["id"], first[2]["id"]])]
    assert Story.objects.get(pk=first[0]["id"]).status == Story.Status.DRAFT
    actions = AuditEntry.objects.filter(story_id__in=[d["id"] for d in first]).order_by("id")
    assert list(actions.values_list("story_id", "action"))[-3:] == [
        (first[1]["id"], "publish"),
        (first[2]["id"], "publish"),
        (first[0]["id"], "unpublish"),
    ]


@pytest.mark.slow
def test_checks_of_runs_written_ahead_come_from_their_own_workers(tmp_path, demo, story_doc, settings, monkeypatch):
    settings.IMPORT_CHECK_WORKERS, settings.IMPORT_CHECK_AHEAD_MIN = 1, 1
    monkeypatch.setattr(imports, "RUN_SIZE", 4)
    taken, take = [], ahead.Ahead.take
    monkeypatch.setattr(
        ahead.Ahead, "take", lambda self, sid, rev: taken.append((self, sid, r := take(self, sid, rev))) or r
    )
    docs = faulty_docs(story_doc)
    written_ahead = rubrics(tmp_path, docs)
    assert [sid for _, sid, _ in taken] == [d["id"] for d in docs]
    assert all(r is not None for _, _, r in taken)  # every story's criteria came from the workers
    first, second = taken[0][0], taken[-1][0]
    assert first is not second and {a for a, _, _ in taken[:4]} == {first}  # each run's own
    Story.objects.exclude(pk=demo.pk).delete()
    settings.IMPORT_CHECK_WORKERS = 0
    assert rubrics(tmp_path, docs) == written_ahead


@pytest.mark.slow
def test_an_error_in_a_later_run_writes_nothing_and_stops_every_worker(
    tmp_path, demo, story_doc, settings, monkeypatch
):
    settings.IMPORT_CHECK_WORKERS, settings.IMPORT_CHECK_AHEAD_MIN = 1, 1
    monkeypatch.setattr(imports, "RUN_SIZE", 2)
    from stories.management.commands import import_stories

    monkeypatch.setattr(import_stories, "BATCH_SIZE", 4)  # lines 1-4 written (two runs) before line 5 is read
    forked, stopped = [], []
    real = runner.checked_ahead

    @contextlib.contextmanager
    def counted(*args):
        with real(*args) as started:
            forked.append(started)
            try:
                yield started
            finally:
                stopped.append(started)

    monkeypatch.setattr(runner, "checked_ahead", counted)
    docs = [variant(story_doc, n, newsroom=f"desk-{n}") for n in range(1, 7)]
    docs[4]["key_facts"][0]["text"] = ""
    before, err = db_state(), io.StringIO()
    with pytest.raises(CommandError, match="rejected"):
        call_command("import_stories", write_jsonl(tmp_path, docs), stdout=io.StringIO(), stderr=err)
    assert "line 5: key_facts[0].text: must not be empty" in err.getvalue()
    assert db_state() == before
    assert len(forked) == 2 and all(a is not None for a in forked)  # both runs' workers began
    assert stopped == forked


def test_a_run_of_drafts_publishes_the_run_before_it(tmp_path, demo, story_doc, events, monkeypatch):
    """A run with nothing to publish leaves no run waiting: the one before is published
    once it is written."""
    monkeypatch.setattr(imports, "RUN_SIZE", 2)
    docs = [variant(story_doc, n, newsroom=f"desk-{n}") for n in range(1, 7)]
    for doc in docs[2:4]:
        doc["published_at"] = None
    call_command("import_stories", write_jsonl(tmp_path, docs), stdout=io.StringIO(), stderr=io.StringIO())
    ids = [d["id"] for d in docs]
    assert events == [
        ("written", ids[:2]),
        ("written", ids[2:4]),
        ("published", ids[:2]),
        ("written", ids[4:]),
        ("published", ids[4:]),
    ]
    assert set(Story.objects.filter(status=Story.Status.PUBLISHED, id__in=ids).values_list("id", flat=True)) == {
        *ids[:2],
        *ids[4:],
    }


def test_an_importer_left_without_finishing_publishes_the_run_waiting(tmp_path, demo, story_doc, events):
    from django.db import transaction

    from stories import desk

    docs = [variant(story_doc, n, newsroom=f"desk-{n}") for n in (1, 2)]
    counts = {"created": 0, "updated": 0, "unchanged": 0}
    with transaction.atomic(), imports.Importer(counts) as importer:
        importer.add([(line, desk.validate(doc)) for line, doc in enumerate(docs, 1)])
        assert importer.waiting is not None
    assert events[-1] == ("published", [d["id"] for d in docs])
    assert Story.objects.filter(status=Story.Status.PUBLISHED, id__in=[d["id"] for d in docs]).count() == 2
