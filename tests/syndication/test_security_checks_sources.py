"""The checks endpoint with a read key reads only public sources: those a published story
cites, the ones the key can read through the manifests endpoint. A draft's sources read as
unknown, so the rubric quotes none of their claims and tells nothing of what they state."""

import copy

import pytest

from tests.syndication.helpers import client_for

pytestmark = pytest.mark.django_db

CITE = [{"manifest_id": "m1", "claim_ids": ["c1"]}]
PRIVATE_CLAIM = "The merger with Globex closes on 14 March at 41 dollars a share."


def add_manifest(api, text: str, manifest_id: str = "m1") -> None:
    doc = {
        "schema": "hangingcontext.manifests/1",
        "manifests": [
            {
                "manifest_id": manifest_id,
                "title": "T",
                "source_name": "S",
                "source_url": "https://s.example/",
                "published_date": "2026-10-15",
                "claims": [{"claim_id": "c1", "text": text, "self_reported": False}],
            }
        ],
    }
    assert api.post("/api/v1/manifests/", doc, format="json").status_code == 201


def probe(story_doc, text: str, manifest_id: str = "m1") -> dict:
    doc = story_doc(id=None, slug="probe", key_facts=[])
    doc["sections"] = [
        {
            "heading": "h",
            "paragraphs": [{"markdown": text, "cites": [{"manifest_id": manifest_id, "claim_ids": ["c1"]}]}],
        }
    ]
    return doc


def without_ids(rubric: dict, *ids: str) -> str:
    text = str(rubric)
    for i in ids:
        text = text.replace(i, "<id>")
    return text


def test_a_read_key_learns_nothing_of_a_private_claim(manifests_loaded, story_doc, writer_key, read_key):
    add_manifest(client_for(writer_key[1]), PRIVATE_CLAIM)
    api = client_for(read_key[1])
    assert api.get("/api/v1/manifests/m1/").status_code == 404
    response = api.post("/api/v1/checks/", probe(story_doc, "The merger with Globex does not close."), format="json")
    assert response.status_code == 200
    body = response.content.decode()
    assert "41 dollars" not in body
    assert "Globex closes" not in body


def test_a_private_source_reads_exactly_as_an_unknown_one(manifests_loaded, story_doc, writer_key, read_key):
    add_manifest(client_for(writer_key[1]), PRIVATE_CLAIM)
    api = client_for(read_key[1])
    text = "The merger with Globex closes on 14 March at 41 dollars a share."
    private = api.post("/api/v1/checks/", probe(story_doc, text, "m1"), format="json").json()
    unknown = api.post("/api/v1/checks/", probe(story_doc, text, "m2"), format="json").json()
    assert private["passed"] is False
    assert without_ids(private, "m1") == without_ids(unknown, "m2")


def test_a_writer_key_checks_against_the_sources_it_submitted(manifests_loaded, story_doc, writer_key):
    api = client_for(writer_key[1])
    add_manifest(api, PRIVATE_CLAIM)
    response = api.post("/api/v1/checks/", probe(story_doc, "The merger with Globex does not close."), format="json")
    rubric = response.json()
    support = next(c for c in rubric["criteria"] if c["name"] == "claims_support")
    assert any(f.get("kind") == "negation" for f in support["findings"])


def test_a_read_key_checks_against_published_stories_sources(demo, story_doc, read_key):
    doc = story_doc(id=None, slug="another-story")
    rubric = client_for(read_key[1]).post("/api/v1/checks/", doc, format="json").json()
    exists = next(c for c in rubric["criteria"] if c["name"] == "manifests_exist")
    assert exists["passed"] is True
    support = next(c for c in rubric["criteria"] if c["name"] == "claims_support")
    assert support["score"] > 0.9


def test_a_read_key_does_not_see_a_public_manifests_private_neighbour(demo, story_doc, writer_key, read_key):
    """A story citing a public manifest and a private one: only the public one is read."""
    add_manifest(client_for(writer_key[1]), PRIVATE_CLAIM)
    doc = story_doc(id=None, slug="mixed")
    doc = copy.deepcopy(doc)
    doc["key_facts"][0]["cites"].append({"manifest_id": "m1", "claim_ids": ["c1"]})
    doc["key_facts"][0]["text"] += " The merger with Globex does not close."
    body = client_for(read_key[1]).post("/api/v1/checks/", doc, format="json").content.decode()
    assert "41 dollars" not in body and "Globex closes" not in body
