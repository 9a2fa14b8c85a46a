"""``generate_scale_data`` (benchmarks' data) writes stories the site serves as it serves
its own: pages render, and search finds them through their stored documents."""

import io

import pytest
from django.core.management import call_command
from django.db import connection

from stories.models import Story, StorySearch

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="generate_scale_data writes with PostgreSQL's COPY"),
]


def test_generated_stories_are_served_and_found(client):
    call_command("generate_scale_data", stories=30, manifests=2, claims=8, stdout=io.StringIO())
    generated = Story.objects.published().filter(slug__startswith="scale-")
    assert generated.count() == 30
    assert StorySearch.objects.filter(story__in=generated).count() == 30
    story = generated.order_by("id").first()
    page = client.get(story.path)
    assert page.status_code == 200
    paragraph = story.sections.get().paragraphs.get()
    assert paragraph.html.startswith("<p>")
    assert paragraph.markdown[:200] in page.content.decode()
    word = paragraph.markdown.split()[0]
    assert story in Story.objects.published().search(word)


def test_a_newsroom_s_database_is_refused(story_doc, manifests_loaded):
    """Its stories are published without the checks: a database holding stories of its own
    (any besides the demo's) is not filled, and nothing is written."""
    from django.core.management import CommandError

    from stories import actions, desk

    actions.import_story(desk.validate({**story_doc(id="930", slug="a-newsroom-story"), "published_at": None}))
    before = Story.objects.count()
    with pytest.raises(CommandError, match=r"holds stories besides the demo.s \(1\)"):
        call_command("generate_scale_data", stories=30, manifests=2, claims=8, stdout=io.StringIO())
    assert Story.objects.count() == before
