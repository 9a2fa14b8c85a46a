"""desk.validate on values that are present but wrong."""

import importlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stories import desk


@pytest.mark.parametrize("bad", [0, False, [], {}, 12])
def test_a_related_slug_that_is_not_a_string_is_refused(seed_doc, bad):
    seed_doc["related"][0]["slug"] = bad
    with pytest.raises(desk.DeskError) as info:
        desk.validate(seed_doc)
    assert info.value.path == "related[0].slug"


def test_a_missing_or_empty_related_slug_is_allowed(seed_doc):
    seed_doc["related"][0]["slug"] = ""
    del seed_doc["related"][1]["slug"]
    doc = desk.validate(seed_doc)
    assert doc["related"][0]["slug"] == doc["related"][1]["slug"] == ""


ids = st.one_of(
    st.sampled_from(["1793000000000000000", "c-1", "c_2", "x" * 64]),
    st.sampled_from(["", "x" * 65, "has space", "ü", "1793\n", "a.b"]),
    st.integers(),
    st.booleans(),
    st.none(),
)
cite = st.one_of(
    st.fixed_dictionaries({"manifest_id": ids, "claim_ids": st.lists(ids, max_size=4)}),
    st.fixed_dictionaries({"manifest_id": ids}),  # no claim ids: an empty list
    st.fixed_dictionaries({"claim_ids": st.lists(ids, max_size=3)}),  # no manifest
    st.fixed_dictionaries({"manifest_id": ids, "claim_ids": st.one_of(st.none(), st.integers(), ids)}),
    st.fixed_dictionaries({"manifest_id": ids, "claim_ids": st.just(["c-1", "c-1"])}),  # a claim twice
    st.fixed_dictionaries({"manifest_id": ids, "claim_ids": st.lists(ids, max_size=2), "note": st.text(max_size=3)}),
    st.none(),
    st.integers(),
    st.lists(ids, max_size=2),
)


def outcome(read, value):
    try:
        return read(value, "sections[0].paragraphs[1].cites")
    except desk.DeskError as exc:
        return ("error", exc.path, exc.message)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.lists(cite, max_size=4), st.none(), st.integers(), st.dictionaries(st.text(max_size=2), ids)))
def test_cites_read_in_one_pass_equal_those_read_value_by_value(value):
    """Well-formed cites are read in one pass; whatever the input, the result, or the error
    with its path and message, is the one reading each value in turn gives."""
    module = importlib.import_module("stories.desk.validate")  # the package's ``validate`` is the function
    assert outcome(module._cites, value) == outcome(module._read_cites, value)
