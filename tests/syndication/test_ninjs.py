"""ninjs 3.1 from a desk/1 dict: a pure function; fields without a home are left out."""

import json

import pytest

from syndication.ninjs import to_ninjs

NINJS_TOP_LEVEL = {
    # The property names of ninjs 3.1's root object (iptc.org/std/ninjs/ninjs-schema_3.1.json).
    "uri",
    "type",
    "representationType",
    "profile",
    "version",
    "firstCreated",
    "versionCreated",
    "contentCreated",
    "embargoed",
    "pubStatus",
    "urgency",
    "copyrightHolder",
    "copyrightNotice",
    "usageTerms",
    "edNote",
    "language",
    "descriptions",
    "bodies",
    "headlines",
    "people",
    "organisations",
    "places",
    "subjects",
    "events",
    "eventDetails",
    "plannedCoverage",
    "objects",
    "infoSources",
    "title",
    "by",
    "slugline",
    "located",
    "renditions",
    "associations",
    "altIds",
    "trustIndicators",
    "standard",
    "genres",
    "expires",
    "rightsInfo",
    "digitalSourceType",  # new in 3.1
}


@pytest.fixture
def doc(seed_doc):
    return seed_doc


def test_only_ninjs_properties_and_the_required_uri(doc):
    ninjs = to_ninjs(doc, version=3)
    assert set(ninjs) <= NINJS_TOP_LEVEL
    assert ninjs["uri"] == doc["url"]
    assert ninjs["standard"]["version"] == "3.1"
    assert ninjs["version"] == "3"
    json.dumps(ninjs)  # plain JSON all the way down


def test_headlines_slugline_times(doc):
    ninjs = to_ninjs(doc)
    assert ninjs["headlines"] == [{"role": "main", "value": doc["headline"]}, {"role": "sub", "value": doc["dek"]}]
    assert ninjs["slugline"] == doc["slug"]
    assert ninjs["firstCreated"] == ninjs["versionCreated"] == doc["published_at"]
    assert ninjs["pubStatus"] == "usable"


def test_body_has_every_section_and_paragraph_as_markdown(doc):
    [body] = to_ninjs(doc)["bodies"]
    assert body["contentType"] == "text/markdown"
    for section in doc["sections"]:
        assert f"## {section['heading']}" in body["value"]
        for paragraph in section["paragraphs"]:
            assert paragraph["markdown"] in body["value"]


def test_renditions_rights_genres_sources(doc):
    ninjs = to_ninjs(doc)
    assert {r["name"]: r["href"] for r in ninjs["renditions"]} == {
        "html": doc["links"]["html"],
        "json": doc["links"]["json"],
        "markdown": doc["links"]["markdown"],
    }
    assert ninjs["rightsInfo"] == {"linkedRights": doc["reuse"]["license_url"]}
    assert ninjs["genres"] == [{"name": doc["labels"]["trust_text"], "literal": "reported"}]
    assert [s["literal"] for s in ninjs["infoSources"]] == [m["manifest_id"] for m in doc["manifests"]]


def test_images_become_picture_associations(doc):
    doc["images"] = [
        {
            "url": "https://img.example/a.jpg",
            "alt": "A chart",
            "caption": "Scores",
            "credit": "Lab",
            "width": 800,
            "height": 600,
        }
    ]
    [image] = to_ninjs(doc)["associations"]
    assert image["uri"] == "https://img.example/a.jpg" and image["type"] == "picture" and image["name"]
    assert image["renditions"] == [
        {"name": "original", "href": "https://img.example/a.jpg", "width": 800, "height": 600}
    ]
    assert {"role": "caption", "value": "Scores"} in image["descriptions"]


def test_no_images_no_associations_and_desk_only_fields_left_out(doc):
    ninjs = to_ninjs(doc)
    assert "associations" not in ninjs
    text = json.dumps(ninjs)
    assert doc["decision_card"]["useful_for"][0] not in text
    assert doc["unresolved"][0] not in text


def test_a_correction_sets_version_created(doc):
    doc["corrections"] = [{"corrected_at": "2026-10-17T08:00:00Z", "kind": "correction", "text": "A figure was wrong."}]
    ninjs = to_ninjs(doc)
    assert ninjs["versionCreated"] == "2026-10-17T08:00:00Z"
    assert ninjs["firstCreated"] == doc["published_at"]
    assert any("A figure was wrong." in t["title"] for t in ninjs["trustIndicators"])
