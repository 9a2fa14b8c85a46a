"""``OrderedJSONField.text_with``: the text of a document with some values replaced, made from
the text of the document, is what serialising the changed document gives, byte for byte."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsroom.fields import JSONText, OrderedJSONField
from tests.seed import SEED_JSON

text = OrderedJSONField.text
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


def seed() -> dict:
    return json.loads(SEED_JSON.read_text(encoding="utf-8"))


@pytest.mark.parametrize("key", list(seed()))
def test_any_key_of_the_seed_story_replaced(key):
    doc = seed()
    new = {"replaced": ["é", '"quoted"', "back\\slash", 1.5, None]}
    made = OrderedJSONField.text_with(text(doc), doc, {key: new})
    assert type(made) is JSONText
    assert made == text({**doc, key: new})


def test_the_publication_of_the_seed_story():
    doc = seed()
    changed = {"published_at": "2026-12-07T06:00:00Z", "disclosure": doc["disclosure"] + " Checked. ✓"}
    assert OrderedJSONField.text_with(text(doc), doc, changed) == text({**doc, **changed})


@settings(max_examples=200, deadline=None)
@given(
    doc=st.dictionaries(st.text(max_size=8), json_values, min_size=1, max_size=8),
    picks=st.lists(st.integers(min_value=0), min_size=1, max_size=3),
    news=st.lists(json_values, min_size=3, max_size=3),
)
def test_generated_documents(doc, picks, news):
    keys = list(doc)
    changed = {keys[p % len(keys)]: new for p, new in zip(picks, news)}
    assert OrderedJSONField.text_with(text(doc), doc, changed) == text({**doc, **changed})


def test_a_text_that_is_not_the_documents_gives_none():
    doc = seed()
    head, tail = {"published_at": "x"}, {"disclosure": "x"}  # a key near the start, one near the end
    assert OrderedJSONField.text_with(text({**doc, "slug": "another-slug"}), doc, head) is None
    assert OrderedJSONField.text_with(text({**doc, "reuse": {"changed": True}}), doc, tail) is None
    assert OrderedJSONField.text_with(text(doc) + " ", doc, tail) is None


def test_a_key_the_document_lacks_or_no_change_gives_none():
    doc = seed()
    assert OrderedJSONField.text_with(text(doc), doc, {"no such key": 1}) is None
    assert OrderedJSONField.text_with(text(doc), doc, {}) is None
