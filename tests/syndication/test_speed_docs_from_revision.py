"""The API's story documents built from each live version's revision (``syndication.storydocs``)
are byte for byte the documents built from the loaded rows (``desk.export_story``), for the
detail, ninjs and the list alike, in a fixed number of queries whatever the page size. The
rows stay the truth: a story whose revision differs from them is exported from its rows."""

import pytest
from django.core.cache import cache

from manifests.models import Claim, Publisher
from newsroom.models import Newsroom, SiteProfile
from stories import actions, desk
from stories.actions import drafts, record_correction
from stories.models import Paragraph, Revision, Story
from syndication import renderers, storydocs
from syndication.ninjs import to_ninjs
from syndication.renderers import encode, policy_links, writer_of
from tests.public.helpers import import_seed_story

pytestmark = pytest.mark.django_db

LIST = "/api/v1/stories/"


def from_rows(story_id: str, fmt: str) -> bytes:
    """What the endpoints answered when every story was loaded with everything."""
    profile = SiteProfile.load()
    story = Story.objects.published().with_everything().get(pk=story_id)
    doc = desk.export_story(story, profile=profile)
    if fmt == renderers.NINJS:
        doc = to_ninjs(
            doc,
            version=story.version,
            revised_at=desk.format_time(story.revised_at),
            writer=writer_of(story),
            policies=policy_links(profile),
        )
    return encode(doc)


def from_revisions(story_ids: list[str], fmt: str) -> dict[str, bytes]:
    profile = SiteProfile.load()
    render = renderers._render(fmt)
    return {s.id: render(s, profile) for s in storydocs.load(story_ids)}


def assert_same(*story_ids: str, via_revision=True):
    """Each story's desk/1 and ninjs bytes are the same both ways (the whole batch at once)."""
    loaded = storydocs.load(list(story_ids))
    assert sorted(s.id for s in loaded) == sorted(story_ids)
    if via_revision:
        assert all(isinstance(s, storydocs.StoryDoc) for s in loaded), "a revision was not used"
    for fmt in (renderers.DESK, renderers.NINJS):
        built = from_revisions(list(story_ids), fmt)
        for story_id in story_ids:
            assert built[story_id] == from_rows(story_id, fmt), (story_id, fmt)


@pytest.fixture
def several(demo, seed_doc):
    """The demo story (cites to several manifests) and two copies with more paragraphs."""
    ids = [demo.id]
    for i in range(2):
        ids.append(import_seed_story(seed_doc, id=f"90{i}", slug=f"copy-{i}", paragraphs=4 + i).id)
    return ids


def test_several_stories_are_the_same_both_ways(several):
    assert_same(*several)
    manifests = {c["manifest_id"] for s in storydocs.load(several[:1]) for _, c in desk.iter_cites(s.fields)}
    assert len(manifests) > 1


def test_corrections_recorded_since_the_version_show_both_ways(several):
    demo = Story.objects.get(pk=several[0])
    record_correction(story=demo, text="Fixed a number.", kind="correction")
    record_correction(story=demo, text="Added a source <b>bold</b>.", kind="update")
    assert_same(*several)
    assert b"Added a source <b>bold</b>." in from_revisions([demo.id], renderers.DESK)[demo.id]


def test_a_renamed_newsroom_and_publisher_show_both_ways(several):
    demo = Story.objects.get(pk=several[0])
    Newsroom.objects.filter(slug=demo.newsroom.slug).update(title="The Renamed Desk")
    Publisher.objects.filter(pk=Publisher.objects.order_by("pk").first().pk).update(name="renamed-source")
    assert_same(*several)
    body = from_revisions([demo.id], renderers.DESK)[demo.id]
    assert b"The Renamed Desk" in body and b"renamed-source" in body


