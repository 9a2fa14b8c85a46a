"""``text_array``: the PostgreSQL array literal of a list of strings, which ``any_of`` sends as
its one parameter. PostgreSQL reads it back as the same strings, whatever they hold."""

import pytest
from django.db import connection
from hypothesis import given, settings
from hypothesis import strategies as st

from newsroom.infra.bulk import any_of, text_array
from stories.models import Story

pytestmark = pytest.mark.django_db
postgresql_only = pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL array literal")

AWKWARD = [
    "a",
    "b,c",
    "{x}",
    " blank ",
    "NULL",
    "null",
    "",
    'a "quote"',
    "back\\slash",
    '\\"',
    "é日本",
    "it's",
    "\\\\",
    '"',
]


def read_back(literal: str) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT array_agg(x ORDER BY n) FROM unnest(%s::text[]) WITH ORDINALITY AS t(x, n)", [literal])
        return cursor.fetchone()[0] or []


def test_the_literal_quotes_every_element_and_escapes_quotes_and_backslashes():
    assert text_array([]) == "{}"
    assert text_array(["1", "2"]) == '{"1","2"}'
    assert text_array(['say "hi"', "a\\b"]) == '{"say \\"hi\\"","a\\\\b"}'


def test_anything_but_strings_is_refused_by_name():
    with pytest.raises(TypeError, match="strings only"):
        text_array(["1", 2])
    with pytest.raises(TypeError, match="strings only"):
        text_array(["1", None])


@postgresql_only
def test_postgresql_reads_awkward_strings_back_unchanged():
    assert read_back(text_array(AWKWARD)) == AWKWARD
    assert read_back(text_array([])) == []


@postgresql_only
@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(st.characters(exclude_characters="\x00", exclude_categories=["Cs"]), max_size=12), max_size=8))
def test_postgresql_reads_any_strings_back_unchanged(values):
    assert read_back(text_array(values)) == values


def test_any_of_finds_the_rows_of_awkward_ids_and_no_others(demo):
    wanted = [demo.pk, *AWKWARD]
    assert list(Story.objects.filter(id__in=any_of(wanted)).values_list("id", flat=True)) == [demo.pk]
    assert list(Story.objects.filter(id__in=any_of(AWKWARD)).values_list("id", flat=True)) == []
