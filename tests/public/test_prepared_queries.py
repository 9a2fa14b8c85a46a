"""Querysets compiled once and run again with new values (``newsroom.infra.prepared``) read what the
queryset reads, on whichever database, for any values."""

import datetime as dt

import pytest

from manifests.models import Claim
from newsroom.infra.prepared import Prepared
from stories.models import Paragraph, Story
from tests.public.helpers import import_seed_story

pytestmark = pytest.mark.django_db


@pytest.fixture
def stories(demo, seed_doc):
    return [demo, import_seed_story(seed_doc, id="902", slug="second-story", paragraphs=3)]


def counting(build):
    calls = []

    def counted(*args):
        calls.append(args)
        return build(*args)

    return counted, calls


def paragraphs(pk):
    return (
        Paragraph.objects.filter(section__story_id=pk)
        .order_by("section__position", "position", "id")
        .values_list("markdown", "html", "position")
    )


def test_rows_are_the_querysets_for_each_value_and_the_sql_is_built_once(stories):
    build, calls = counting(paragraphs)
    query = Prepared(build, "\x1fstory")
    for story in [*stories, *stories]:
        got = query.values(story.id)
        assert got and got == list(paragraphs(story.id))
    assert query.values("no-such-story") == []
    assert calls and all(args == ("\x1fstory",) for args in calls)  # built with the sample only
    built = len(calls)
    query.values(stories[0].id)
    assert len(calls) == built


def test_model_instances_come_with_their_selected_relations(stories):
    query = Prepared(
        lambda date, slug: (
            Story.objects.published().filter(edition_date=date, slug=slug).select_related("newsroom")[:1]
        ),
        dt.date(1901, 2, 3),
        "\x1fslug",
    )
    for story in stories:
        (got,) = query.objects(dt.date.fromisoformat(story.edition_id[:10]), story.slug)
        assert got.pk == story.pk and got.headline == story.headline and got.updated_at == story.updated_at
        assert Story.newsroom.is_cached(got) and got.newsroom.title == story.newsroom.title
    assert query.objects(dt.date(2001, 1, 1), stories[0].slug) == []


def test_a_list_of_any_length_converts_its_columns(demo):
    ids = list(Claim.objects.order_by("id").values_list("id", flat=True)[:5])
    Claim.objects.filter(pk=ids[0]).update(text="", has_text=False, self_reported=None)

    def claims(ids):
        return Claim.objects.filter(id__in=ids).values_list("id", "has_text", "self_reported")

    build, calls = counting(claims)
    query = Prepared(build, ["\x1fclaim"])
    for chosen in (ids[:1], ids, ids[2:], ids, []):
        got = query.values(chosen)
        assert got == [tuple(row) for row in claims(chosen)]
        assert all(isinstance(has_text, bool) for _, has_text, _ in got)
    assert query.values([ids[0]])[0][1:] == (False, None)
    # compiled once per length, with samples; the empty list built as it is (nothing to run)
    assert all(all(v.startswith("\x1fclaim") for v in args[0]) for args in calls)
    assert len({len(args[0]) for args in calls}) == 4


def test_a_sample_found_twice_is_built_afresh_each_time(demo):
    build, calls = counting(lambda status: Story.objects.filter(status=status).filter(status=status).values_list("id"))
    query = Prepared(build, "\x1fstatus")
    for _ in range(3):
        assert query.values(Story.Status.PUBLISHED) == [(demo.id,)]
        assert query.values(Story.Status.DRAFT) == list(
            Story.objects.filter(status=Story.Status.DRAFT).values_list("id")
        )
    assert [args for args in calls if args != ("\x1fstatus",)] == [(Story.Status.PUBLISHED,), (Story.Status.DRAFT,)] * 3
