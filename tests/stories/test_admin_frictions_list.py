"""The story list: status, review, checks, writer and updated columns, their filters, and a
search that reads the paragraphs too; its queries do not grow with the stories."""

import pytest

from stories.checks import check_and_record
from stories.models import CheckResult, Paragraph
from tests.stories.helpers import client_for

pytestmark = pytest.mark.django_db

LIST = "/admin/stories/story/"


@pytest.fixture
def stories(draft, writer, make_story):
    """The checked draft (written by the writer) and three unchecked drafts."""
    type(draft).objects.filter(pk=draft.pk).update(created_by=writer)
    check_and_record(draft)
    others = [
        make_story(
            slug=f"other-{n}", status="draft", newsroom=draft.newsroom, edition=draft.edition, headline=f"Other {n}"
        )
        for n in range(3)
    ]
    return draft, others


def test_the_list_shows_status_checks_writer_and_updated(stories, editor):
    html = client_for(editor).get(LIST).content.decode()
    for column in ["column-status", "column-review_status", "column-checks", "column-writer", "column-updated_at"]:
        assert column in html, column
    assert "passed</span> (1.00)" in html and "not run" in html and "walt" in html


@pytest.mark.parametrize("value, expected", [("passed", 1), ("failed", 0), ("none", 3)])
def test_the_list_filters_by_the_checks(stories, editor, value, expected):
    page = client_for(editor).get(f"{LIST}?checks={value}")
    assert page.status_code == 200
    assert page.context["cl"].result_count == expected


def test_a_failed_latest_check_counts_as_failed(stories, editor):
    draft, _ = stories
    CheckResult.objects.create(story=draft, version=draft.version, passed=False, score=0.5, rubric={})
    client = client_for(editor)
    assert client.get(f"{LIST}?checks=failed").context["cl"].result_count == 1
    assert client.get(f"{LIST}?checks=passed").context["cl"].result_count == 0


def test_the_list_filters_by_writer_and_review_status(stories, editor, writer):
    client = client_for(editor)
    assert client.get(f"{LIST}?created_by__id__exact={writer.pk}").context["cl"].result_count == 1
    assert client.get(f"{LIST}?review_status=in_review").context["cl"].result_count == 0


def test_search_finds_the_text_of_a_paragraph_once(stories, editor):
    draft, _ = stories
    for paragraph in Paragraph.objects.filter(section__story=draft):
        paragraph.markdown += " zanzibarquartz"
        paragraph.save()
    page = client_for(editor).get(f"{LIST}?q=zanzibarquartz")
    assert page.context["cl"].result_count == 1
    assert [s.pk for s in page.context["cl"].result_list] == [draft.pk]


def test_the_list_queries_do_not_grow_with_the_stories(stories, editor, make_story, django_assert_max_num_queries):
    draft, _ = stories
    client = client_for(editor)
    client.get(LIST)
    with django_assert_max_num_queries(20) as few:
        client.get(LIST)
    for n in range(6):
        story = make_story(slug=f"more-{n}", status="draft", newsroom=draft.newsroom, edition=draft.edition)
        check_and_record(story)
    with django_assert_max_num_queries(len(few.captured_queries)):
        page = client.get(LIST)
    assert page.context["cl"].result_count == 10
