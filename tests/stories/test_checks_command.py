"""``check_story`` (exit 0/1/2), ``check_and_record``, ``refresh_fingerprints`` and the
fixed number of queries a check costs."""

import io
import json

import pytest
from django.core.management import call_command

from stories import actions, desk
from stories.checks import check_and_record, run_checks
from stories.models import CheckResult, Story, StoryFingerprint
from tests.seed import SEED_JSON
from tests.stories.helpers import para

pytestmark = pytest.mark.django_db


def check_story(path, *args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(SystemExit) as exit_info:
        call_command("check_story", str(path), *args, stdout=out, stderr=err)
    return exit_info.value.code, out.getvalue(), err.getvalue()


def write(tmp_path, doc_or_text) -> str:
    path = tmp_path / "story.json"
    path.write_text(doc_or_text if isinstance(doc_or_text, str) else json.dumps(doc_or_text), encoding="utf-8")
    return str(path)


def test_check_story_passes_the_seed_with_exit_0(manifests_loaded):
    code, out, _ = check_story(SEED_JSON, "--json")
    assert code == 0
    rubric = json.loads(out)
    assert rubric["passed"] is True and len(rubric["criteria"]) == 7


def test_check_story_exits_1_with_the_rubric_when_a_check_fails(manifests_loaded, seed_doc, tmp_path):
    p = para(seed_doc, 2, 1)
    p["markdown"] = p["markdown"].replace("30.7%", "37.0%")
    code, out, _ = check_story(write(tmp_path, seed_doc), "--json")
    assert code == 1
    rubric = json.loads(out)
    failed = [c for c in rubric["criteria"] if not c["passed"]]
    assert [c["name"] for c in failed] == ["claims_support"]
    assert failed[0]["findings"][0]["path"] == "sections[2].paragraphs[1]"


def test_check_story_exits_1_for_unresolved_references(db, seed_doc, tmp_path):
    code, out, _ = check_story(write(tmp_path, seed_doc), "--json")  # no manifests stored
    assert code == 1 and json.loads(out)["passed"] is False


def test_check_story_saves_nothing(manifests_loaded, seed_doc, tmp_path):
    seed_doc["id"] = "1792200000000000009"
    check_story(write(tmp_path, seed_doc), "--json")
    assert not Story.objects.exists() and not CheckResult.objects.exists()


@pytest.mark.parametrize(
    "mutate, path",
    [
        (lambda d: "{not json", "$"),
        (lambda d: d.pop("headline") and d, "headline"),
        (lambda d: d.update(sections={}) or d, "sections"),
        (lambda d: d.update(id=81) or d, "id"),
        (
            lambda d: d["key_facts"][0]["cites"][0].update(manifest_id=1792067182956183080) or d,
            "key_facts[0].cites[0].manifest_id",
        ),
        (lambda d: d.update(edition="2026-10-16") or d, "edition"),
        (lambda d: d.update(edition="2026-02-30T00") or d, "edition"),
        (lambda d: d.update(published_at="2026-02-30T00:39:10Z") or d, "published_at"),
    ],
    ids=[
        "not-json",
        "missing-field",
        "wrong-type",
        "id-number",
        "manifest-id-number",
        "bad-edition",
        "edition-no-such-day",
        "bad-date",
    ],
)
def test_check_story_exits_2_naming_the_json_path(manifests_loaded, seed_doc, tmp_path, mutate, path):
    code, out, err = check_story(write(tmp_path, mutate(seed_doc)), "--json")
    assert code == 2
    assert json.loads(out)["error"]["path"] == path
    assert f": {path}:" in err


def test_check_story_exits_2_for_a_missing_file(db, tmp_path):
    code, _, err = check_story(tmp_path / "nope.json")
    assert code == 2 and "cannot read" in err


def test_check_story_prints_a_table_for_people(manifests_loaded, seed_doc, tmp_path):
    p = para(seed_doc, 3, 1)
    p["markdown"] = p["markdown"].replace("Qwen3-8B", "Llama3-8B")
    code, out, _ = check_story(write(tmp_path, seed_doc))
    assert code == 1
    rows = {
        line.split()[0]: line.split()[1]
        for line in out.splitlines()
        if line.split() and line.split()[0] in ("manifests_exist", "claims_support", "not_a_repeat")
    }
    assert rows == {"manifests_exist": "pass", "claims_support": "FAIL", "not_a_repeat": "pass"}
    assert "overall               FAILED" in out
    assert "sections[3].paragraphs[1]: Llama3-8B is not named" in out


def test_check_and_record_saves_the_rubric_with_the_version(demo):
    result = check_and_record(demo)
    assert isinstance(result, CheckResult) and result.pk
    assert (result.story_id, result.version) == ("81", demo.version)
    saved = CheckResult.objects.get(pk=result.pk)
    assert saved.passed is True and saved.score == 1.0
    assert saved.rubric["criteria"][0]["name"] == "manifests_exist"
    assert saved.rubric["passed"] is True and len(saved.rubric["criteria"]) == 7


def test_check_and_record_records_failures_too(demo):
    from manifests.models import Manifest

    Manifest.objects.filter(id="1792043738156041460").update(published_date="2026-09-01")
    result = check_and_record(demo)
    assert result.passed is False and result.score < 1.0
    failed = [c["name"] for c in result.rubric["criteria"] if not c["passed"]]
    assert failed == ["manifests_recent"]


def test_run_checks_costs_three_queries_whatever_the_story_size(demo, seed_doc, story_doc, django_assert_num_queries):
    # a recent published story in the newsroom, so the candidate query returns a row
    other = story_doc(
        id="1792200000000000003", slug="other", edition="2026-10-15T03", published_at="2026-10-15T03:00:00Z"
    )
    other["sections"], other["key_facts"] = other["sections"][:1], other["key_facts"][:1]
    actions.import_story(desk.validate(other), restore=True)
    small = desk.validate(seed_doc)
    big_doc = json.loads(json.dumps(seed_doc))
    big_doc["sections"] = big_doc["sections"] * 10
    big_doc["key_facts"] = big_doc["key_facts"] * 5
    big = desk.validate(big_doc)
    for doc in (small, big):
        with django_assert_num_queries(3):  # manifests (+ publishers), claims, candidate fingerprints
            assert run_checks(doc)["criteria"][5]["passed"] is True
    actions.import_story(
        desk.validate(
            dict(
                big_doc,
                id="1792200000000000004",
                slug="copy",
                edition="2026-10-15T04",
                published_at="2026-10-15T04:00:00Z",
            )
        ),
        restore=True,
    )
    with django_assert_num_queries(4):  # and the headlines of the repeats, once the check has failed
        assert run_checks(big)["passed"] is False


def test_criteria_computed_before_leave_only_the_candidates_to_read(demo, seed_doc, django_assert_num_queries):
    """The bulk import takes every criterion but ``not_a_repeat`` from its checks' workers:
    the story's cited manifests and claims are then not read at all."""
    from stories.checks.runner import AHEAD_CRITERIA

    doc = desk.validate(seed_doc)
    full = run_checks(doc, exclude_story_id=demo.pk)
    computed = {c["name"]: c for c in full["criteria"] if c["name"] in {a.name for a in AHEAD_CRITERIA}}
    with django_assert_num_queries(1):  # the candidate fingerprints
        assert run_checks(doc, exclude_story_id=demo.pk, computed=computed) == full


def test_refresh_fingerprints_rebuilds_missing_ones(demo):
    StoryFingerprint.objects.all().delete()
    call_command("refresh_fingerprints", stdout=io.StringIO())
    fp = StoryFingerprint.objects.get(story_id="81")
    doc = desk.validate(json.loads(SEED_JSON.read_text()))
    from stories.fingerprints import fingerprint_of

    assert (fp.minhash, fp.claim_ids) == fingerprint_of(doc)
