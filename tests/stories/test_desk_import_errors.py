"""import_stories on bad input: the message names the file, the line (JSONL) and the JSON
path; the command exits non-zero; nothing from the bad file is written. And importing the
same files twice changes nothing."""

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from stories.models import Story
from tests.seed import SEED_JSON
from tests.stories.documents import CORRECTIONS, assert_rejected, db_state, run_import, variant, write_json, write_jsonl

pytestmark = pytest.mark.django_db

SEED_M1 = "1792067182956183080"  # the seed's first cited manifest
SEED_C1 = "1792067413462310158"  # a claim of SEED_M1
SEED_M2 = "1792043738156041460"


# --------------------------------------------------------------------------- one .json file


def test_not_json(tmp_path, demo):
    before = db_state()
    assert_rejected(write_json(tmp_path, '{"schema": "hangingcontext.desk/1", '), "$: not JSON", before=before)


@pytest.mark.parametrize("text", ["", "[1, 2]", '"a story"', "null"])
def test_json_that_is_not_an_object(tmp_path, db, text):
    before = db_state()
    assert_rejected(write_json(tmp_path, text), "$:", before=before)


def test_an_integer_past_pythons_digit_limit_is_not_json(tmp_path, db):
    before = db_state()
    assert_rejected(write_json(tmp_path, '{"id": ' + "9" * 5000 + "}"), "$: not JSON", before=before)


@pytest.mark.parametrize(
    "drop, path",
    [
        ("headline", "headline: missing required field 'headline'"),
        ("sections", "sections: missing"),
        ("edition", "edition: missing"),
        ("slug", "slug: missing"),
        ("newsroom", "newsroom: missing"),
        ("schema", "schema: missing"),
    ],
)
def test_missing_required_field(tmp_path, demo, story_doc, drop, path):
    doc = variant(story_doc, 1)
    del doc[drop]
    before = db_state()
    assert_rejected(write_json(tmp_path, doc), path, before=before)


def test_missing_required_field_deep_inside(tmp_path, demo, story_doc):
    doc = variant(story_doc, 1)
    del doc["sections"][2]["paragraphs"][1]["markdown"]
    before = db_state()
    assert_rejected(
        write_json(tmp_path, doc), "sections[2].paragraphs[1].markdown: missing required field", before=before
    )


@pytest.mark.parametrize(
    "mutate, path",
    [
        (lambda d: d.update(sections="text"), "sections: must be a list, not a string"),
        (lambda d: d.update(headline=["a"]), "headline: must be a string, not a list"),
        (lambda d: d["key_facts"][0].update(text=3), "key_facts[0].text: must be a string, not a number"),
        (lambda d: d["key_facts"][1].update(self_reported="yes"), "key_facts[1].self_reported: must be true or false"),
        (
            lambda d: d["sections"][0]["paragraphs"][0].update(cites={}),
            "sections[0].paragraphs[0].cites: must be a list",
        ),
        (
            lambda d: d.update(images=[{"url": "https://e.org/a.png", "alt": "x", "width": "800"}]),
            "images[0].width: must be a whole number",
        ),
        (lambda d: d.update(decision_card={"useful_for": "all"}), "decision_card.useful_for: must be a list"),
        (lambda d: d.update(decision_card=[]), "decision_card: must be an object, not a list"),
        (lambda d: d.update(writer=""), "writer: must be an object, not a string"),
        (lambda d: d.update(labels="reported"), "labels: must be an object, not a string"),
        (lambda d: d.update(published_at=1760572800), "published_at: must be a string, not a number"),
        (lambda d: d.update(source_count="4"), "source_count: must be a number"),
    ],
)
def test_wrong_type(tmp_path, demo, story_doc, mutate, path):
    doc = variant(story_doc, 1)
    mutate(doc)
    before = db_state()
    assert_rejected(write_json(tmp_path, doc), path, before=before)


def test_story_id_given_as_a_number(tmp_path, db, story_doc):
    before = db_state()
    stderr = assert_rejected(
        write_json(tmp_path, '{"schema": "hangingcontext.desk/1", "id": 81}'),
        "id: must be a string id, not a number",
        before=before,
    )
    assert "quote it" in stderr


