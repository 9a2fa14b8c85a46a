"""The story representation cache (stories.cache) that the story pages and the API share:
one round trip and no query for stored stories, each kind stored apart, never stale."""

import pytest

from newsroom.infra.pagecache import bump
from stories.cache import representations, story_sources_key
from stories.models import Story

pytestmark = pytest.mark.django_db


def rows():
    return list(Story.objects.published().only("id", "version", "updated_at"))


def test_a_stored_representation_costs_no_query_and_no_render(demo, django_assert_num_queries):
    renders = []

    def render(story, profile):
        renders.append(story.id)
        return f"{story.headline} / {profile.reuse is not None}"

    first = representations(rows(), "test", render)
    stored = rows()
    with django_assert_num_queries(0):
        again = representations(stored, "test", render)
    assert renders == ["81"]
    assert again["81"].body == first["81"].body == f"{demo.headline} / True".encode()
    assert again["81"].version == demo.version


def test_each_kind_is_stored_apart(demo):
    representations(rows(), "one", lambda story, profile: b"one")
    assert representations(rows(), "two", lambda story, profile: b"two")["81"].body == b"two"
    assert representations(rows(), "one", lambda story, profile: b"other")["81"].body == b"one"


@pytest.mark.parametrize("moved", ["sources", story_sources_key("81")])
def test_a_moved_generation_renders_again(demo, moved):
    representations(rows(), "test", lambda story, profile: b"before")
    bump(moved)
    assert representations(rows(), "test", lambda story, profile: b"after")["81"].body == b"after"


def test_a_new_version_renders_again(demo):
    representations(rows(), "test", lambda story, profile: b"before")
    Story.objects.filter(pk="81").update(version=demo.version + 1)
    assert representations(rows(), "test", lambda story, profile: b"after")["81"].body == b"after"


def test_a_story_unpublished_since_its_row_was_read_is_left_out(demo):
    stale = rows()
    Story.objects.filter(pk="81").update(status=Story.Status.DRAFT)
    assert representations(stale, "test", lambda story, profile: b"never") == {}
