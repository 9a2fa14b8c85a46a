"""``V.string`` takes the text it took and refuses what it refused, with the same path: most
text is read by a few C calls, the rest by each check in turn."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsroom.infra import jsondoc
from newsroom.infra.jsondoc import FormatError, V


def reference(value, path, *, required=True, nonempty=False, max_length=jsondoc.MAX_TEXT):
    """``V.string`` as it was, one check after another."""
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise FormatError(path, "not a string")
    if nonempty and not value.strip():
        raise FormatError(path, "empty")
    if len(value) > max_length:
        raise FormatError(path, "too long")
    if "\x00" in value:
        raise FormatError(path, "NUL")
    if not value.isprintable():
        jsondoc.refuse_not_xml(value, path)
    if not value.isascii():
        jsondoc._refuse_surrogates(value, path)
    return value


def outcome(read, value, **options):
    try:
        return "taken", read(value, "$.text", **options)
    except FormatError as exc:
        return "refused", exc.path


AWKWARD = "a Z\t\n\r\x00\x0b\x1f\x7f\x85\xa0é\u2028\u3000\ud800\U0001f600"


@settings(max_examples=400, deadline=None)
@given(
    value=st.none() | st.integers() | st.text(st.sampled_from(AWKWARD), max_size=40) | st.text(max_size=40),
    required=st.booleans(),
    nonempty=st.booleans(),
    max_length=st.integers(min_value=0, max_value=30),
)
def test_the_same_outcome_as_each_check_in_turn(value, required, nonempty, max_length):
    options = {"required": required, "nonempty": nonempty, "max_length": max_length}
    assert outcome(V.string, value, **options) == outcome(reference, value, **options)


@pytest.mark.parametrize("value", ["", "   ", "\t\n"])
def test_blank_text_is_refused_where_it_must_not_be_empty(value):
    with pytest.raises(FormatError, match="must not be empty"):
        V.string(value, "$.headline", nonempty=True)
    assert V.string(value, "$.dek") == value


def test_plain_text_is_given_back_as_it_is():
    text = "Qwen3-8B scored 30.7% (up from 22.1%)."
    assert V.string(text, "$.text", nonempty=True) is text