def test_manifest_id_given_as_a_19_digit_number(tmp_path, db, story_doc):
    doc = json.dumps(variant(story_doc, 1)).replace(f'"manifest_id": "{SEED_M2}"', f'"manifest_id": {SEED_M2}', 1)
    before = db_state()
    assert_rejected(
        write_json(tmp_path, doc), "key_facts[2].cites[0].manifest_id: must be a string id, not a number", before=before
    )


def test_claim_id_given_as_a_number_in_a_paragraph(tmp_path, db, story_doc):
    doc = variant(story_doc, 1)
    doc["sections"][1]["paragraphs"][0]["cites"][0]["claim_ids"][1] = 1792043738335363331
    before = db_state()
    assert_rejected(
        write_json(tmp_path, doc), "sections[1].paragraphs[0].cites[0].claim_ids[1]: must be a string id", before=before
    )


@pytest.mark.parametrize("where", ["cited_manifest_ids", "run_these_manifests"])
def test_ids_as_numbers_in_derived_fields_are_rejected_too(tmp_path, db, story_doc, where):
    doc = variant(story_doc, 1)
    if where == "cited_manifest_ids":
        doc["cited_manifest_ids"][0] = int(doc["cited_manifest_ids"][0])
    else:
        doc["run_these_manifests"]["manifest_ids"][0] = int(doc["run_these_manifests"]["manifest_ids"][0])
    before = db_state()
    assert_rejected(
        write_json(tmp_path, doc),
        f"{where}" + ("[0]" if where == "cited_manifest_ids" else ".manifest_ids[0]"),
        before=before,
    )


@pytest.mark.parametrize("bad", ["81\n", "8 1", "", "x" * 65, "81/../82"])
def test_story_id_that_is_not_an_id(tmp_path, db, story_doc, bad):
    before = db_state()
    assert_rejected(write_json(tmp_path, variant(story_doc, 1, id=bad)), "id:", before=before)


@pytest.mark.parametrize(
    "edition", ["2026-13-01T00", "2026-10-16", "2026-10-16T24", "2026-1-16T005", "2026-10-16T05\n", "２０２６-10-16T05"]
)
def test_bad_edition(tmp_path, db, story_doc, edition):
    before = db_state()
    assert_rejected(
        write_json(tmp_path, variant(story_doc, 1, edition=edition)), "edition:", "is not an edition", before=before
    )


def test_edition_on_a_day_that_does_not_exist(tmp_path, db, story_doc):
    before = db_state()
    assert_rejected(write_json(tmp_path, variant(story_doc, 1, edition="2026-02-30T10")), "edition:", before=before)


def test_published_at_on_a_day_that_does_not_exist(tmp_path, db, story_doc):
    before = db_state()
    assert_rejected(
        write_json(tmp_path, variant(story_doc, 1, published_at="2026-02-30T10:00:00Z")),
        "published_at:",
        "not a real time",
        before=before,
    )


@pytest.mark.parametrize("value", ["2026-10-16 00:00:00Z", "2026-10-16T00:00:00", "yesterday"])
def test_published_at_that_is_not_an_iso_time_with_a_zone(tmp_path, db, story_doc, value):
    before = db_state()
    assert_rejected(write_json(tmp_path, variant(story_doc, 1, published_at=value)), "published_at:", before=before)


@pytest.mark.parametrize(
    "field, value, path",
    [
        ("slug", "Not A Slug", "slug:"),
        ("slug", "trailing-newline\n", "slug:"),
        ("newsroom", "n" * 101, "newsroom:"),
        ("audience", "AI Developer", "audience:"),
        ("schema", "hangingcontext.desk/2", "schema:"),
        ("type", "brief", "type:"),
    ],
)
def test_bad_values(tmp_path, db, story_doc, field, value, path):
    before = db_state()
    assert_rejected(write_json(tmp_path, variant(story_doc, 1, **{field: value})), path, before=before)


def test_image_without_alt_text(tmp_path, db, story_doc):
    doc = variant(story_doc, 1, images=[{"url": "https://example.org/a.png", "alt": "  "}])
    before = db_state()
    assert_rejected(write_json(tmp_path, doc), "images[0].alt: must not be empty", before=before)


def test_cites_a_manifest_neither_in_the_database_nor_in_the_manifests_list(tmp_path, db, story_doc):
    doc = variant(story_doc, 1)
    doc["manifests"] = [m for m in doc["manifests"] if m["manifest_id"] != SEED_M2]
    before = db_state()
    assert_rejected(
        write_json(tmp_path, doc),
        "key_facts[2].cites[0].manifest_id: manifest 1792043738156041460 is neither in the database nor in the story's manifests list",
        before=before,
    )


