"""The story page built from its live version's revision (``public.storypage``) is the page
built from the loaded rows: the same desk/1 document, the same context, the same HTML, in
fewer queries. The rows stay the truth: a revision that differs from them is not used."""

from urllib.parse import urlsplit

import pytest
from django.core.cache import cache
from django.template.loader import render_to_string
from django.test import RequestFactory

from manifests.models import Claim, Publisher
from newsroom.models import Newsroom, SiteProfile
from public import presenters, storypage
from stories import actions, desk
from stories.actions import drafts, record_correction
from stories.models import Paragraph, Revision, Story
from tests.public.helpers import import_seed_story

pytestmark = pytest.mark.django_db


def both_ways(story_id: str):
    """(document, page HTML) from the loaded rows and from the revision."""
    profile = SiteProfile.load()
    request = RequestFactory().get("/")
    loaded = Story.objects.published().loaded(story_id)
    d = desk.export_story(loaded, profile=profile)
    rows = render_to_string("public/story_detail.html", presenters.story_context(loaded, d, profile), request=request)
    page = storypage.story_page(story_id)
    assert isinstance(page, storypage.StoryPage), "the revision was not used"
    d2 = page.export(profile)
    context = presenters.story_context(page.story, d2, profile, html=page.html, claims=page.claims)
    revision = render_to_string("public/story_detail.html", context, request=request)
    return (d, rows), (d2, revision)


def assert_same(story_id: str):
    (d, rows), (d2, revision) = both_ways(story_id)
    assert d2 == d
    assert list(d2) == list(d)
    assert revision == rows
    return d


@pytest.fixture
def rich(demo, seed_doc):
    """A story with images, related links, key facts and cites to several manifests."""
    story = import_seed_story(
        seed_doc,
        id="901",
        slug="rich-story",
        paragraphs=5,
        images=[
            {
                "url": "https://example.org/a.png",
                "alt": "A chart",
                "caption": "The chart",
                "credit": "Desk",
                "width": 800,
                "height": 600,
            },
            {
                "url": "https://example.org/b.png",
                "alt": "B",
                "caption": "",
                "credit": "",
                "width": None,
                "height": None,
            },
        ],
        related=[{"url": demo.url, "headline": demo.headline, "slug": demo.slug}],
    )
    return story


def test_the_demo_story_is_the_same_both_ways(demo):
    d = assert_same(demo.id)
    assert len({c["manifest_id"] for _, c in desk.iter_cites(d)}) > 1  # cites to several manifests
    assert d["key_facts"]


def test_a_story_with_images_and_related_links_is_the_same_both_ways(rich):
    d = assert_same(rich.id)
    assert len(d["images"]) == 2 and d["related"]


def test_corrections_recorded_since_the_version_show_both_ways(demo):
    record_correction(story=demo, text="Fixed a number.", kind="correction")
    record_correction(story=demo, text="Added a source <b>bold</b>.", kind="update")
    d = assert_same(demo.id)
    assert [c["text"] for c in d["corrections"]][-2:] == ["Fixed a number.", "Added a source <b>bold</b>."]


def test_a_pending_draft_on_a_live_story_leaves_the_live_page_alone(demo, editor):
    before = both_ways(demo.id)[1][1]
    draft = drafts.start_changes(story=demo, user=editor)
    paragraph = Paragraph.objects.filter(section__story=draft).order_by("section__position", "position").first()
    paragraph.markdown = "A pending change nobody has published."
    actions.save_story(story=draft, user=editor, write=paragraph.save)
    assert_same(demo.id)
    assert both_ways(demo.id)[1][1] == before
    assert "A pending change" not in before


def test_a_renamed_newsroom_and_publisher_show_both_ways(demo):
    Newsroom.objects.filter(slug=demo.newsroom.slug).update(title="The Renamed Desk")
    Publisher.objects.filter(pk=Publisher.objects.order_by("pk").first().pk).update(name="renamed-source")
    d = assert_same(demo.id)
    assert d["newsroom_title"] == "The Renamed Desk"
    assert "renamed-source" in d["publishers"]


def test_the_published_changes_of_a_draft_show_both_ways(demo, editor):
    draft = drafts.start_changes(story=demo, user=editor)
    paragraph = Paragraph.objects.filter(section__story=draft).order_by("section__position", "position").first()
    paragraph.markdown = "A published change with **bold** words."
    actions.save_story(story=draft, user=editor, write=paragraph.save)
    drafts.publish_changes(draft=draft, user=editor, override_reason="test override")
    d = assert_same(demo.id)
    assert d["sections"][0]["paragraphs"][0]["markdown"] == "A published change with **bold** words."


