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