def test_a_manifest_missing_from_the_list_is_fine_when_the_database_has_it(tmp_path, manifests_loaded, story_doc):
    doc = variant(story_doc, 1)
    doc["manifests"] = []
    run_import(write_json(tmp_path, doc))
    assert Story.objects.filter(id=doc["id"]).exists()


def test_cites_a_claim_the_database_holds_under_another_manifest(tmp_path, manifests_loaded, story_doc):
    doc = variant(story_doc, 1)
    doc["sections"][1]["paragraphs"][1]["cites"][0]["claim_ids"].append(SEED_C1)  # a claim of SEED_M1 under SEED_M2
    assert doc["sections"][1]["paragraphs"][1]["cites"][0]["manifest_id"] == SEED_M2
    before = db_state()
    assert_rejected(
        write_json(tmp_path, doc),
        f"sections[1].paragraphs[1].cites[0].claim_ids[3]: claim {SEED_C1} belongs to manifest {SEED_M1}, not {SEED_M2}",
        before=before,
    )


def test_cites_one_claim_under_two_manifests_within_the_story(tmp_path, db, story_doc):
    doc = variant(story_doc, 1)
    doc["sections"][1]["paragraphs"][1]["cites"][0]["claim_ids"].append(SEED_C1)
    before = db_state()
    assert_rejected(
        write_json(tmp_path, doc),
        f"sections[1].paragraphs[1].cites[0].claim_ids[3]: claim {SEED_C1} is cited under manifest {SEED_M1} elsewhere",
        before=before,
    )


def test_duplicate_claim_ids_in_one_cite(tmp_path, db, story_doc):
    doc = variant(story_doc, 1)
    claims = doc["key_facts"][0]["cites"][0]["claim_ids"]
    claims.append(claims[0])
    before = db_state()
    assert_rejected(write_json(tmp_path, doc), "key_facts[0].cites[0].claim_ids[3]:", "listed twice", before=before)


def test_corrections_not_oldest_first(tmp_path, db, story_doc):
    doc = variant(
        story_doc,
        1,
        corrections=[
            {"corrected_at": "2026-10-18T09:00:00Z", "kind": "update", "text": "Later."},
            {"corrected_at": "2026-10-17T09:00:00Z", "kind": "correction", "text": "Earlier."},
        ],
    )
    before = db_state()
    assert_rejected(write_json(tmp_path, doc), "corrections[1].corrected_at:", "oldest first", before=before)


def test_correction_of_an_unknown_kind(tmp_path, db, story_doc):
    doc = variant(
        story_doc, 1, corrections=[{"corrected_at": "2026-10-18T09:00:00Z", "kind": "retraction", "text": "No."}]
    )
    before = db_state()
    assert_rejected(
        write_json(tmp_path, doc),
        "corrections[0].kind: must be one of correction, clarification, update",
        before=before,
    )


@pytest.mark.parametrize(
    "change",
    [
        lambda cs: cs[:1],  # drops the last
        lambda cs: cs[1:],  # drops the first
        lambda cs: [{**cs[0], "text": "Rewritten."}, cs[1]],
        lambda cs: [{**cs[0], "kind": "update"}, cs[1]],
        lambda cs: [{**cs[0], "corrected_at": "2026-10-17T08:00:01Z"}, cs[1]],
        lambda cs: [],
    ],
)
def test_reimport_that_drops_or_changes_a_recorded_correction(tmp_path, db, story_doc, change):
    doc = variant(story_doc, 1, corrections=CORRECTIONS)
    run_import(write_json(tmp_path, doc, "first.json"))
    doc["corrections"] = change(CORRECTIONS)
    doc["headline"] = "A new headline, so the story would otherwise be updated"
    before = db_state()
    assert_rejected(write_json(tmp_path, doc, "second.json"), "corrections[", "append-only", before=before)


def test_reimport_may_append_a_correction(tmp_path, db, story_doc):
    doc = variant(story_doc, 1, corrections=CORRECTIONS[:1])
    run_import(write_json(tmp_path, doc, "first.json"))
    doc["corrections"] = CORRECTIONS
    run_import(write_json(tmp_path, doc, "second.json"))
    story = Story.objects.get(id=doc["id"])
    assert [c.text for c in story.corrections.all()] == [c["text"] for c in CORRECTIONS]
    assert story.version == 2


