"""desk.validate on values that are present but wrong."""

import pytest

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
