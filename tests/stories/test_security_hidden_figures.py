"""A figure, name or negation readers read in a paragraph is read by the checks too, however
it is written: backslash escapes, signs, ranges, percent and per mille signs, decimals
from their point, numbers after a slash, digits drawn as superscripts or in circles, links'
titles and brackets that make no link; and the text of images (which the page does not
show, so neither do the checks)."""

import copy

import pytest

from stories.checks import run_checks
from stories.markup import to_html

pytestmark = pytest.mark.django_db

SEED = "reached a 30.7%"  # in sections[2].paragraphs[1]: its cited claims state 30.7%, 215 and four


def refused(doc) -> bool:
    return not next(c for c in run_checks(doc)["criteria"] if c["name"] == "claims_support")["passed"]


def with_paragraph(seed_doc, written: str) -> tuple[dict, str]:
    doc = copy.deepcopy(seed_doc)
    paragraph = doc["sections"][2]["paragraphs"][1]
    assert SEED in paragraph["markdown"]
    paragraph["markdown"] = paragraph["markdown"].replace(SEED, written)
    return doc, paragraph["markdown"]


# (Markdown written, what readers see on the page): a figure no cited claim states
FIGURES = {
    "escaped percent sign": ("reached a 215\\% ", "reached a 215% "),
    "escaped decimal point": ("reached a 215\\.9%", "reached a 215.9%"),
    "hyphen as a minus sign": ("reached a -99.9%", "reached a -99.9%"),
    "minus sign U+2212 before the claim's 30.7%": ("reached a \u221230.7%", "reached a \u221230.7%"),
    "escaped minus sign before the claim's 30.7%": ("reached a \\-30.7%", "reached a -30.7%"),
    "second end of a range": ("reached a 30.7%-99.9%", "reached a 30.7%-99.9%"),
    "Arabic percent sign U+066A": ("reached a 215\u066a", "reached a 215\u066a"),
    "small percent sign U+FE6A": ("reached a 215\ufe6a", "reached a 215\ufe6a"),
    "decimal written from its point": ("reached a .99%", "reached a .99%"),
    "number after a slash": ("reached a 215/999", "reached a 215/999"),
    "per mille sign": ("reached a 999\u2030", "reached a 999\u2030"),
    "superscript digits": ("reached a \u2079\u2079%", "reached a \u2079\u2079%"),
    "circled digits": ("reached a \u2468\u2468%", "reached a \u2468\u2468%"),
    "dingbat circled digits": ("reached a \u277e\u277e%", "reached a \u277e\u277e%"),
    "brackets and parentheses that make no link": ("reached a [30.7%](of 99% runs)", "[30.7%](of 99% runs)"),
    "a link's title": ('reached a [30.7%](https://example.org/ "of 99% runs")', 'title="of 99% runs"'),
}

# Written otherwise, the figure the cited claims state: 30.7%
SAME_FIGURE = {
    "per mille": "reached a 307\u2030",
    "superscript digits": "reached a \u00b3\u2070.\u2077%",
    "a link's text, with a title the claims state": 'reached a [30.7%](https://example.org/ "30.7% of runs")',
    "a link in angle brackets": "reached a [30.7%](<https://example.org/a b>)",
}


@pytest.mark.parametrize("written,seen", list(FIGURES.values()), ids=list(FIGURES))
def test_a_figure_readers_read_is_checked(seed_doc, manifests_loaded, written, seen):
    doc, markdown = with_paragraph(seed_doc, written)
    assert seen in to_html(markdown)
    assert refused(doc)


def test_the_figures_as_written_pass(seed_doc, manifests_loaded):
    doc, _ = with_paragraph(seed_doc, SEED)
    assert not refused(doc)


@pytest.mark.parametrize("written", list(SAME_FIGURE.values()), ids=list(SAME_FIGURE))
def test_the_claims_figure_written_otherwise_passes(seed_doc, manifests_loaded, written):
    doc, _ = with_paragraph(seed_doc, written)
    assert not refused(doc)


def test_an_exponent_or_a_notes_mark_is_not_read_as_digits(seed_doc, manifests_loaded):
    """Superscript digits right after a figure or a word are its exponent, index or note
    mark ("30.7%¹", "CO₂"), not a figure of their own."""
    doc, _ = with_paragraph(seed_doc, "reached a 30.7%\u00b9")
    assert not refused(doc)


def test_a_negation_doubled_by_an_image_nobody_sees_is_refused(seed_doc, manifests_loaded):
    doc, markdown = with_paragraph(seed_doc, "did not ![not](x.png) reach a 30.7%")
    assert "did not  reach a 30.7%" in to_html(markdown)  # the image, and its text, are not shown
    assert refused(doc)


def test_a_name_after_an_image_nobody_sees_is_checked(seed_doc, manifests_loaded):
    doc, markdown = with_paragraph(seed_doc, "reached, as ![.](x.png) Fakelab measured, a 30.7%")
    assert "reached, as  Fakelab measured, a 30.7%" in to_html(markdown)
    assert refused(doc)


def test_a_negation_next_to_a_word_read_both_ways_is_read_once(seed_doc, manifests_loaded):
    """ "quite*ly*" is read glued and split; the "not" beside it is read once, not twice
    (which would read as no negation at all)."""
    control, _ = with_paragraph(seed_doc, "did not\u2014quite\u2014reach a 30.7%")
    assert refused(control)
    doc, markdown = with_paragraph(seed_doc, "did not\u2014quite*ly*\u2014reach a 30.7%")
    assert "did not\u2014quite<em>ly</em>\u2014reach" in to_html(markdown)
    assert refused(doc)
