"""Querysets compiled once and run again with new values (``newsroom.infra.prepared``: the
story page's and the API list's queries) read what the queryset reads, on whichever
database, for any values."""

import datetime as dt

import pytest

from manifests.models import Claim
from newsroom.infra.prepared import Prepared, padded
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


def test_a_padded_list_is_the_same_values_in_a_power_of_two_length():
    assert padded([]) == [] and padded(["a"]) == ["a"]
    assert padded(["a", "b", "c"]) == ["a", "b", "c", "c"]
    for n in range(1, 70):
        got = padded(range(n))
        assert set(got) == set(range(n)) and got[:n] == list(range(n))
        assert (len(got) & (len(got) - 1) == 0 and len(got) < 2 * n) or (len(got) == 50 and 32 < n <= 50)


def test_the_lists_queries_read_what_their_querysets_read_for_padded_ids(stories):
    from syndication import storydocs

    ids = [s.id for s in stories]
    for chosen in (ids[:1], ids, [*ids, "no-such-story"]):
        got = storydocs.STORIES.objects(padded(chosen))
        assert sorted(s.pk for s in got) == sorted(s.pk for s in stories if s.pk in chosen)
        assert storydocs.PARAGRAPHS.values(padded(chosen)) == list(storydocs.PARAGRAPHS.build(chosen))
        assert storydocs.FACTS.values(padded(chosen)) == list(storydocs.FACTS.build(chosen))
        assert storydocs.CORRECTIONS.values(padded(chosen)) == list(storydocs.CORRECTIONS.build(chosen))


def test_integers_are_compiled_once_whichever_way_the_backend_passes_them(stories):
    from stories.models import Revision

    def revisions(ids, versions):
        return Revision.objects.filter(story_id__in=ids, version__in=versions).values_list("story_id", "version")

    build, calls = counting(revisions)
    query = Prepared(build, ["\x1fstory"], [987_654_321])
    ids = [s.id for s in stories]
    versions = sorted({s.version for s in stories})
    for _ in range(3):
        got = query.values(padded(ids), padded(versions))
        assert sorted(got) == sorted(revisions(ids, versions)) and got
    assert query.values(padded(ids), [10_000]) == []
    assert all(got is not False for got in query.compiled.values())
    assert all(all(v.startswith("\x1fstory") for v in args[0]) for args in calls)
