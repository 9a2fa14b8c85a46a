"""The public record of the gate: a story's disclosure says who wrote it and how its live
version passed the checks (or which failed and why an editor overrode them), on its page,
in index.json and in JSON-LD; checks.json is the record itself; a revised story shows when
its published changes last reached readers, in pages, feeds, sitemaps and JSON-LD."""

import datetime as dt
import io
import json
import re
from html import unescape

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command

from stories import actions, desk
from stories.models import AuditEntry, Story
from tests.factories import UserFactory
from tests.seed import SEED_JSON, SEED_MANIFESTS, SEED_TXT

pytestmark = pytest.mark.django_db

REASON = "Claim confirmed by phone with the lab"
SEED_URL = "/stories/2026-10-16/agent-training-stack/"
REPEAT_URL = "/stories/2026-10-16/agent-training-again/"
OWN_URL = "/stories/2026-10-16/agent-training-by-hand/"
PASSED_WORDING = "published after server-side checks: every cited Manifest id exists"


def editor_named(username, first="", last=""):
    user = UserFactory(username=username, first_name=first, last_name=last, is_staff=True)
    user.groups.add(Group.objects.get(name="Editor"))
    return user


@pytest.fixture
def editor(db):
    return editor_named("edna", "Edna", "Krabappel")


def import_draft(story_doc, **overrides):
    fields = {"id": "1792200000000000010", "slug": "agent-training-again", "edition": "2026-10-16T02"}
    fields.update(overrides)
    return actions.import_story(desk.validate(story_doc(published_at=None, **fields))).story


@pytest.fixture
def overridden(demo, story_doc, editor):
    """The seed story again, a repeat of the published seed (``not_a_repeat`` fails), written
    by an agent and published by an editor over the failing check."""
    story = import_draft(story_doc)
    return actions.publish_story(story=story, user=editor, override_reason=REASON)


@pytest.fixture
def own_story(manifests_loaded, story_doc, editor):
    """A story people wrote (no writer agent), published by an editor after passing checks."""
    story = import_draft(story_doc, slug="agent-training-by-hand", writer={"agent": "", "run_id": ""})
    return actions.publish_story(story=story, user=editor)


def jsonld(html: str) -> dict:
    return json.loads(re.search(r'<script type="application/ld\+json">(.*?)</script>', html, re.S).group(1))


