"""desk/1 import and export: the seed round-trips byte for byte, and so do our own stories."""

import io
import json

import pytest
from django.core.management import call_command

from stories import desk
from stories.models import Story
from tests.seed import SEED_JSON, SEED_MANIFESTS

pytestmark = pytest.mark.django_db


def export_all(tmp_path) -> list[dict]:
    out = tmp_path / "out.jsonl"
    call_command("export_stories", "--out", str(out))
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def import_doc(tmp_path, doc, name="story.json"):
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    call_command("import_stories", "--restore", str(path), stdout=io.StringIO())


def test_seed_round_trip_is_exact(tmp_path):
    call_command("import_manifests", str(SEED_MANIFESTS), stdout=io.StringIO())
    call_command("import_stories", "--restore", str(SEED_JSON), stdout=io.StringIO())
    [exported] = export_all(tmp_path)
    assert desk.dumps(exported) == SEED_JSON.read_text(encoding="utf-8")


def test_seed_round_trip_without_claims_file_uses_stubs(tmp_path, seed_doc):
    call_command("import_stories", "--restore", str(SEED_JSON), stdout=io.StringIO())
    [exported] = export_all(tmp_path)
    assert exported == seed_doc
    from manifests.models import Claim

    assert Claim.objects.stubs().count() == Claim.objects.count() > 0


def test_import_twice_changes_nothing(tmp_path, demo):
    version = Story.objects.get(id="81").version
    revisions = Story.objects.get(id="81").revisions.count()
    call_command("import_stories", "--restore", str(SEED_JSON), stdout=io.StringIO())
    call_command("import_stories", str(SEED_JSON), stdout=io.StringIO())
    story = Story.objects.get(id="81")
    assert story.version == version
    assert story.revisions.count() == revisions


def test_story_with_corrections_images_and_other_edition_round_trips(tmp_path, demo, story_doc):
    doc = story_doc(
        id="1792200000000000001",
        slug="second-story",
        edition="2026-10-17T05",
        beat="policy",
        published_at="2026-10-17T05:10:00Z",
        images=[
            {
                "url": "https://example.org/a.png",
                "alt": "A chart of pass rates",
                "caption": "Pass rates",
                "credit": "ProgAgent",
                "width": 800,
                "height": 600,
            }
        ],
        corrections=[
            {
                "corrected_at": "2026-10-17T08:00:00Z",
                "kind": "correction",
                "text": "An earlier version misstated the task count.",
            },
            {"corrected_at": "2026-10-18T09:30:00Z", "kind": "update", "text": "Added the authors' response."},
        ],
        related=[],
    )
    doc["labels"]["trust"] = "analysis"
    doc["sections"] = doc["sections"][:2]
    doc["key_facts"] = doc["key_facts"][:1]
    expected = desk.render_document(desk.validate(doc))
    import_doc(tmp_path, doc)
    exported = {d["id"]: d for d in export_all(tmp_path)}["1792200000000000001"]
    assert exported == expected
    assert exported["labels"]["trust_text"] == "Analysis · 2 sources"
    assert exported["url"] == "https://hangingcontext.com/stories/2026-10-17/second-story/"
    assert exported["corrections"][1]["kind"] == "update"
    # and the export imports back unchanged
    import_doc(tmp_path, exported, name="again.json")
    assert Story.objects.get(id="1792200000000000001").version == 1


def test_new_story_without_id_gets_a_string_id(tmp_path, demo, story_doc):
    doc = story_doc(slug="fresh-one", published_at=None)
    del doc["id"]
    import_doc(tmp_path, doc)
    story = Story.objects.get(slug="fresh-one")
    assert isinstance(story.id, str) and story.id.isdigit() and len(story.id) == 19
    assert story.status == Story.Status.DRAFT


def test_import_creates_newsroom_beat_and_edition(tmp_path, db, story_doc):
    doc = story_doc(newsroom="climate", newsroom_title="Climate Desk", beat="oceans", edition="2026-11-02T07")
    import_doc(tmp_path, doc)
    story = Story.objects.select_related("newsroom", "beat", "edition").get(id="81")
    assert (story.newsroom.slug, story.newsroom.title) == ("climate", "Climate Desk")
    assert story.beat.slug == "oceans"
    assert story.edition.starts_at.isoformat() == "2026-11-02T07:00:00+00:00"
