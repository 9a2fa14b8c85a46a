"""export_stories and loaddemo: the commands around desk/1."""

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from manifests.models import Claim, Manifest, Publisher
from newsroom.models import Beat, Edition, Newsroom, SiteProfile
from stories import actions
from stories.models import AuditEntry, Revision, Story
from tests.seed import SEED_JSON

pytestmark = pytest.mark.django_db


def export(*args) -> str:
    out = io.StringIO()
    call_command("export_stories", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def three_stories(demo, story_doc, tmp_path):
    """The seed plus two more, on later editions."""
    path = tmp_path / "more.jsonl"
    docs = [
        story_doc(id="1792200000000000002", slug="two", edition="2026-10-18T00", related=[]),
        story_doc(id="1792200000000000001", slug="one", edition="2026-10-17T00", related=[]),
    ]
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    call_command("import_stories", "--restore", str(path), stdout=io.StringIO())


# --------------------------------------------------------------------------- export_stories


def test_export_all_to_stdout_is_json_lines_in_edition_order(three_stories):
    lines = export().splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["81", "1792200000000000001", "1792200000000000002"]
    assert all(line.startswith('{"schema": "hangingcontext.desk/1"') for line in lines)


def test_export_the_seed_alone_gives_the_seed(three_stories, seed_doc):
    [line] = export("81").splitlines()
    assert json.loads(line) == seed_doc
    assert line == json.dumps(seed_doc, ensure_ascii=False)


def test_export_given_ids(three_stories):
    lines = export("1792200000000000002", "81").splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["81", "1792200000000000002"]


def test_export_unknown_id_is_an_error_naming_it(three_stories, tmp_path):
    out = tmp_path / "out.jsonl"
    with pytest.raises(CommandError, match=r"no story with id 404, 81x"):
        call_command("export_stories", "81", "404", "81x", "--out", str(out), stdout=io.StringIO())
    assert not out.exists()


def test_export_does_not_parse_ids_as_numbers(three_stories):
    with pytest.raises(CommandError, match="no story with id 081"):
        export("081")


def test_export_to_a_file(three_stories, tmp_path):
    out = tmp_path / "out.jsonl"
    stdout = io.StringIO()
    call_command("export_stories", "--out", str(out), stdout=stdout)
    assert stdout.getvalue() == ""
    text = out.read_text(encoding="utf-8")
    assert text == export()
    assert text.endswith("\n") and len(text.splitlines()) == 3


def test_export_of_an_empty_database_is_empty(db):
    assert export() == ""


def test_export_queries_do_not_grow_with_the_number_of_stories(three_stories, django_assert_max_num_queries):
    # with_everything(): one query per prefetched relation (publication record too), plus the profile.
    with django_assert_max_num_queries(13):
        export()


def test_export_file_reimports_unchanged(three_stories, tmp_path):
    out = tmp_path / "all.jsonl"
    call_command("export_stories", "--out", str(out), stdout=io.StringIO())
    versions = dict(Story.objects.values_list("id", "version"))
    stdout = io.StringIO()
    call_command("import_stories", "--restore", str(out), stdout=stdout)
    assert "0 created, 0 updated, 3 unchanged" in stdout.getvalue()
    assert dict(Story.objects.values_list("id", "version")) == versions


# --------------------------------------------------------------------------- loaddemo


def counts() -> dict:
    models = (Newsroom, Beat, Edition, SiteProfile, Publisher, Manifest, Claim, Story, Revision, AuditEntry)
    return {m.__name__: m.objects.count() for m in models}


def test_loaddemo_loads_the_seed_story_and_its_manifests(db, seed_doc):
    out = io.StringIO()
    call_command("loaddemo", stdout=out)
    assert "manifests 4 created" in out.getvalue() and "stories 1 created" in out.getvalue()
    story = Story.objects.get(id="81")
    assert story.status == Story.Status.PUBLISHED
    assert Manifest.objects.count() == 4 and Claim.objects.stubs().count() == 0
    assert export("81").strip() == json.dumps(seed_doc, ensure_ascii=False)


def test_loaddemo_twice_changes_nothing(db):
    call_command("loaddemo", stdout=io.StringIO())
    before = counts()
    updated = dict(Manifest.objects.values_list("id", "updated_at"))
    story = Story.objects.get(id="81")
    out = io.StringIO()
    call_command("loaddemo", stdout=out)
    assert "manifests 0 created, 0 updated, 4 unchanged" in out.getvalue()
    assert "stories 0 created, 0 updated, 1 unchanged" in out.getvalue()
    assert counts() == before
    assert dict(Manifest.objects.values_list("id", "updated_at")) == updated
    again = Story.objects.get(id="81")
    assert (again.version, again.updated_at) == (story.version, story.updated_at)


def test_loaddemo_after_importing_the_seed_changes_nothing(db):
    call_command("import_stories", "--restore", str(SEED_JSON), stdout=io.StringIO())
    call_command("loaddemo", stdout=io.StringIO())
    assert Story.objects.get(id="81").version == 1


# --------------------------------------------------------------------------- import cost


def import_queries(doc) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from stories import desk

    with CaptureQueriesContext(connection) as ctx:
        actions.import_story(desk.validate(doc), restore=True)
    return len(ctx.captured_queries)


def test_import_queries_do_not_grow_with_the_size_of_the_story(manifests_loaded, story_doc):
    small = story_doc(id="1792200000000000001", slug="small", related=[])
    small["sections"], small["key_facts"] = small["sections"][:1], small["key_facts"][:1]
    big = story_doc(id="1792200000000000002", slug="big", related=[])
    big["sections"] = big["sections"] * 3
    big["key_facts"] = big["key_facts"] * 2
    import_queries(story_doc(id="1792200000000000000", slug="warm-up", related=[]))  # newsroom, edition, profile
    assert import_queries(big) == import_queries(small)


def test_import_query_budget(manifests_loaded, story_doc):
    doc = story_doc(related=[])
    import_queries(story_doc(id="1792200000000000000", slug="warm-up", related=[]))
    # Measured: 37 new, 17 unchanged, 62 updated (the stored story is loaded with its
    # publication record, for its disclosure). The margins leave room for the few
    # queries of the fingerprint refresh at the end of save_document (the checks).
    assert import_queries(doc) <= 45  # new: checks, inserts (one per table), reload for the revision
    assert import_queries(doc) <= 17  # unchanged: compare with the stored story, write nothing
    doc["headline"] = "Changed"
    assert import_queries(doc) <= 70  # updated: compare, replace the parts, reload


def test_export_to_a_file_that_cannot_be_written(three_stories, tmp_path):
    with pytest.raises(CommandError, match=r"cannot write .*no-such-dir/out.jsonl"):
        call_command("export_stories", "--out", str(tmp_path / "no-such-dir" / "out.jsonl"), stdout=io.StringIO())


def test_export_replaces_an_existing_file_whole(three_stories, tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text("old content that is longer than nothing\n" * 1000, encoding="utf-8")
    call_command("export_stories", "81", "--out", str(out), stdout=io.StringIO())
    assert len(out.read_text(encoding="utf-8").splitlines()) == 1
    assert not list(tmp_path.glob("*.partial"))


def test_export_of_a_story_corrected_through_the_action_reimports_unchanged(demo, tmp_path):
    # record_correction stamps timezone.now() (microseconds); the export keeps seconds.
    from stories.actions import record_correction

    record_correction(story=demo, text="Fixed a figure.", kind="correction")
    story = Story.objects.get(id="81")
    out = tmp_path / "corrected.jsonl"
    call_command("export_stories", "81", "--out", str(out), stdout=io.StringIO())
    stdout = io.StringIO()
    call_command("import_stories", "--restore", str(out), stdout=stdout)
    assert "0 created, 0 updated, 1 unchanged" in stdout.getvalue()
    assert Story.objects.get(id="81").version == story.version


def test_import_reads_jsonl_with_a_byte_order_mark_and_crlf_line_ends(db, story_doc, tmp_path):
    docs = [story_doc(id=f"179220000000000000{n}", slug=f"crlf-{n}", related=[]) for n in (1, 2)]
    path = tmp_path / "windows.JSONL"
    path.write_bytes(b"\xef\xbb\xbf" + b"".join(json.dumps(d).encode() + b"\r\n" for d in docs))
    stdout = io.StringIO()
    call_command("import_stories", "--restore", str(path), stdout=stdout)
    assert "stories: 2 created" in stdout.getvalue()
    assert [(d["id"], d["slug"]) for d in map(json.loads, export().splitlines())] == [
        (d["id"], d["slug"]) for d in docs
    ]


def test_importing_a_published_version_of_a_scheduled_story_clears_its_slot(db, story_doc, tmp_path):
    import datetime as dt

    from django.utils import timezone

    from stories.actions import schedule_story

    draft = story_doc(id="1792200000000000001", slug="later", published_at=None, related=[])
    (tmp_path / "draft.json").write_text(json.dumps(draft), encoding="utf-8")
    call_command("import_stories", "--restore", str(tmp_path / "draft.json"), stdout=io.StringIO())
    schedule_story(story=Story.objects.get(id=draft["id"]), when=timezone.now() + dt.timedelta(days=1))
    (tmp_path / "published.json").write_text(
        json.dumps(dict(draft, published_at="2026-10-16T09:00:00Z")), encoding="utf-8"
    )
    call_command("import_stories", "--restore", str(tmp_path / "published.json"), stdout=io.StringIO())
    story = Story.objects.get(id=draft["id"])
    assert (story.status, story.scheduled_for) == (Story.Status.PUBLISHED, None)
