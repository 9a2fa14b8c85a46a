"""The planted-fault corpus: every fault is caught with the kind it plants, every faithful
rewording passes (stories other than the demo; corpus/meaning_faults.json)."""

import pytest

from tests.stories.meaning_corpus import CASES, errors_of, support_findings

FAULTS = [pytest.param(c, id=f"{c['kind']}-{i}") for i, c in enumerate(CASES)]
FAITHFUL = [
    pytest.param(c["claims"], text, id=f"{c['kind']}-{i}-{j}")
    for i, c in enumerate(CASES)
    for j, text in enumerate(c["faithful"])
]


def test_the_corpus_has_ten_cases_of_each_kind_and_as_many_rewordings():
    kinds = {c["kind"] for c in CASES}
    assert kinds == {"negation", "comparison", "direction", "outcome", "roles", "number", "pass_fail", "name"}
    for kind in kinds:
        assert sum(c["kind"] == kind for c in CASES) >= 10
    assert len(FAITHFUL) >= len(FAULTS)


@pytest.mark.parametrize("case", FAULTS)
def test_planted_fault_is_an_error_of_its_kind(case):
    found = errors_of(support_findings(case["fault"], case["claims"]))
    assert case["expect"] in {f.get("kind") for f in found}, found
    [f] = [f for f in found if f.get("kind") == case["expect"]][:1]
    assert f["path"] == "sections[0].paragraphs[0]"
    assert f["sentence"] == case["fault"]
    if case["expect"] not in ("number",):
        assert f["claim"] in case["claims"]
        assert f["message"].startswith(f"contradicts its claim ({case['expect']}): ")
        assert len(f["terms"]) == 2


@pytest.mark.parametrize(("claims", "text"), FAITHFUL)
def test_faithful_rewording_passes(claims, text):
    assert errors_of(support_findings(text, claims)) == []
