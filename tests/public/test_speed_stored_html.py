"""Each paragraph's sanitised HTML is rendered once per saved version, by the actions' write
path (the row writers and the commit step), and the story page reads it instead of rendering
Markdown on every request."""

from urllib.parse import urlsplit

import pytest
from django.core.cache import cache

from public import markup
from stories import actions
from stories.actions import drafts
from stories.markup import to_html
from stories.models import Paragraph, Story
from tests.public.helpers import import_seed_story

pytestmark = pytest.mark.django_db


def paragraphs_of(story):
    return list(Paragraph.objects.filter(section__story=story).order_by("section__position", "position", "id"))


def first_paragraph(story) -> Paragraph:
    return paragraphs_of(story)[0]


@pytest.fixture
def url(demo):
    return urlsplit(demo.url).path


@pytest.fixture
def no_markdown(monkeypatch):
    """The Markdown renderer, as the page reaches it, refusing to run."""

    def refuse(text):
        raise AssertionError(f"rendered Markdown on a page request: {text[:40]!r}")

    monkeypatch.setattr(markup, "to_html", refuse)


def test_an_imported_story_has_each_paragraphs_sanitised_html_stored(demo):
    paragraphs = paragraphs_of(demo)
    assert paragraphs
    for p in paragraphs:
        assert p.html and p.html == str(to_html(p.markdown))


def test_the_story_page_renders_no_markdown_when_the_html_is_stored(client, url, demo, no_markdown):
    response = client.get(url)
    assert response.status_code == 200
    assert first_paragraph(demo).html.rstrip().removesuffix("</p>") in response.content.decode()


def test_a_paragraph_without_stored_html_is_rendered_and_the_page_is_the_same(client, url, demo, monkeypatch):
    with_stored = client.get(url).content
    Paragraph.objects.filter(section__story=demo).update(html="")  # a planted gap
    cache.clear()
    rendered = []
    real = markup.to_html
    monkeypatch.setattr(markup, "to_html", lambda text: rendered.append(text) or real(text))
    assert client.get(url).content == with_stored
    assert len(rendered) == len(paragraphs_of(demo))


def test_the_cold_story_page_costs_a_fixed_number_of_queries(client, url, django_assert_max_num_queries):
    with django_assert_max_num_queries(13):
        assert client.get(url).status_code == 200


def test_a_paragraph_edited_in_a_form_gets_its_html_from_the_commit_step(demo, editor):
    draft = drafts.start_changes(story=demo, user=editor)
    paragraph = first_paragraph(draft)
    assert paragraph.html  # copied with the parts
    paragraph.markdown = "Now with **bold** words and <script>alert(1)</script>."

    actions.save_story(story=draft, user=editor, write=paragraph.save)

    stored = Paragraph.objects.get(pk=paragraph.pk)
    assert stored.html == str(to_html(stored.markdown))
    assert "<strong>bold</strong>" in stored.html and "<script>" not in stored.html


def test_published_changes_reach_the_page_through_the_stored_html(client, url, demo, editor):
    draft = drafts.start_changes(story=demo, user=editor)
    paragraph = first_paragraph(draft)
    paragraph.markdown = "A sentence *nobody* has read before."
    actions.save_story(story=draft, user=editor, write=paragraph.save)

    live = drafts.publish_changes(
        draft=Story.objects.get(pk=draft.pk), user=editor, override_reason="Confirmed by phone."
    )

    assert first_paragraph(live).html == "<p>A sentence <em>nobody</em> has read before.</p>\n"
    assert "A sentence <em>nobody</em> has read before." in client.get(url).content.decode()


def test_the_stored_html_is_sanitised_like_the_rendered(demo, seed_doc):
    doc = seed_doc
    doc["sections"][0]["paragraphs"][0]["markdown"] = "[x](javascript:alert(1)) <img src=x onerror=alert(1)> ok"
    story = import_seed_story(doc, id="9000000000000000001", slug="hostile-paragraph", paragraphs=1)
    html = first_paragraph(story).html
    assert 'href="javascript' not in html and "<img" not in html  # shown as text, never as markup
    assert html == str(to_html(doc["sections"][0]["paragraphs"][0]["markdown"]))
