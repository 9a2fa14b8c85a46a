"""ninjs 3.1: every ninjs answer of the API validates against IPTC's official 3.1 JSON
Schema (kept in tests/syndication/schemas, see its README), for stories of every shape."""

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from newsroom.models import SiteProfile
from stories import actions, desk
from stories.models import Story
from syndication.ninjs import to_ninjs

pytestmark = pytest.mark.django_db

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "ninjs-schema_3.1.json").read_text())
VALIDATOR = Draft202012Validator(SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER)
CV = "http://cv.iptc.org/newscodes/digitalsourcetype/"


def valid(ninjs: dict) -> dict:
    errors = sorted(VALIDATOR.iter_errors(ninjs), key=lambda e: list(e.path))
    assert not errors, "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:5])
    return ninjs


def get_ninjs(api, story_id) -> dict:
    response = api.get(f"/api/v1/stories/{story_id}/ninjs")
    assert response.status_code == 200
    return valid(response.json())


def test_the_schema_rejects_what_it_should():
    with pytest.raises(AssertionError):
        valid({"uri": "https://example.org/x", "notAField": 1})
    with pytest.raises(AssertionError):
        valid({"headlines": []})  # uri is required


def test_the_demo_story(api, demo, django_assert_max_num_queries):
    with django_assert_max_num_queries(18):
        ninjs = get_ninjs(api, "81")
    assert ninjs["standard"] == {
        "name": "ninjs",
        "version": "3.1",
        "schema": "https://www.iptc.org/std/ninjs/ninjs-schema_3.1.json",
    }
    cited = [m["manifest_id"] for m in desk.export_story(Story.objects.loaded("81"))["manifests"]]
    assert [s["literal"] for s in ninjs["infoSources"]] == cited
    roles = {t["role"] for t in ninjs["trustIndicators"]}
    assert {
        "https://schema.org/publishingPrinciples",
        "https://schema.org/correctionsPolicy",
        "https://schema.org/verificationFactCheckingPolicy",
    } <= roles
    policy = next(t for t in ninjs["trustIndicators"] if t["role"].endswith("verificationFactCheckingPolicy"))
    assert policy["href"] == "https://hangingcontext.com/policies/verification/"
    assert ninjs["digitalSourceType"] == {
        "uri": CV + "trainedAlgorithmicMedia",
        "name": "Written by an agent using a trained model",
        "literal": "agent",
    }
    assert "edNote" not in ninjs


def test_a_corrected_story_carries_its_corrections_as_an_ed_note(api, demo, editor):
    actions.record_correction(story=demo, text="The figure was 31.85, not 31.58.", kind="correction", user=editor)
    ninjs = get_ninjs(api, "81")
    assert ninjs["version"] == str(Story.objects.get(pk="81").version)
    assert "Correction of " in ninjs["edNote"] and "The figure was 31.85, not 31.58." in ninjs["edNote"]


def test_a_story_written_in_the_admin_is_a_person_s(api, demo, editor):
    Story.objects.filter(pk="81").update(writer_agent="", created_by_partner="", created_by=editor)
    assert get_ninjs(api, "81")["digitalSourceType"]["uri"] == CV + "digitalCreation"


def test_every_stated_policy_is_a_trust_indicator(api, demo):
    profile = SiteProfile.load()
    profile.masthead, profile.ownership_funding = "Editor: A. Person", "Owned by its staff."
    profile.save()
    roles = {t["role"] for t in get_ninjs(api, "81")["trustIndicators"]}
    assert {"https://schema.org/masthead", "https://schema.org/ownershipFundingInfo"} <= roles


def test_hostile_text_stays_valid_ninjs(api, demo, editor):
    hostile = '<script>alert(1)</script>\n1. javascript:alert(1) "quoted" \u2028'
    actions.record_correction(story=demo, text=hostile, kind="correction", user=editor)
    ninjs = get_ninjs(api, "81")
    assert "<script>alert(1)</script>\n1. javascript:alert(1)" in ninjs["edNote"]  # as text, in JSON


def test_a_bare_story_is_valid_ninjs(seed_doc):
    doc = {**seed_doc, "manifests": [], "images": [], "corrections": [], "dek": "", "published_at": None}
    valid(to_ninjs(doc))