def test_slug_clash_on_the_same_edition_date(tmp_path, demo, story_doc):
    doc = variant(story_doc, 1, slug="agent-training-stack", edition="2026-10-16T07")  # the seed's slug, same day
    before = db_state()
    assert_rejected(write_json(tmp_path, doc), "slug:", "already used on 2026-10-16 by story 81", before=before)


def test_same_slug_on_another_edition_date_is_fine(tmp_path, demo, story_doc):
    doc = variant(story_doc, 1, slug="agent-training-stack", edition="2026-10-17T00")
    run_import(write_json(tmp_path, doc))
    assert Story.objects.filter(slug="agent-training-stack").count() == 2


def test_unreadable_file(tmp_path, db):
    with pytest.raises(CommandError) as info:
        run_import(tmp_path / "missing.json")
    assert "missing.json: cannot read" in info.value.stderr


# --------------------------------------------------------------------------- JSONL


def test_jsonl_third_line_bad_after_two_good_writes_nothing(tmp_path, demo, story_doc):
    good = [variant(story_doc, 1), variant(story_doc, 2)]
    bad = variant(story_doc, 3)
    bad["sections"][1]["heading"] = None
    path = write_jsonl(tmp_path, good + [bad])
    before = db_state()
    assert_rejected(path, f"{path}: line 3: sections[1].heading: must be a string, not null", before=before)
    assert not Story.objects.filter(id__in=[d["id"] for d in good]).exists()


def test_jsonl_line_that_is_not_json_is_named(tmp_path, demo, story_doc):
    path = write_jsonl(tmp_path, [variant(story_doc, 1), "{not json"])
    before = db_state()
    assert_rejected(path, "line 2: $: not JSON", before=before)


def test_jsonl_number_id_on_a_line(tmp_path, db, story_doc):
    second = json.dumps(variant(story_doc, 2)).replace('"id": "1792200000000000002"', '"id": 1792200000000000002')
    path = write_jsonl(tmp_path, [variant(story_doc, 1), second])
    before = db_state()
    assert_rejected(path, "line 2: id: must be a string id, not a number", before=before)


def test_jsonl_slug_clash_between_two_lines(tmp_path, db, story_doc):
    path = write_jsonl(tmp_path, [variant(story_doc, 1, slug="same"), variant(story_doc, 2, slug="same")])
    before = db_state()
    assert_rejected(path, "line 2: slug:", "already used on 2026-10-16 by story 1792200000000000001", before=before)


def test_jsonl_blank_lines_are_skipped_and_line_numbers_count_them(tmp_path, db, story_doc):
    path = tmp_path / "gaps.jsonl"
    path.write_text(
        "\n" + json.dumps(variant(story_doc, 1)) + "\n\n" + json.dumps({"schema": 1}) + "\n", encoding="utf-8"
    )
    before = db_state()
    assert_rejected(str(path), "line 4: schema:", before=before)


# --------------------------------------------------------------------------- several files, twice


def test_a_bad_file_does_not_prevent_the_good_ones(tmp_path, db, story_doc):
    good_json = write_json(tmp_path, variant(story_doc, 1), "good.json")
    bad = write_json(tmp_path, "not json", "bad.json")
    good_jsonl = write_jsonl(tmp_path, [variant(story_doc, 2), variant(story_doc, 3)], "good.jsonl")
    with pytest.raises(CommandError) as info:
        run_import(good_json, bad, good_jsonl)
    assert "1 file(s) rejected" in str(info.value) and bad in str(info.value)
    assert f"{bad}: $: not JSON" in info.value.stderr
    assert good_json not in info.value.stderr and good_jsonl not in info.value.stderr
    assert "stories: 3 created, 0 updated, 0 unchanged" in info.value.stdout
    assert sorted(Story.objects.values_list("id", flat=True)) == [
        "1792200000000000001",
        "1792200000000000002",
        "1792200000000000003",
    ]