def text_of(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


# --------------------------------------------------------------------------- the reference story


def test_the_reference_story_still_renders_byte_for_byte(client, demo):
    assert client.get(SEED_URL + "index.json").content.decode() == SEED_JSON.read_text(encoding="utf-8")
    assert client.get(SEED_URL + "index.txt").content.decode() == SEED_TXT.read_text(encoding="utf-8")


def test_an_agents_story_that_passed_keeps_the_sites_disclosure_whoever_published_it(
    manifests_loaded, story_doc, editor, seed_doc
):
    published = actions.publish_story(story=import_draft(story_doc), user=editor)
    assert (
        desk.export_story(Story.objects.with_everything().get(pk=published.pk))["disclosure"]
        == (seed_doc["disclosure"])
    )


# --------------------------------------------------------------------------- an override


def test_an_overridden_story_page_says_which_checks_failed_why_and_who(client, overridden):
    html = client.get(REPEAT_URL).content.decode()
    text = text_of(html)
    assert "Published over failing checks" in text  # by the trust label
    assert "How this was checked" in text
    assert "not_a_repeat: the story may repeat a recent story" in text
    assert f"Edna Krabappel overrode them and took responsibility for it, giving this reason: “{REASON}”" in text
    assert 'href="checks.json"' in html
    assert PASSED_WORDING not in text
    assert "each paragraph is supported by the claims it cites. Run the Manifests" not in text


def test_an_overridden_storys_index_json_disclosure_says_so(client, overridden):
    disclosure = json.loads(client.get(REPEAT_URL + "index.json").content)["disclosure"]
    assert disclosure == (
        "Written by an agent from the Synorb Manifests listed here; Edna Krabappel took editorial responsibility "
        "and published it although server-side checks failed (not_a_repeat: the story may repeat a recent story), "
        f"giving this reason: “{REASON}”. The record of the checks: https://hangingcontext.com{REPEAT_URL}checks.json. "
        "Run the Manifests yourself to verify."
    )


def test_an_overridden_storys_json_ld_says_so(client, overridden):
    data = jsonld(client.get(REPEAT_URL).content.decode())
    assert "although server-side checks failed (not_a_repeat" in data["backstory"]
    assert REASON in data["backstory"]
    assert data["editor"] == {"@type": "Person", "name": "Edna Krabappel"}


def test_the_markdown_flags_the_override_and_links_the_record(client, overridden):
    text = client.get(REPEAT_URL + "index.md").content.decode()
    assert "Published over failing checks" in text.splitlines()[4]
    assert f"How this was checked: <https://hangingcontext.com{REPEAT_URL}checks.json>" in text


# --------------------------------------------------------------------------- who wrote it


def test_a_story_people_wrote_has_no_agent_wording_and_names_the_editor(client, own_story):
    html = client.get(OWN_URL).content.decode()
    disclosure = json.loads(client.get(OWN_URL + "index.json").content)["disclosure"]
    for text in (text_of(html), disclosure, jsonld(html)["backstory"]):
        assert "Written by an agent" not in text
        assert "Edna Krabappel took editorial responsibility and published it after server-side checks" in text
    assert disclosure.startswith("Written by people, not an agent")
    assert "Every server-side check passed when this version was published (score 1.00)" in text_of(html)


def test_an_editor_without_a_name_is_not_named_by_their_login(manifests_loaded, story_doc):
    """A username is half of a login: the public record never shows it."""
    nameless = editor_named("desk-night")
    story = import_draft(story_doc, slug="agent-training-by-hand", writer={"agent": "", "run_id": ""})
    actions.publish_story(story=story, user=nameless)
    disclosure = desk.export_story(Story.objects.with_everything().get(pk=story.pk))["disclosure"]
    assert "desk-night" not in disclosure
    assert "an editor took editorial responsibility" in disclosure


def test_an_agents_story_revised_by_people_names_the_editor(manifests_loaded, story_doc, editor):
    story = import_draft(story_doc)
    story = actions.save_story(story=story, user=editor)  # an editor's edit of the agent's draft
    actions.publish_story(story=story, user=editor)
    disclosure = desk.export_story(Story.objects.with_everything().get(pk=story.pk))["disclosure"]
    assert disclosure.startswith(
        "Written by an agent from the Synorb Manifests listed here and revised by people; "
        "Edna Krabappel took editorial responsibility and published it after server-side checks"
    )


# --------------------------------------------------------------------------- checks.json


def test_checks_json_is_the_record_of_an_override(client, overridden, django_assert_max_num_queries):
    # the story row and the profile, then the story with everything (its publication record included)
    with django_assert_max_num_queries(13):
        response = client.get(REPEAT_URL + "checks.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert response["Link"] == f'<https://hangingcontext.com{REPEAT_URL}>; rel="canonical"'
    assert response["ETag"].startswith('"')
    record = response.json()
    assert record["schema"] == "hangingcontext.checks/1"
    assert record["story"]["id"] == overridden.id
    publication = record["publication"]
    assert publication["action"] == "publish" and publication["version"] == overridden.version
    assert publication["checks_passed"] is False and publication["overridden"] is True
    assert publication["failed_criteria"] == ["not_a_repeat"]
    assert publication["reason"] == REASON and publication["editor"] == "Edna Krabappel"
    rubric = record["rubric"]
    assert rubric["passed"] is False and len(rubric["criteria"]) == 7
    repeat = next(c for c in rubric["criteria"] if c["name"] == "not_a_repeat")
    assert repeat["findings"][0]["story_id"] == "81"
    assert client.get(REPEAT_URL + "checks.json", headers={"If-None-Match": response["ETag"]}).status_code == 304


def test_a_warm_checks_json_costs_no_query(client, overridden, django_assert_num_queries):
    first = client.get(REPEAT_URL + "checks.json")
    assert first.status_code == 200
    with django_assert_num_queries(0):
        assert client.get(REPEAT_URL + "checks.json").content == first.content


def test_checks_json_of_a_story_that_passed_names_no_editor_for_an_agents_story(
    client, manifests_loaded, story_doc, editor
):
    actions.publish_story(story=import_draft(story_doc), user=editor)
    publication = client.get(REPEAT_URL + "checks.json").json()["publication"]
    assert publication["checks_passed"] is True and publication["overridden"] is False
    assert publication["reason"] == "" and publication["editor"] is None


def test_checks_json_of_a_restored_story_without_a_record_says_none(client, db):
    """A story restored from a backup as it was exported has no publish recorded here."""
    call_command("import_manifests", str(SEED_MANIFESTS), stdout=io.StringIO())
    call_command("import_stories", "--restore", str(SEED_JSON), stdout=io.StringIO())
    record = client.get(SEED_URL + "checks.json").json()
    assert record["publication"]["checks_passed"] is None and record["rubric"] is None
    assert "No record of the checks run on this version is kept here." in text_of(client.get(SEED_URL).content.decode())


def test_checks_json_is_not_found_for_drafts_and_unknown_stories(client, demo, story_doc):
    import_draft(story_doc)
    assert client.get(REPEAT_URL + "checks.json").status_code == 404
    assert client.get("/stories/2026-10-16/no-such-story/checks.json").status_code == 404
    assert client.get("/stories/not-a-date/agent-training-stack/checks.json").status_code == 404


def test_a_new_publication_replaces_the_record(client, overridden, editor):
    assert client.get(REPEAT_URL + "checks.json").json()["publication"]["overridden"] is True
    actions.unpublish_story(story=overridden, user=editor)
    assert client.get(REPEAT_URL + "checks.json").status_code == 404


# --------------------------------------------------------------------------- publication and revision times

REVISED = dt.datetime(2026, 10, 17, 9, 30, tzinfo=dt.UTC)


@pytest.fixture
def revised(demo):
    demo.revised_at = REVISED
    demo.save()
    return demo


def test_the_page_shows_the_publication_date_and_updated_time(client, revised):
    html = client.get(SEED_URL).content.decode()
    assert 'Published <time datetime="2026-10-16T00:39:10Z">16 October 2026, 00:39 UTC</time>' in html
    assert 'Updated <time datetime="2026-10-17T09:30:00+00:00">17 October 2026, 09:30 UTC</time>' in html
    data = jsonld(html)
    assert data["datePublished"] == "2026-10-16T00:39:10Z"
    assert data["dateModified"] == "2026-10-17T09:30:00Z"


def test_an_unrevised_page_shows_no_updated_time(client, demo):
    assert "Updated <time" not in client.get(SEED_URL).content.decode()


def test_feeds_give_the_revision_as_updated_in_the_same_entry(client, revised):
    atom = client.get("/feed.atom").content.decode()
    assert atom.count("<entry>") == 1
    assert f"<id>https://hangingcontext.com{SEED_URL}</id>" in atom
    assert "<published>2026-10-16T00:39:10+00:00</published>" in atom
    assert "<updated>2026-10-17T09:30:00+00:00</updated>" in atom
    item = client.get("/feed.json").json()["items"][0]
    assert item["id"] == f"https://hangingcontext.com{SEED_URL}"
    assert item["date_published"] == "2026-10-16T00:39:10Z"
    assert item["date_modified"] == "2026-10-17T09:30:00Z"


def test_the_sitemap_gives_the_revision_as_lastmod(client, revised):
    # The index names one sitemap per month of publication: the story is in its month's.
    index = client.get("/sitemap.xml").content.decode()
    month = "/sitemaps/2026-10.xml"  # published 16 October 2026
    assert f"<loc>https://hangingcontext.com{month}</loc>" in index
    xml = client.get(month).content.decode()
    story_entry = re.search(rf"<url><loc>https://hangingcontext.com{SEED_URL}</loc>(.*?)</url>", xml, re.S).group(1)
    assert "<lastmod>2026-10-17T09:30:00Z</lastmod>" in story_entry


def test_a_later_correction_is_still_the_last_change(client, revised, editor):
    actions.record_correction(story=revised, text="A figure was wrong.", kind="correction", user=editor)
    data = jsonld(client.get(SEED_URL).content.decode())
    assert data["dateModified"] > "2026-10-17T09:30:00Z"


def test_a_publication_without_its_own_rubric_never_shows_an_earlier_ones(client, overridden, editor):
    story = actions.unpublish_story(story=overridden, user=editor)
    # A later publication whose checks were recorded elsewhere (say, on a pending draft).
    Story.objects.filter(pk=story.pk).update(
        status="published", published_at=story.updated_at, version=story.version + 1
    )
    AuditEntry.objects.create(
        story=story, action="publish", user=editor, version=story.version + 1, details={"passed": True, "score": 1.0}
    )
    Story.objects.get(pk=story.pk).save()
    record = client.get(REPEAT_URL + "checks.json").json()
    assert record["publication"]["checks_passed"] is True and record["publication"]["overridden"] is False
    assert record["rubric"] is None
