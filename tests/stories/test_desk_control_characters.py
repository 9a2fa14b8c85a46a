"""A story's text is written into XML (Atom, RSS, the news sitemap), and XML 1.0 cannot hold
the C0 control characters (but tab, newline and carriage return) nor U+FFFE and U+FFFF.
desk/1 and manifests/1 refuse them in every string, naming the JSON path and the character;
the admin's forms refuse them too; and the feeds and the sitemap leave them out of a story
that holds one anyway (saved before they were refused), so one story cannot break them for
every reader."""

import copy
import json
from xml.etree import ElementTree as ET

import pytest
from django.utils import timezone

from manifests.formats import validate_manifests_document
from newsroom.models import Newsroom
from stories.desk import DeskError, validate
from stories.models import Story
from tests.seed import SEED_MANIFESTS
from tests.stories.helpers import change_url, form_data
from tests.stories.helpers import client_for as desk_client_for
from tests.syndication.helpers import client_for

pytestmark = pytest.mark.django_db

NOT_XML = ["\x01", "\x08", "\x0b", "\x0c", "\x0e", "\x1b", "\x1f", "\ufffe", "\uffff"]
ALLOWED = ["\t", "\n", "\r", "\x7f", "\x85", "\u2028", "\ufffd"]


def at(doc: dict, path: str, value: str) -> dict:
    """``doc`` with the string at ``path`` (``key_facts[0].text``) given ``value`` appended."""
    doc = copy.deepcopy(doc)
    *parents, last = path.replace("]", "").replace("[", ".").split(".")
    node = doc
    for part in parents:
        node = node[int(part)] if part.isdigit() else node[part]
    key = int(last) if last.isdigit() else last
    node[key] = node[key] + value
    return doc


PATHS = [
    "headline",
    "dek",
    "angle",
    "key_facts[0].text",
    "sections[0].heading",
    "sections[1].paragraphs[0].markdown",
    "unresolved[0]",
    "decision_card.useful_for[0]",
    "manifests[0].title",
    "manifests[0].source_name",
]


@pytest.mark.parametrize("path", PATHS)
def test_each_string_of_a_story_refuses_a_control_character_naming_its_path(seed_doc, path):
    with pytest.raises(DeskError) as refused:
        validate(at(seed_doc, path, "Markets\x0b rally"))
    assert (refused.value.path, refused.value.message) == (path, "contains the control character U+000B")
    assert str(refused.value) == f"{path}: contains the control character U+000B"


@pytest.mark.parametrize("char", NOT_XML, ids=[f"U+{ord(c):04X}" for c in NOT_XML])
def test_every_character_xml_cannot_hold_is_refused(seed_doc, char):
    with pytest.raises(DeskError) as refused:
        validate(at(seed_doc, "headline", char))
    assert refused.value.path == "headline"
    assert f"U+{ord(char):04X}" in refused.value.message


def test_the_noncharacters_are_named_as_such(seed_doc):
    with pytest.raises(DeskError, match=r"headline: contains U\+FFFF, which is not a character"):
        validate(at(seed_doc, "headline", "\uffff"))


@pytest.mark.parametrize("char", ALLOWED, ids=[f"U+{ord(c):04X}" for c in ALLOWED])
def test_tab_newline_carriage_return_and_what_xml_holds_are_accepted(seed_doc, char):
    assert validate(at(seed_doc, "sections[1].paragraphs[0].markdown", char))


def test_a_claim_of_a_manifests_document_refuses_a_control_character():
    data = json.loads(SEED_MANIFESTS.read_text(encoding="utf-8"))
    data["manifests"][1]["claims"][0]["text"] += "\x0c"
    with pytest.raises(DeskError) as refused:
        validate_manifests_document(data)
    assert refused.value.path == "manifests[1].claims[0].text"
    assert refused.value.message == "contains the control character U+000C"


@pytest.fixture
def auto_publishing(manifests_loaded):
    return Newsroom.objects.create(slug="artificial-intelligence", title="AI", auto_publish=True)


def test_a_submission_with_a_control_character_is_refused_and_writes_nothing(story_doc, writer_key, auto_publishing):
    doc = story_doc(id=None, slug="markets", headline="Markets\x0b rally")
    stories = Story.objects.count()
    response = client_for(writer_key[1]).post("/api/v1/submissions/", doc, format="json")
    assert response.status_code == 400, response.content[:300]
    assert response.json()["error"]["path"] == "headline"
    assert response.json()["error"]["message"] == "contains the control character U+000B"
    assert Story.objects.count() == stories and not Story.objects.filter(slug="markets").exists()


@pytest.mark.parametrize("path", ["/feed.atom", "/feed.rss", "/sitemap-news.xml"])
def test_the_feeds_stay_up_after_a_submission_with_a_control_character(
    story_doc, writer_key, auto_publishing, client, path
):
    doc = story_doc(id=None, slug="markets", headline="Markets\x0b rally")
    client_for(writer_key[1]).post("/api/v1/submissions/", doc, format="json")
    client.raise_request_exception = False
    response = client.get(path)
    assert response.status_code == 200
    ET.fromstring(response.content)


@pytest.mark.parametrize("path", ["/feed.atom", "/feed.rss", "/sitemap-news.xml"])
def test_a_stored_story_holding_a_control_character_leaves_it_out_of_the_xml(demo, client, path):
    Story.objects.filter(pk=demo.pk).update(
        headline="Markets\x0b rally\uffff", dek="Up\x01 again", published_at=timezone.now()
    )
    client.raise_request_exception = False
    response = client.get(path)
    assert response.status_code == 200
    body = response.content.decode()
    ET.fromstring(response.content)  # well-formed XML
    assert "Markets rally" in body and "\x0b" not in body and "\uffff" not in body and "\x01" not in body


def test_the_admin_refuses_a_headline_with_a_control_character(draft, editor):
    as_editor = desk_client_for(editor)
    data = form_data(as_editor.get(change_url(draft)))
    data["headline"] = "Markets\x0b rally"
    response = as_editor.post(change_url(draft), data)
    assert response.status_code == 200
    assert "contains the control character U+000B" in response.content.decode()
    assert Story.objects.get(pk=draft.pk).headline == draft.headline


def test_the_admin_refuses_a_key_fact_with_a_control_character(draft, editor):
    as_editor = desk_client_for(editor)
    data = form_data(as_editor.get(change_url(draft)))
    data["key_facts-0-text"] = data["key_facts-0-text"].replace(" ", " \x1f", 1)
    response = as_editor.post(change_url(draft), data)
    assert response.status_code == 200
    assert "contains the control character U+001F" in response.content.decode()
    assert Story.objects.get(pk=draft.pk).version == draft.version
