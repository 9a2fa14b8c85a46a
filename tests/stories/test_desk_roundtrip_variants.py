"""Round trips beyond the seed: stories of our own in one .jsonl file (corrections, images,
several editions and newsrooms, a draft, unicode, no key facts, a claim cited under two
paragraphs, ids with leading zeros) import and export back byte for byte, with or without
their manifests file. The derived fields of the input are computed by
``tests.stories.documents.complete``, independently of ``stories.desk``, from docs/desk-1.md."""

import io
import json

import pytest
from django.core.management import call_command
from django.db import connection

from manifests.models import Claim, Manifest
from stories import desk
from stories.models import Revision, Story
from tests.stories.documents import SITE, cite, complete, manifests_document

pytestmark = pytest.mark.django_db


def stored(**fields) -> dict:
    base = {
        "audience": "general",
        "angle": "",
        "dek": "",
        "beat": None,
        "trust": "reported",
        "key_facts": [],
        "images": [],
        "unresolved": [],
        "decision_card": {"useful_for": [], "not_for": [], "compare_against": []},
        "writer": {"agent": "", "run_id": ""},
        "corrections": [],
        "related": [],
    }
    base.update(fields)
    return base


def our_stories(seed: dict) -> list[dict]:
    """Four stories of our own plus the seed, in export order (edition, then id)."""
    ice = stored(
        id="1792200000000000101",
        slug="sea-ice-low",
        edition="2026-10-17T05",
        newsroom="climate",
        beat="oceans",
        audience="policy_maker",
        angle="What the record low means for shipping.",
        trust="analysis",
        headline="Arctic sea ice hits a record low",
        dek="Two sources, one trend.",
        published_at="2026-10-17T05:40:12Z",
        key_facts=[
            {
                "text": "Extent fell below the 2012 minimum.",
                "cites": [cite("1792100000000000001", "1792100000000000011", "1792100000000000012")],
            },
            {
                "text": "The institute says its own buoys saw it first.",
                "cites": [cite("1792100000000000002", "1792100000000000021")],
            },
        ],
        images=[
            {
                "url": "https://example.org/img/ice.png",
                "alt": "A map of the Arctic with the ice edge drawn in white",
                "caption": "Ice edge on 16 October",
                "credit": "Polar Data",
                "width": 1600,
                "height": 900,
            },
            {
                "url": "https://example.org/img/chart.svg",
                "alt": "A line chart of yearly minima",
                "caption": "",
                "credit": "",
                "width": None,
                "height": None,
            },
        ],
        sections=[
            {
                "heading": "The numbers",
                "paragraphs": [
                    {
                        "markdown": "Extent fell to **3.1 million km²**, below the 2012 minimum.",
                        "cites": [cite("1792100000000000001", "1792100000000000011")],
                    },
                    {
                        "markdown": "The institute's buoys [logged it](https://example.org/buoys) first.",
                        "cites": [
                            cite("1792100000000000002", "1792100000000000021", "1792100000000000022"),
                            cite("1792100000000000001", "1792100000000000013"),
                        ],
                    },
                ],
            },
            {"heading": "What is next", "paragraphs": [{"markdown": "Shipping lanes open earlier.", "cites": []}]},
        ],
        unresolved=["Whether the trend holds next year."],
        decision_card={
            "useful_for": ["shipping planners"],
            "not_for": ["weather forecasts"],
            "compare_against": ["2012 minimum"],
        },
        writer={"agent": "muse", "run_id": "2026-10-17T05"},
        corrections=[
            {
                "corrected_at": "2026-10-17T08:00:00Z",
                "kind": "correction",
                "text": "An earlier version gave the extent in miles.",
            },
            {
                "corrected_at": "2026-10-17T08:00:00Z",
                "kind": "clarification",
                "text": "The minimum is the September one.",
            },
            {"corrected_at": "2026-10-18T09:30:05Z", "kind": "update", "text": "Added the institute's response."},
        ],
        related=[
            {
                "url": f"{SITE}/stories/2026-10-16/agent-training-stack/",
                "headline": "Agent training stack",
                "slug": "agent-training-stack",
            }
        ],
    )
    draft = stored(
        id="1792200000000000102",
        slug="open-models-rtl",
        edition="2026-10-18T23",
        newsroom="artificial-intelligence",
        beat="research",
        audience="ai_developer",
        angle="Ünïcödé all the way: 🚀 עברית العربية 中文",
        headline="Modèles ouverts 🚀: ما الجديد؟ — מה חדש",
        dek="Emoji 👩🏽‍💻, RTL \u202bمرحبا\u202c and a zero-width joiner.",
        published_at=None,
        sections=[
            {
                "heading": "العربية أولاً",
                "paragraphs": [
                    {
                        "markdown": "النماذج المفتوحة تتقدم. The same claim backs this paragraph…",
                        "cites": [cite("1792100000000000003", "1792100000000000031")],
                    },
                ],
            },
            {
                "heading": "עברית 🇮🇱 and 中文",
                "paragraphs": [
                    {
                        "markdown": '…and this one, under another section. 模型 "quoted" \\ backslash.',
                        "cites": [cite("1792100000000000003", "1792100000000000032", "1792100000000000031")],
                    },
                ],
            },
        ],
        unresolved=["¿Quién paga? 🤔"],
        writer={"agent": "muse", "run_id": "run-ü-1"},
    )
    repeat_slug = stored(
        id="1792200000000000103",
        slug="sea-ice-low",
        edition="2026-10-19T12",
        newsroom="climate",
        beat="oceans",
        headline="Sea ice, two days on",
        published_at="2026-10-19T12:00:00Z",
        key_facts=[
            {"text": "Only the institute's own claim.", "cites": [cite("1792100000000000002", "1792100000000000022")]}
        ],
        sections=[
            {
                "heading": "Follow-up",
                "paragraphs": [
                    {"markdown": "Still low.", "cites": [cite("1792100000000000002", "1792100000000000021")]}
                ],
            }
        ],
        corrections=[{"corrected_at": "2026-10-20T00:00:00Z", "kind": "update", "text": "New figures."}],
        related=[
            {
                "url": f"{SITE}/stories/2026-10-17/sea-ice-low/",
                "headline": "Arctic sea ice hits a record low",
                "slug": "sea-ice-low",
            },
            {"url": "https://example.org/elsewhere", "headline": "Elsewhere", "slug": ""},
        ],
    )
    zeros = stored(
        id="0012345678901234567",
        slug="zeros",
        edition="2027-01-01T00",
        newsroom="climate",
        beat=None,
        headline="Leading zeros stay",
        published_at="2027-01-01T00:00:00Z",
        key_facts=[{"text": "Zeros are kept.", "cites": [cite("0000000000000000042", "0000000000000000043")]}],
        sections=[
            {
                "heading": "One",
                "paragraphs": [
                    {"markdown": "One source only.", "cites": [cite("0000000000000000042", "0000000000000000043")]}
                ],
            }
        ],
    )
    return [seed] + [complete(s, seed) for s in (ice, draft, repeat_slug, zeros)]