def test_importing_the_same_files_twice_changes_nothing(tmp_path, manifests_loaded, story_doc):
    files = [
        str(SEED_JSON),
        write_json(tmp_path, variant(story_doc, 1, corrections=CORRECTIONS), "one.json"),
        write_jsonl(tmp_path, [variant(story_doc, 2), variant(story_doc, 3, published_at=None)], "more.jsonl"),
    ]
    out, _ = run_import(*files)
    assert "stories: 4 created, 0 updated, 0 unchanged" in out
    before = db_state()
    out, _ = run_import(*files)
    assert "stories: 0 created, 0 updated, 4 unchanged" in out
    assert db_state() == before
    assert before["stories.Revision"] == before["stories.AuditEntry"] == 4
    assert set(before["versions"].values()) == {1}


def test_an_id_less_story_imported_twice_is_the_same_story(tmp_path, db, story_doc):
    doc = variant(story_doc, 1)
    del doc["id"]
    path = write_json(tmp_path, doc)
    run_import(path)
    before = db_state()
    out, _ = run_import(path)
    assert "0 created, 0 updated, 1 unchanged" in out
    assert db_state() == before


def test_reimporting_a_changed_story_updates_it_and_keeps_a_revision_per_version(tmp_path, db, story_doc):
    doc = variant(story_doc, 1)
    run_import(write_json(tmp_path, doc, "v1.json"))
    doc["headline"] = "A better headline"
    out, _ = run_import(write_json(tmp_path, doc, "v2.json"))
    assert "0 created, 1 updated, 0 unchanged" in out
    story = Story.objects.get(id=doc["id"])
    assert story.version == 2
    assert [(r.version, r.data["headline"]) for r in story.revisions.order_by("version")] == [
        (1, story_doc()["headline"]),
        (2, "A better headline"),
    ]


# --------------------------------------------------------------------------- progress on a terminal


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_is_a_bar_by_bytes_read_on_a_terminal_and_ends_its_line(tmp_path, db, story_doc, monkeypatch):
    import re

    from stories.management.commands import import_stories

    monkeypatch.setattr(import_stories, "BATCH_SIZE", 2)
    monkeypatch.setattr(import_stories, "PROGRESS_INTERVAL", 0)  # redraw after every line
    path = write_jsonl(tmp_path, [variant(story_doc, n) for n in range(1, 6)])
    err = FakeTerminal()
    call_command("import_stories", "--restore", path, stdout=io.StringIO(), stderr=err)
    shown = err.getvalue()
    assert shown.endswith("\n") and shown.count("\n") == 1
    draws = shown[:-1].split("\r")[1:]
    bar = re.compile(
        re.escape(path)
        + r": \[(#*)(-*)\] +(\d+)% (\d+) stor(?:y|ies), \d+/s, ETA (\d\d:\d\d|\d+:\d\d:\d\d|--:--)\x1b\[K"
    )
    matches = [bar.fullmatch(d) for d in draws]
    assert all(matches), draws
    assert [int(m.group(4)) for m in matches] == [1, 2, 3, 4, 5]
    shares = [int(m.group(3)) for m in matches]
    assert shares == sorted(shares) and shares[-1] == 100 and 15 <= shares[0] <= 25  # bytes read
    assert all(len(m.group(1)) + len(m.group(2)) == 30 for m in matches) and len(matches[-1].group(1)) == 30


def test_no_progress_when_standard_error_is_not_a_terminal(tmp_path, db, story_doc):
    _, err = run_import(write_jsonl(tmp_path, [variant(story_doc, 1)]))
    assert err == ""


def test_a_row_the_database_refuses_is_reported_as_bad_input_and_rolled_back(tmp_path, db, story_doc, monkeypatch):
    from django.db import IntegrityError

    from stories.actions import rows

    def refuse(*args, **kwargs):
        raise IntegrityError("CHECK constraint failed: image_alt_required")

    monkeypatch.setattr(rows, "write_parts", refuse)
    path = write_jsonl(tmp_path, [variant(story_doc, 1), variant(story_doc, 2)])
    before = db_state()
    assert_rejected(
        path, "line 1: $: the database refused this story: CHECK constraint failed: image_alt_required", before=before
    )


def test_progress_for_a_single_story_file(tmp_path, db, story_doc):
    path = write_json(tmp_path, variant(story_doc, 1))
    err = FakeTerminal()
    call_command("import_stories", "--restore", path, stdout=io.StringIO(), stderr=err)
    shown = err.getvalue()
    assert shown.startswith(f"\r{path}: [{'#' * 30}] 100% 1 story, ") and shown.endswith("/s, ETA 00:00\x1b[K\n")
    assert shown.count("\r") == 1
