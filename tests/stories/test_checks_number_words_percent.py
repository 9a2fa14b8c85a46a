"""A number written in words and followed by "percent" or "per cent" is a percentage, as the
same number in digits is: "two hundred and fifteen percent" is 215%, not the 215 tasks the
seed's claims state."""

import pytest

from stories.checks.meaning.numbers import _word_figures
from stories.figures import figures
from tests.stories.helpers import criterion, errors, failing, para, rubric_of

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "text, written",
    [
        ("reached two hundred and fifteen percent", "two hundred and fifteen percent"),
        ("reached two hundred and fifteen per cent", "two hundred and fifteen per cent"),
        ("reached two hundred and fifteen Percent of it", "two hundred and fifteen Percent"),
        ("reached two hundred and fifteen PER CENT.", "two hundred and fifteen PER CENT"),
    ],
)
def test_number_words_before_percent_read_as_a_percentage(text, written):
    assert _word_figures(text) == ((written, "215%"),)


def test_number_words_read_the_same_percentage_as_digits():
    for words, digits in [
        ("twenty one percent", "21 percent"),
        ("two point five per cent", "2.5 per cent"),
        ("forty-two percent", "42 percent"),
    ]:
        [(_, canon)] = _word_figures(f"rose by {words} today")
        assert [canon] == [c for _, c in figures(digits)]


def test_number_words_without_percent_stay_plain_figures():
    assert _word_figures("two hundred and fifteen tasks") == (("two hundred and fifteen", "215"),)
    assert _word_figures("two hundred and fifteen per task") == (("two hundred and fifteen", "215"),)
    assert _word_figures("half of the tasks, twice the baseline") == (("half", "50%"), ("twice", "2x"))


def test_percent_in_words_unstated_by_the_claims_fails_claims_support(manifests_loaded, seed_doc):
    p = para(seed_doc, 2, 1)
    assert "reached a 30.7%" in p["markdown"]
    p["markdown"] = p["markdown"].replace("reached a 30.7%", "reached two hundred and fifteen percent")
    rubric = rubric_of(seed_doc)
    assert criterion(rubric, "claims_support")["passed"] is False
    assert "claims_support" in failing(rubric)
    assert any(
        f.get("canonical") == "215%" and f.get("figure") == "two hundred and fifteen percent"
        for f in errors(rubric, "claims_support")
    )


@pytest.mark.parametrize(
    "text, written, in_digits",
    [
        ("reached three hundred seven per mille", "three hundred seven per mille", "307 per mille"),
        ("reached three hundred and seven Permille of it", "three hundred and seven Permille", "307\u2030"),
        ("reached two hundred and fifteen PER MILLE.", "two hundred and fifteen PER MILLE", "215 per mille"),
    ],
)
def test_number_words_before_per_mille_read_as_the_same_number_in_digits(text, written, in_digits):
    [(_, canonical)] = figures(in_digits)
    assert _word_figures(text) == ((written, canonical),)
    assert canonical in ("30.7%", "21.5%")


def test_per_mille_in_words_is_checked_against_the_claims(manifests_loaded, seed_doc):
    """The claims state 30.7% (and 215 tasks): "three hundred seven per mille" is that
    figure, "two hundred and fifteen per mille" (21.5%) is not."""
    p = para(seed_doc, 2, 1)
    assert "reached a 30.7%" in p["markdown"]
    original = p["markdown"]
    p["markdown"] = original.replace("reached a 30.7%", "reached three hundred and seven per mille")
    assert criterion(rubric_of(seed_doc), "claims_support")["passed"] is True
    p["markdown"] = original.replace("reached a 30.7%", "reached two hundred and fifteen per mille")
    rubric = rubric_of(seed_doc)
    assert criterion(rubric, "claims_support")["passed"] is False
    assert any(
        f.get("canonical") == "21.5%" and f.get("figure") == "two hundred and fifteen per mille"
        for f in errors(rubric, "claims_support")
    )