def test_a_claim_imported_after_publication_shows_both_ways(several):
    demo = Story.objects.get(pk=several[0])
    cited = [cid for s in storydocs.load([demo.id]) for _, c in desk.iter_cites(s.fields) for cid in c["claim_ids"]]
    claim = Claim.objects.get(pk=cited[0])
    # A stub when the story was published (its text not fetched yet)...
    Claim.objects.filter(pk=claim.pk).update(has_text=False, text="", self_reported=False)
    assert_same(*several)
    # ...then imported: the documents show it without a new version of the story.
    Claim.objects.filter(pk=claim.pk).update(has_text=True, text="Imported later.", self_reported=True)
    assert_same(*several)
    assert Story.objects.get(pk=demo.id).version == demo.version


def test_a_pending_draft_on_a_live_story_leaves_its_documents_alone(several, editor):
    demo = Story.objects.get(pk=several[0])
    before = from_revisions([demo.id], renderers.DESK)[demo.id]
    draft = drafts.start_changes(story=demo, user=editor)
    paragraph = Paragraph.objects.filter(section__story=draft).order_by("section__position", "position").first()
    paragraph.markdown = "A pending change nobody has published."
    actions.save_story(story=draft, user=editor, write=paragraph.save)
    assert_same(*several)
    assert from_revisions([demo.id], renderers.DESK)[demo.id] == before
    assert b"A pending change" not in before


def test_the_published_changes_of_a_draft_show_both_ways(several, editor):
    demo = Story.objects.get(pk=several[0])
    draft = drafts.start_changes(story=demo, user=editor)
    paragraph = Paragraph.objects.filter(section__story=draft).order_by("section__position", "position").first()
    paragraph.markdown = "A published change with **bold** words."
    actions.save_story(story=draft, user=editor, write=paragraph.save)
    drafts.publish_changes(draft=draft, user=editor, override_reason="test override")
    assert_same(*several)
    assert b"A published change with **bold** words." in from_revisions([demo.id], renderers.DESK)[demo.id]


def test_a_story_whose_revision_differs_is_exported_from_its_rows(several):
    demo = Story.objects.get(pk=several[0])
    revision = Revision.objects.get(story=demo, version=demo.version)
    revision.data["sections"][0]["paragraphs"][0]["markdown"] = "Planted text the rows do not hold."
    revision.save()
    Revision.objects.filter(story_id=several[1]).delete()
    loaded = {s.id: s for s in storydocs.load(several)}
    assert not isinstance(loaded[demo.id], storydocs.StoryDoc)
    assert not isinstance(loaded[several[1]], storydocs.StoryDoc)
    assert isinstance(loaded[several[2]], storydocs.StoryDoc)
    assert_same(*several, via_revision=False)
    assert b"Planted text" not in from_revisions([demo.id], renderers.DESK)[demo.id]


def test_an_unpublished_story_is_left_out(several, editor):
    actions.unpublish_story(story=Story.objects.get(pk=several[1]), user=editor, reason="taken down")
    assert sorted(s.id for s in storydocs.load(several)) == sorted([several[0], several[2]])


def test_an_uncached_list_is_the_same_bytes_as_a_cached_one(api, several, settings):
    cached = api.get(LIST + "?page_size=50")
    assert cached.status_code == 200
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    uncached = api.get(LIST + "?page_size=50")
    assert uncached.content == cached.content
    for item in uncached.json()["results"]:
        assert encode(item["story"]) == from_rows(item["id"], renderers.DESK)


@pytest.mark.parametrize("count", [3, 40])
def test_a_cold_list_costs_the_same_whatever_its_length(api, demo, seed_doc, count, django_assert_max_num_queries):
    for i in range(count - 1):
        import_seed_story(seed_doc, id=f"7{i:03d}", slug=f"many-{i}", paragraphs=2)
    api.get("/api/v1/newsrooms/")  # the key cached
    api.get("/api/v1/newsrooms/")
    cache.clear()
    # the key, the page, the stories, their publication records, revisions, paragraphs,
    # key facts, corrections, claims, manifests, the profile
    with django_assert_max_num_queries(2 + 11):
        body = api.get(LIST + "?page_size=50").json()
    assert len(body["results"]) == count
