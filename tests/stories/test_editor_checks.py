"""Checks while writing: the live rubric of the unsaved text, in words, per paragraph; the
claim search; the findings in words on the publish page."""

import json

import pytest

from stories.desk.findings import in_words, rubric_in_words, where
from stories.desk.working import editable, stored_document
from stories.models import CheckResult, Story
from tests.factories import ClaimFactory, ManifestFactory
from tests.stories.helpers import client_for

pytestmark = pytest.mark.django_db

CHECKS = "/admin/stories/story/editor/checks/"
CLAIMS = "/admin/stories/story/editor/claims/"


@pytest.fixture
def as_editor(editor):
    return client_for(editor)


def fields_of(story) -> dict:
    return editable(stored_document(Story.objects.with_everything().get(pk=story.pk)))


def post(client, body, url=CHECKS):
    return client.post(url, json.dumps(body), content_type="application/json")


# --------------------------------------------------------------------------- in words


def test_a_finding_is_said_where_readers_would_look():
    assert where("sections[1].paragraphs[0]") == "Section 2, paragraph 1"
    assert where("sections[0].paragraphs[2].cites[0].claim_ids[1]") == "Section 1, paragraph 3"
    assert where("key_facts[0]") == "Key fact 1"
    assert where("source_count") == "The story"
    finding = {
        "severity": "error",
        "path": "sections[1].paragraphs[0]",
        "message": "900 is not stated by any cited claim",
    }
    words = in_words({**finding, "figure": "900"}, "claims_support")
    assert words["text"] == "Section 2, paragraph 1: 900 is not stated by any cited claim"
    assert words["anchor"] == "unit-s1-p0" and words["hint"]


def test_an_unknown_finding_kind_falls_back_to_its_message():
    words = in_words({"severity": "critical", "path": "x", "message": "a new kind", "odd": [1]}, "a_new_criterion")
    assert words["text"] == "The story: a new kind" and words["severity"] == "error" and words["hint"] == ""
    rubric = rubric_in_words({"criteria": [{"name": "new", "findings": [None, {"path": 5}]}, "junk"]})
    assert [f["words"] for f in rubric["findings"]] == ["a finding the desk cannot read", "a finding without a message"]


# --------------------------------------------------------------------------- live checks


def test_the_rubric_of_unsaved_text_names_the_unsupported_figure(draft, as_editor, django_assert_max_num_queries):
    fields = fields_of(draft)
    fields["sections"][1]["paragraphs"][0]["markdown"] += " It scored 900 points."
    post(as_editor, {"id": draft.pk, "story": fields})
    with django_assert_max_num_queries(25):
        response = post(as_editor, {"id": draft.pk, "story": fields})
    assert response.status_code == 200
    rubric = response.json()
    assert not rubric["passed"]
    texts = [f["text"] for f in rubric["by_owner"]["sections[1].paragraphs[0]"]]
    assert "Section 2, paragraph 1: 900 is not stated by any cited claim" in texts
    # The claims it was compared against come with it.
    assert all(c["text"] for c in rubric["compared"]["sections[1].paragraphs[0]"])
    # Nothing was written: not the story, not a rubric.
    assert Story.objects.get(pk=draft.pk).version == draft.version
    assert not CheckResult.objects.filter(story=draft, version=draft.version).exists()


def test_the_live_rubric_of_the_stored_text_is_the_publish_rubric(draft, as_editor):
    rubric = post(as_editor, {"id": draft.pk, "story": fields_of(draft)}).json()
    assert rubric["passed"] and rubric["findings"] == [f for f in rubric["findings"] if f["severity"] != "error"]


def test_live_checks_of_an_invalid_document_say_what_is_missing(draft, as_editor):
    fields = fields_of(draft)
    fields["headline"] = ""
    response = post(as_editor, {"id": draft.pk, "story": fields})
    assert response.status_code == 400 and response.json()["error"]["path"] == "headline"


def test_live_checks_of_hostile_text_stay_bounded(draft, as_editor):
    fields = fields_of(draft)
    fields["sections"][0]["paragraphs"][0]["markdown"] = "9" * 50_000 + " <script>" + "a. " * 10_000
    response = post(as_editor, {"id": draft.pk, "story": fields})
    assert response.status_code == 200
    assert len(response.content) < 500_000


# --------------------------------------------------------------------------- the claim search


@pytest.fixture
def claims(db):
    import datetime as dt

    old = ManifestFactory(title="Old lab report", published_date=dt.date(2026, 1, 1))
    new = ManifestFactory(title="New lab report", published_date=dt.date(2026, 11, 30))
    return (
        ClaimFactory(manifest=old, text="The model scored 61% on the benchmark", self_reported=True),
        ClaimFactory(manifest=new, text="The model scored 64% on the benchmark", self_reported=False),
    )


def test_search_finds_claims_by_text_title_publisher_and_id_recent_first(
    claims, as_editor, django_assert_max_num_queries
):
    old, new = claims
    with django_assert_max_num_queries(5):  # the session, the user, the permissions, the search
        results = as_editor.get(CLAIMS, {"q": "model scored"}).json()["results"]
    assert [r["claim_id"] for r in results] == [new.id, old.id]
    assert results[1]["self_reported"] is True and results[0]["published_date"] == "2026-11-30"
    assert [r["claim_id"] for r in as_editor.get(CLAIMS, {"q": "old lab"}).json()["results"]] == [old.id]
    assert [r["claim_id"] for r in as_editor.get(CLAIMS, {"q": new.id}).json()["results"]] == [new.id]
    publisher = old.manifest.publisher.name
    assert old.id in [r["claim_id"] for r in as_editor.get(CLAIMS, {"q": publisher}).json()["results"]]


def test_search_is_bounded_and_takes_hostile_queries_literally(claims, as_editor):
    for _ in range(30):
        ClaimFactory(manifest=claims[0].manifest, text="benchmark")
    assert len(as_editor.get(CLAIMS, {"q": "benchmark"}).json()["results"]) == 20
    for hostile in ("%z%", "z_z", "(a+)+$" * 500, "' OR 'x'='x"):
        response = as_editor.get(CLAIMS, {"q": hostile})
        assert response.status_code == 200 and response.json()["results"] == []
    assert as_editor.get(CLAIMS, {"q": ""}).json()["results"] == []


def test_search_is_staff_only(claims, client):
    assert client.get(CLAIMS, {"q": "model"}).status_code == 302


# --------------------------------------------------------------------------- the publish page


def test_publish_page_says_findings_in_words_and_links_each_to_its_paragraph(
    uncited_draft, as_editor, django_assert_max_num_queries
):
    as_editor.get(f"/admin/stories/story/{uncited_draft.pk}/publish/")
    with django_assert_max_num_queries(25):
        response = as_editor.get(f"/admin/stories/story/{uncited_draft.pk}/publish/")
    html = response.content.decode()
    assert f'href="/admin/stories/story/{uncited_draft.pk}/editor/#unit-s1-p0">Section 2, paragraph 1</a>' in html
    assert "sections[1].paragraphs[0]" not in html
    assert 'name="override_reason"' in html  # something failed: the override is offered


def test_publish_page_offers_no_override_when_the_checks_pass(draft, as_editor):
    html = as_editor.get(f"/admin/stories/story/{draft.pk}/publish/").content.decode()
    assert '<span class="desk-pass">pass</span>' in html
    assert 'name="override_reason"' not in html