def jsonl(docs) -> str:
    return "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs)


@pytest.fixture
def stories_file(tmp_path, seed_doc):
    path = tmp_path / "ours.jsonl"
    path.write_text(jsonl(our_stories(seed_doc)), encoding="utf-8")
    return path


def export_text(*ids) -> str:
    out = io.StringIO()
    call_command("export_stories", *ids, stdout=out)
    return out.getvalue()


def test_the_variants_cover_what_they_claim(seed_doc):
    docs = our_stories(seed_doc)
    assert {d["edition"][:10] for d in docs} >= {"2026-10-16", "2026-10-17", "2026-10-18", "2026-10-19", "2027-01-01"}
    assert {d["newsroom"] for d in docs} == {"climate", "artificial-intelligence"}
    assert any(d["published_at"] is None for d in docs)
    assert any(not d["key_facts"] for d in docs)
    assert any(d["images"] for d in docs) and any(d["corrections"] for d in docs)
    assert any(d["source_count"] == 1 and d["labels"]["trust_text"].endswith("· 1 source") for d in docs)
    draft = docs[2]
    cited = [c for s in draft["sections"] for p in s["paragraphs"] for ci in p["cites"] for c in ci["claim_ids"]]
    assert cited.count("1792100000000000031") == 2  # one claim under two paragraphs


def test_own_stories_round_trip_byte_for_byte_without_their_claims(stories_file, seed_doc):
    out = io.StringIO()
    call_command("import_stories", "--restore", str(stories_file), stdout=out)
    assert "stories: 5 created, 0 updated, 0 unchanged" in out.getvalue()
    assert export_text() == stories_file.read_text(encoding="utf-8")
    assert Claim.objects.stubs().count() == Claim.objects.count()


