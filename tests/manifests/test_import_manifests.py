"""import_manifests: manifests/1 files upserted by id; bad input names the file and the JSON
path, exits non-zero and writes nothing from that file."""

import copy
import io
import json

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError

from manifests.models import Claim, Manifest, Publisher
from stories.models import Story
from tests.seed import SEED_JSON, SEED_MANIFESTS

pytestmark = pytest.mark.django_db

M1, M2 = "0012345678901234567", "1792067182956183099"


def db_state() -> dict:
    state = {
        m._meta.label: m._base_manager.count()
        for m in apps.get_models()
        if m._meta.app_label in ("newsroom", "manifests", "stories")
    }
    state["claims"] = sorted(
        Claim.objects.values_list("id", "manifest_id", "text", "self_reported", "has_text", "position")
    )
    state["manifests"] = sorted(
        Manifest.objects.values_list("id", "title", "publisher__name", "source_url", "published_date")
    )
    return state


def document(**changes) -> dict:
    doc = {
        "schema": "hangingcontext.manifests/1",
        "manifests": [
            {
                "manifest_id": M1,
                "title": "First source",
                "source_name": "first-blog",
                "source_url": "https://example.org/first",
                "published_date": "2026-10-15",
                "claims": [
                    {"claim_id": "0012345678901234568", "text": "The first claim.", "self_reported": True},
                    {"claim_id": "0012345678901234569", "text": "The second claim.", "self_reported": False},
                ],
            },
            {
                "manifest_id": M2,
                "title": "Second source",
                "source_name": "second-paper",
                "source_url": "https://example.org/second",
                "published_date": "2026-10-14",
                "claims": [{"claim_id": "1792067413462310999", "text": "A claim of the second."}],
            },
        ],
    }
    doc.update(changes)
    return doc


def write(tmp_path, doc, name="manifests.json") -> str:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return str(path)


def run(*paths) -> str:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("import_manifests", *map(str, paths), stdout=out, stderr=err)
    except CommandError as exc:
        exc.stdout, exc.stderr = out.getvalue(), err.getvalue()
        raise
    return out.getvalue()


def assert_rejected(path: str, *fragments: str, before: dict) -> None:
    with pytest.raises(CommandError) as info:
        run(path)
    for fragment in (path, *fragments, "nothing imported from this file"):
        assert fragment in info.value.stderr, info.value.stderr
    assert db_state() == before


def test_import_creates_manifests_publishers_and_claims(tmp_path, db):
    out = run(write(tmp_path, document()))
    assert "manifests: 2 created, 0 updated, 0 unchanged" in out
    m = Manifest.objects.get(id=M1)
    assert (m.title, m.publisher.name, m.published_date.isoformat()) == ("First source", "first-blog", "2026-10-15")
    assert list(m.claims.values_list("id", "self_reported", "position")) == [
        ("0012345678901234568", True, 0),
        ("0012345678901234569", False, 1),
    ]
    assert Claim.objects.get(id="1792067413462310999").self_reported is False  # the default


def test_ids_keep_their_leading_zeros_and_stay_strings(tmp_path, db):
    run(write(tmp_path, document()))
    ids = list(Manifest.objects.values_list("id", flat=True)) + list(Claim.objects.values_list("id", flat=True))
    assert all(isinstance(i, str) for i in ids)
    assert M1 in ids and "0012345678901234568" in ids


def test_import_twice_changes_nothing(tmp_path, db):
    path = write(tmp_path, document())
    run(path)
    before = db_state()
    assert "manifests: 0 created, 0 updated, 2 unchanged" in run(path)
    assert db_state() == before


def test_reimport_updates_by_id(tmp_path, db):
    run(write(tmp_path, document()))
    doc = document()
    doc["manifests"][0]["title"] = "First source, retitled"
    doc["manifests"][1]["claims"][0]["text"] = "A claim of the second, reworded."
    assert "manifests: 0 created, 2 updated, 0 unchanged" in run(write(tmp_path, doc, "v2.json"))
    assert Manifest.objects.get(id=M1).title == "First source, retitled"
    assert Claim.objects.get(id="1792067413462310999").text == "A claim of the second, reworded."


def test_import_fills_in_stub_claims_left_by_a_story(tmp_path, db, seed_doc):
    call_command("import_stories", "--restore", str(SEED_JSON), stdout=io.StringIO())
    stubs = Claim.objects.stubs().count()
    assert stubs > 0
    run(str(SEED_MANIFESTS))
    assert Claim.objects.stubs().count() == 0
    assert Claim.objects.get(id="1792067413462310158").text.startswith("The most common failure mode")
    assert Story.objects.get(id="81").version == 1


# --------------------------------------------------------------------------- bad input


def test_not_json(tmp_path, db):
    before = db_state()
    assert_rejected(write(tmp_path, '{"schema": '), "$: not JSON", before=before)