def test_a_revision_that_differs_from_the_rows_is_not_used(client, demo):
    url = urlsplit(demo.url).path
    page = client.get(url).content
    revision = Revision.objects.get(story=demo, version=demo.version)
    revision.data["sections"][0]["paragraphs"][0]["markdown"] = "Planted text the rows do not hold."
    revision.save()
    assert storypage.story_page(demo.id) is False
    cache.clear()
    assert client.get(url).content == page


def test_a_story_without_a_revision_of_its_version_is_loaded_from_its_rows(client, demo):
    url = urlsplit(demo.url).path
    page = client.get(url).content
    Revision.objects.filter(story=demo).delete()
    cache.clear()
    assert client.get(url).content == page


def test_an_unpublished_story_is_not_found(client, demo, editor):
    actions.unpublish_story(story=demo, user=editor, reason="taken down")
    assert storypage.story_page(demo.id) is None
    assert client.get(urlsplit(demo.url).path).status_code == 404


def test_the_cold_story_page_costs_fewer_queries(client, demo, django_assert_num_queries):
    # the story row (reused by the rendering), the site profile, then public.storypage's seven
    with django_assert_num_queries(9):
        assert client.get(urlsplit(demo.url).path).status_code == 200


def test_a_claim_changed_since_the_version_shows_both_ways(demo):
    cited = [
        cid
        for _, c in desk.iter_cites(desk.export_story(Story.objects.published().loaded(demo.id)))
        for cid in c["claim_ids"]
    ]
    Claim.objects.filter(pk=cited[0]).update(text="A claim text imported since.", self_reported=True)
    Claim.objects.filter(pk=cited[-1]).update(text="", has_text=False, self_reported=None)
    (_, rows), (_, revision) = both_ways(demo.id)
    assert revision == rows
    assert "A claim text imported since." in revision


def page_from_rows(story_id: str, path: str) -> bytes:
    profile = SiteProfile.load()
    loaded = Story.objects.published().loaded(story_id)
    context = presenters.story_context(loaded, desk.export_story(loaded, profile=profile), profile)
    return render_to_string("public/story_detail.html", context, request=RequestFactory().get(path)).encode()


@pytest.mark.parametrize("change", ["none", "profile", "newsroom", "correction"])
def test_the_served_page_reusing_the_lookups_row_is_the_page_from_the_rows(client, rich, demo, change):
    """Through the view, the rendering reuses the row its lookup read (and compiled queries,
    ``newsroom.infra.prepared``): still the page the loaded rows make, after changes without a version."""
    if change == "profile":
        SiteProfile.objects.update(sponsor=None, disclosure="A disclosure changed since.")
    elif change == "newsroom":
        Newsroom.objects.update(title="The Renamed Desk")
    elif change == "correction":
        record_correction(story=rich, text="A later correction.", kind="correction")
    pages = []
    for story in (demo, rich, demo):  # one process, one compiled query, each story's own values
        path = urlsplit(story.url).path
        cache.clear()
        pages.append(client.get(path).content)
        assert pages[-1] == page_from_rows(story.id, path)
    shown = {
        "profile": "A disclosure changed since.",
        "newsroom": "The Renamed Desk",
        "correction": "A later correction.",
    }
    assert change == "none" or shown[change].encode() in pages[1]
    assert pages[0] == pages[2] and pages[0] != pages[1]


def test_the_rendering_reads_the_live_entries_the_prefetch_reads(demo, editor):
    draft = drafts.start_changes(story=demo, user=editor)
    drafts.publish_changes(draft=draft, user=editor, override_reason="test override")
    page = storypage.story_page(demo.id, storypage.story_row(demo.id))
    loaded = Story.objects.published().loaded(demo.id)
    assert [(e.pk, e.recorded_rubric, e.edited_by_people, e.user_id) for e in page.story.live_entries] == [
        (e.pk, e.recorded_rubric, e.edited_by_people, e.user_id) for e in loaded.live_entries
    ]
    assert all(e.story is page.story for e in page.story.live_entries)
    assert desk.responsibility_of(page.story) == desk.responsibility_of(loaded)
