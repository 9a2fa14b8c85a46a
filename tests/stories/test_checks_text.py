"""What ``claims_support`` counts as a figure, a name and a backed sentence."""

import re
import sys

import pytest

from stories.figures import figures, ranges
from stories.readable import plain
from stories.text import content_tokens, name_key, name_stated, names, sentences


@pytest.mark.parametrize(
    "text, expected",
    [
        ("reached 30.7% on the benchmark", ["30.7%"]),
        ("at a 64k-token state", ["64k"]),
        ("a 14B model and a 3bn budget, 10x faster", ["14b", "3b", "10x"]),
        ("improving 31.85 points", ["31.85"]),
        ("rose from 68.5% to 74.3%", ["68.5%", "74.3%"]),
        ("1,000 runs at 30.70 % and 12 percent", ["1000", "30.7%", "12%"]),
        ("Qwen3-8B beat ProgAgent-14B on GSM8K", []),
        ("trained on only 215 tasks in 2026.", ["215", "2026"]),
    ],
)
def test_figures_are_found_and_made_canonical(text, expected):
    assert [canon for _, canon in figures(text)] == expected


def test_names_are_distinctive_tokens_and_proper_names():
    text = (
        "Invisible Technologies says so. ProgAgent-14B beat Qwen3-8B on LOCA-bench, GSM8K and MMLU, "
        "with the Muon optimizer and IFEval scores. First, nothing else."
    )
    assert names(text) == [
        "Invisible Technologies",
        "ProgAgent-14B",
        "Qwen3-8B",
        "LOCA-bench",
        "GSM8K",
        "MMLU",
        "Muon",
        "IFEval",
    ]


def test_capitals_that_open_a_clause_or_name_a_day_are_not_names():
    assert names("The post makes two claims: Second, it ships on Monday in October.") == []
    assert names('He said: "Results matter." Then the Muon optimizer won.') == ["Muon"]


def test_names_are_matched_as_whole_words_ignoring_case_and_hyphens():
    haystack = " " + name_key("ProgAgent-14B reached 30.7% on LOCA-bench | invisible-technologies-blog | LLM") + " "
    assert name_stated("LOCA-bench", haystack) and name_stated("Invisible Technologies", haystack)
    assert name_stated("LLMs", haystack)
    assert not name_stated("ProgAgent-7B", haystack) and not name_stated("SWE-bench", haystack)


def test_ranges_are_read_in_order():
    assert ranges("rose from 68.5% to 74.3%, and from about 3 to 4") == [("from 68.5% to 74.3%", "68.5%", "74.3%")]


def test_sentences_do_not_split_on_decimals():
    assert sentences("It reached 30.7% on it. Then 31.85 points! Done") == [
        "It reached 30.7% on it.",
        "Then 31.85 points!",
        "Done",
    ]


def test_content_tokens_stem_and_drop_stopwords():
    assert content_tokens("The model introduced tools") == content_tokens("models introduces the tool")
    assert "the" not in content_tokens("the studies") and "study" in content_tokens("the studies")


def test_plain_keeps_link_text_and_drops_marks():
    assert plain("**Bold** and [a link](https://example.org) with `code`") == "Bold and a link with code"


def test_plain_makes_each_run_of_whitespace_one_space_as_the_regex_does():
    """Every character ``\\s`` matches (Unicode's spaces, the separators \\x1c to \\x1f) is
    whitespace to ``str.split``, and no other."""
    spaces = re.compile(r"\s+")
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    assert "".join(re.findall(r"\s", every)) == "".join(c for c in every if c.isspace())
    for text in ["  a\u00a0\u2003b\x1c c\n\n", "\u3000x\u2028y\u0085", "", " \t ", "a  b   c"]:
        assert plain(text) == spaces.sub(" ", text).strip()