@pytest.mark.parametrize(
    "mutate, path",
    [
        (lambda d: d.update(schema="hangingcontext.manifests/2"), "schema: must be 'hangingcontext.manifests/1'"),
        (lambda d: d.pop("manifests"), "manifests: missing required field"),
        (lambda d: d["manifests"][1].pop("title"), "manifests[1].title: missing required field 'title'"),
        (lambda d: d["manifests"][0]["claims"][1].pop("text"), "manifests[0].claims[1].text: missing required field"),
        (lambda d: d["manifests"][0].update(claims={}), "manifests[0].claims: must be a list, not an object"),
        (lambda d: d["manifests"][1].update(title=7), "manifests[1].title: must be a string, not a number"),
        (
            lambda d: d["manifests"][0]["claims"][0].update(self_reported="true"),
            "manifests[0].claims[0].self_reported: must be true or false",
        ),
        (
            lambda d: d["manifests"][1].update(source_url="ftp://example.org/x"),
            "manifests[1].source_url: 'ftp://example.org/x' is not an http(s) URL",
        ),
        (
            lambda d: d["manifests"][1].update(published_date="2026-02-30"),
            "manifests[1].published_date: '2026-02-30' is not a real date",
        ),
        (
            lambda d: d["manifests"][1].update(published_date="15/10/2026"),
            "manifests[1].published_date: '15/10/2026' is not a date",
        ),
        (
            lambda d: d["manifests"][1].update(manifest_id="18 42"),
            "manifests[1].manifest_id: '18 42' is not a valid id",
        ),
    ],
)
def test_bad_document(tmp_path, db, mutate, path):
    doc = document()
    mutate(doc)
    before = db_state()
    assert_rejected(write(tmp_path, doc), path, before=before)


def test_manifest_id_given_as_a_19_digit_number(tmp_path, db):
    text = json.dumps(document()).replace(f'"manifest_id": "{M2}"', f'"manifest_id": {M2}')
    before = db_state()
    assert_rejected(
        write(tmp_path, text),
        "manifests[1].manifest_id: must be a string id, not a number (ids are strings: quote it)",
        before=before,
    )


def test_claim_id_given_as_a_number(tmp_path, db):
    text = json.dumps(document()).replace('"claim_id": "1792067413462310999"', '"claim_id": 1792067413462310999')
    before = db_state()
    assert_rejected(
        write(tmp_path, text), "manifests[1].claims[0].claim_id: must be a string id, not a number", before=before
    )


def test_duplicate_claim_id_within_a_manifest(tmp_path, db):
    doc = document()
    doc["manifests"][0]["claims"].append(copy.deepcopy(doc["manifests"][0]["claims"][0]))
    before = db_state()
    assert_rejected(
        write(tmp_path, doc), "manifests[0].claims[2].claim_id: claim 0012345678901234568 appears twice", before=before
    )


def test_duplicate_claim_id_across_manifests(tmp_path, db):
    doc = document()
    doc["manifests"][1]["claims"].append(copy.deepcopy(doc["manifests"][0]["claims"][1]))
    before = db_state()
    assert_rejected(
        write(tmp_path, doc),
        f"manifests[1].claims[1].claim_id: claim 0012345678901234569 also appears under manifest {M1}",
        before=before,
    )


def test_duplicate_manifest_id(tmp_path, db):
    doc = document()
    doc["manifests"][1]["manifest_id"] = M1
    before = db_state()
    assert_rejected(write(tmp_path, doc), f"manifests[1].manifest_id: manifest {M1} appears twice", before=before)


def test_claim_the_database_holds_under_another_manifest(tmp_path, db):
    run(write(tmp_path, document(), "first.json"))
    other = {
        "schema": "hangingcontext.manifests/1",
        "manifests": [
            {
                "manifest_id": "77",
                "title": "New",
                "source_name": "new-source",
                "source_url": "https://example.org/77",
                "published_date": "2026-10-16",
                "claims": [{"claim_id": "1792067413462310999", "text": "Stolen claim."}],
            },
        ],
    }
    before = db_state()
    assert_rejected(
        write(tmp_path, other, "second.json"),
        f"manifests[0].claims[0].claim_id: claim 1792067413462310999 belongs to manifest {M2}, not 77",
        before=before,
    )


def test_second_manifest_bad_after_a_good_first_writes_nothing(tmp_path, db):
    doc = document()
    doc["manifests"][1]["claims"][0]["text"] = ""
    before = db_state()
    assert_rejected(write(tmp_path, doc), "manifests[1].claims[0].text: must not be empty", before=before)
    assert not Publisher.objects.exists()


def test_a_bad_file_does_not_prevent_the_good_ones(tmp_path, db):
    bad = write(tmp_path, "[]", "bad.json")
    good = write(tmp_path, document(), "good.json")
    with pytest.raises(CommandError) as info:
        run(bad, good, str(tmp_path / "absent.json"))
    assert "2 file(s) rejected" in str(info.value)
    assert f"{bad}: $: must be an object, not a list" in info.value.stderr
    assert "absent.json: cannot read" in info.value.stderr
    assert "manifests: 2 created, 0 updated, 0 unchanged" in info.value.stdout
    assert Manifest.objects.count() == 2
