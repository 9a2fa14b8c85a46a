"""Links are read as the page shows them. A link's text is read where the page shows a link,
and the brackets, parentheses and target are read where the page shows them as written
(code, escaped brackets, targets that make no link); a link reference definition, which the
page does not show, is read nowhere. So a negation or a figure readers see cannot be hidden
in a link's syntax, and hidden text cannot make a repeat look new."""

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stories.checks import run_checks
from stories.fingerprints import story_text
from stories.links import undefine, unlink
from stories.markup import to_text
from stories.readable import plain
from stories.text import words

pytestmark = pytest.mark.django_db

SEED = "reached a 30.7%"  # in sections[2].paragraphs[1]: its cited claims state 30.7%, 215 and four

# Ways of writing "did not reach" with a link's syntax that readers read as those words.
NEGATIONS = {
    "a link inside brackets that make none": "did [n[ot](https://example.org) reach",
    "a link whose target has parentheses": "did [n](https://example.org/a_(b))ot reach",
    "a link whose target has brackets": "did [n](https://example.org/[b])ot reach",
    "a link's target in a code span": "did `[reach](not)` reach",
    "a link in an indented code block": "did\n\n    [reach](not)\n\nreach",
    "a link's text beside an emphasis mark": "did [n](https://example.org)_[ot](https://example.org)_ reach",
    "an escaped image mark before a link": "did \\![not](https://example.org) reach",
    "an escaped bracket inside a link's text": "did [\\[n](https://example.org)ot reach",
    "a link after a label": "[x]: https://example.org\n\ndid [x][n](https://example.org)ot reach",
}


def with_paragraph(seed_doc, written: str) -> dict:
    """The seed story with "reached a 30.7%" written otherwise; a definition before a blank
    line goes to the paragraph's start, where it is one."""
    doc = copy.deepcopy(seed_doc)
    paragraph = doc["sections"][2]["paragraphs"][1]
    assert SEED in paragraph["markdown"]
    definition, _, written = written.rpartition("\n\n") if written.startswith("[x]:") else ("", "", written)
    markdown = paragraph["markdown"].replace(SEED, written.removesuffix(" reach") + " reach a 30.7%")
    paragraph["markdown"] = f"{definition}\n{markdown}" if definition else markdown
    return doc


def contradictions(doc) -> list[tuple]:
    [criterion] = [c for c in run_checks(doc)["criteria"] if c["name"] == "claims_support"]
    return [(f["path"], f.get("kind")) for f in criterion["findings"] if f["severity"] == "error"]


def refused(doc) -> bool:
    return not next(c for c in run_checks(doc)["criteria"] if c["name"] == "claims_support")["passed"]


@pytest.mark.parametrize("written", list(NEGATIONS.values()), ids=list(NEGATIONS))
def test_readers_and_the_checks_read_the_negation(written):
    assert "not" in words(to_text(written)), to_text(written)
    assert "not" in words(plain(written)), plain(written)


@pytest.mark.parametrize("written", list(NEGATIONS.values()), ids=list(NEGATIONS))
def test_the_negation_is_found_as_the_plainly_written_one_is(seed_doc, manifests_loaded, written):
    expected = contradictions(with_paragraph(seed_doc, "did not reach"))
    assert expected
    assert contradictions(with_paragraph(seed_doc, written)) == expected


def test_the_same_paragraphs_with_links_that_hide_nothing_pass(seed_doc, manifests_loaded):
    assert not refused(with_paragraph(seed_doc, "[reached](https://example.org/a_(b) 'the run') a 30.7%"))
    assert not refused(with_paragraph(seed_doc, "reached a [30.7%](https://example.org) with `code`"))


def test_a_link_is_read_once_where_no_code_can_show_it_as_written():
    assert plain("**Bold** and [a link](https://example.org) with `code`.") == "Bold and a link with code."
    assert plain("see [the report](https://example.org/a_(b)) now") == "see the report now"
    assert plain("see the [report](<https://example.org/a b> 'in full')") == "see the report in full"


# ---------------------------------------------------------------- link reference definitions


def test_a_definition_is_read_nowhere():
    text = '[1]: https://example.org "99.9% of runs"\n[2]: <https://example.org/a b>\n\nThe run [reached][1] 30.7%.'
    assert to_text(text) == "The run reached 30.7%."
    assert undefine(text) == "\nThe run [reached][1] 30.7%."
    assert "99.9%" not in plain(text) and "reached" in words(plain(text))


@pytest.mark.parametrize(
    "text",
    [
        "The run reached 30.7%.\n[1]: https://example.org '99.9%'",  # inside the paragraph: shown
        "[1]:\nhttps://example.org '99.9%'\n\nThe run",  # over two lines: read as written
        "    [1]: https://example.org '99.9%'\n\nThe run",  # indented four spaces: code
        "```\n[1]: https://example.org '99.9%'\n```",  # in a fence: code
        "[1]: https://example.org '99.9%' and more",  # more after the title: no definition
    ],
)
def test_text_that_is_no_definition_is_read_as_readers_read_it(text):
    assert set(words(to_text(text))) <= set(words(plain(text)))
    assert "99" in words(plain(text))


def test_a_figure_in_a_definition_is_not_checked_and_one_in_the_paragraph_is(seed_doc, manifests_loaded):
    def starting_with(text: str) -> tuple[dict, str]:
        doc = copy.deepcopy(seed_doc)
        paragraph = doc["sections"][2]["paragraphs"][1]
        paragraph["markdown"] = text + paragraph["markdown"]
        return doc, paragraph["markdown"]

    hidden, markdown = starting_with("[x]: https://example.org '99.9% of runs'\n")
    assert "99.9%" not in to_text(markdown)
    assert not refused(hidden)
    shown, markdown = starting_with("The results.\n[x]: https://example.org '99.9% of runs'\n")
    assert "99.9%" in to_text(markdown)
    assert refused(shown)


def test_hidden_definitions_do_not_change_a_storys_words(seed_doc):
    padded = copy.deepcopy(seed_doc)
    for s in padded["sections"]:
        for j, p in enumerate(s["paragraphs"]):
            p["markdown"] = (
                f"[pad{j}]: https://example.org/{j} 'wholly other words {j} for every paragraph'\n" + p["markdown"]
            )
    assert story_text(padded) == story_text(seed_doc)


# ---------------------------------------------------------------- never less than readers read

FRAGMENTS = [
    *("!", "![a](p)", "[n](x)", "ot", "#", "### ", "1.", "30.7%", "[a]", "[b c]", "[", "]", ": ", ":"),
    *("/u", "<x y>", "<", ">", " ", "\n", "\n\n", '"t w"', "'q'", "(p)", "(", ")", "word", "   "),
    *("\\", "> ", "- ", "    ", "===", "\t", '"', "'", "`", "[n](x(y))", "*", "_", "~~", "```"),
]


@settings(max_examples=1500, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=14))
def test_every_word_readers_read_is_read(parts):
    """Whatever the brackets, parentheses, escapes, emphasis, code and definitions, each word
    the renderer shows is among the words the checks read."""
    text = "".join(parts)
    assert set(words(to_text(text))) <= set(words(plain(text))), (to_text(text), plain(text))


def test_unlink_reads_a_word_with_a_link_in_code_both_ways():
    assert unlink("did `[n](x)ot` reach") == "did `not` `[n](x)ot` reach"
    assert unlink("did [n](x)ot reach, then `code`") == "did not reach, then `code`"