def test_own_stories_round_trip_with_their_manifests_file(stories_file, tmp_path):
    from tests.seed import SEED_MANIFESTS

    (tmp_path / "ours.manifests.json").write_text(json.dumps(manifests_document()), encoding="utf-8")
    call_command("import_manifests", str(SEED_MANIFESTS), str(tmp_path / "ours.manifests.json"), stdout=io.StringIO())
    call_command("import_stories", "--restore", str(stories_file), stdout=io.StringIO())
    assert Claim.objects.stubs().count() == 0
    exported = export_text()
    assert exported == stories_file.read_text(encoding="utf-8")
    # Parsed equality, and the same key order at every level.
    for line_in, line_out in zip(stories_file.read_text(encoding="utf-8").splitlines(), exported.splitlines()):
        assert json.loads(line_out) == json.loads(line_in)


def test_manifests_imported_after_the_stories_change_no_export(stories_file, tmp_path):
    call_command("import_stories", "--restore", str(stories_file), stdout=io.StringIO())
    (tmp_path / "m.json").write_text(json.dumps(manifests_document()), encoding="utf-8")
    call_command("import_manifests", str(tmp_path / "m.json"), stdout=io.StringIO())
    assert export_text() == stories_file.read_text(encoding="utf-8")


def test_reimporting_the_export_changes_nothing(stories_file, tmp_path):
    call_command("import_stories", "--restore", str(stories_file), stdout=io.StringIO())
    first = export_text()
    again = tmp_path / "again.jsonl"
    again.write_text(first, encoding="utf-8")
    out = io.StringIO()
    call_command("import_stories", "--restore", str(again), stdout=out)
    assert "0 created, 0 updated, 5 unchanged" in out.getvalue()
    assert export_text() == first


def test_revisions_hold_the_exported_document(stories_file):
    call_command("import_stories", "--restore", str(stories_file), stdout=io.StringIO())
    for line in stories_file.read_text(encoding="utf-8").splitlines():
        doc = json.loads(line)
        revision = Revision.objects.get(story_id=doc["id"], version=1)
        assert json.dumps(revision.data, ensure_ascii=False) == line


def test_export_story_matches_the_file_line(stories_file):
    call_command("import_stories", "--restore", str(stories_file), stdout=io.StringIO())
    lines = stories_file.read_text(encoding="utf-8").splitlines()
    story = Story.objects.with_everything().get(id="1792200000000000102")
    assert desk.dumps(desk.export_story(story), pretty=False) == lines[2]


# --------------------------------------------------------------------------- ids stay strings


def test_ids_with_leading_zeros_stay_strings_end_to_end(stories_file):
    call_command("import_stories", "--restore", str(stories_file), stdout=io.StringIO())
    story = Story.objects.get(id="0012345678901234567")
    assert story.id == "0012345678901234567"
    assert Manifest.objects.get(id="0000000000000000042").id == "0000000000000000042"
    assert Claim.objects.get(id="0000000000000000043").manifest_id == "0000000000000000042"
    for model in (Story, Manifest, Claim):
        assert all(type(pk) is str for pk in model.objects.values_list("pk", flat=True))
    with connection.cursor() as cursor:
        cursor.execute("SELECT id FROM stories_story WHERE id = %s", ["0012345678901234567"])
        assert cursor.fetchall() == [("0012345678901234567",)]
        cursor.execute("SELECT COUNT(*) FROM stories_story WHERE id = %s", ["12345678901234567"])
        assert cursor.fetchone()[0] == 0
    line = export_text("0012345678901234567")
    assert '"id": "0012345678901234567"' in line
    assert '"manifest_id": "0000000000000000042"' in line and '"claim_ids": ["0000000000000000043"]' in line
    assert '"cited_manifest_ids": ["0000000000000000042"]' in line
    assert "by-id/0000000000000000042" in line
    parsed = json.loads(line)
    assert parsed["id"] == "0012345678901234567" and parsed["manifests"][0]["manifest_id"] == "0000000000000000042"
    revision = Revision.objects.get(story_id="0012345678901234567")
    assert revision.data["id"] == "0012345678901234567"
    assert revision.data["key_facts"][0]["cites"][0]["claim_ids"] == ["0000000000000000043"]


def test_19_digit_ids_survive_without_float_rounding(stories_file):
    call_command("import_stories", "--restore", str(stories_file), stdout=io.StringIO())
    # 1792100000000000013 is not representable as a float: a float round trip would change it.
    assert float("1792100000000000013") == float("1792100000000000012")
    assert Claim.objects.filter(id="1792100000000000013").exists()
    assert "1792100000000000013" in export_text("1792200000000000101")
