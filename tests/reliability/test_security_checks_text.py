"""The checks read untrusted text (a read key may POST any story to /api/v1/checks/, and a
claim's text reaches every story citing it), so every text function is linear in its input:
a run of any punctuation mark or digit, nested brackets or a mix cost no more than ten
times the text, never its square.

Work is compared, not timed against a limit: each function's CPU time (the test's thread's
own, ``time.thread_time``: neither other processes nor other threads count) on a
40,000-character text against a small multiple of it on 4,000 characters of the same
pattern (linear: about 10x; the quadratic patterns were 100x and took seconds). The work
is in regular expressions, where no count of calls would see a backtracking match's
steps, so it is measured: the best of up to five runs of each, and a generous ratio.
"""

import copy
import json
import re
import string
import time

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from newsroom.infra.jsondoc import MAX_TEXT
from stories import desk
from stories import figures as F
from stories import links as L
from stories import readable as R
from stories import text as T
from stories.checks import run_checks
from tests.syndication.helpers import client_for

FUNCTIONS = {
    "plain": R.plain,
    "unlink": L.unlink,
    "sentences": T.sentences,
    "words": T.words,
    "content_tokens": T.content_tokens,
    "figures": F.figures,
    "ranges": F.ranges,
    "names": T.names,
    "name_key": T.name_key,
    "name_stated": lambda s: T.name_stated(s, " " + T.name_key(s) + " "),
}
SMALL, LARGE = 4_000, 40_000
CHARS = string.punctuation + string.digits


def _work(run) -> float:
    """The CPU time ``run()`` takes in this thread."""
    start = time.thread_time()
    run()
    return time.thread_time() - start


def grows_linearly(small, large, ratio: float = 40, tries: int = 5) -> tuple[bool, float, float]:
    """Whether ``large()`` (n times the input of ``small()``, n well under ``ratio``) costs
    less than ``ratio`` times ``small()`` (plus 50 ms): the best of up to ``tries`` runs of
    each, stopping at the first that shows it. Returns (it does, best small, best large)."""
    t_small = t_large = float("inf")
    for _ in range(tries):
        t_small, t_large = min(t_small, _work(small)), min(t_large, _work(large))
        if t_large < ratio * t_small + 0.05:
            return True, t_small, t_large
    return False, t_small, t_large


def assert_linear(make) -> None:
    """``make(n)``: an n-character text. Each function's work grows at most ~linearly."""
    small, large = make(SMALL), make(LARGE)
    for name, fn in FUNCTIONS.items():
        linear, t_small, t_large = grows_linearly(lambda fn=fn: fn(small), lambda fn=fn: fn(large))
        assert linear, f"{name} took {t_large:.3f}s on {LARGE} characters, {t_small:.4f}s on {SMALL}: {large[:40]!r}..."


def repeat(unit: str, prefix: str = "", suffix: str = ""):
    return lambda n: prefix + (unit * (n // len(unit) + 1))[:n] + suffix


@pytest.mark.parametrize("char", list(CHARS))
def test_a_run_of_one_character_is_linear(char):
    assert_linear(repeat(char, suffix="a"))
    assert_linear(repeat(char, prefix="1", suffix="x"))
    assert_linear(repeat(char, prefix="A", suffix="A"))


@pytest.mark.parametrize(
    "unit",
    [
        *(
            "[",
            "[](",
            "[a](",
            "![",
            "](",
            "1A",
            "A",
            "aA",
            "a-",
            "A-",
            "1,",
            "1,000,",
            "1.",
            ". ",
            '."',
            "Aa b ",
            "A0 ",
        ),
        # a link's target: a long destination, an unclosed title or angle bracket before each next link
        *("[a](xx", '[a](x "', "[a](x '", "[a](<", "[a](x \"[b](y '", "[a]( ", ".1", "/1", "1\u2030", "\u2460"),
        # a target's parentheses, escapes, code, blank lines and link reference definitions
        *("[a](x(", "[a](x()", "[a](x (", "\\[a](x)", "[\\", "\\", "`[a](x)", "[a](x)`a", "[a](x)\n\n"),
        *("[a]: x\n", "\n[a]: x '", "[a]: x\n\n", "]: ", "[a]:", "x[a](x)", "[a][a](x)"),
    ],
)
def test_repeated_patterns_are_linear(unit):
    assert_linear(repeat(unit, suffix="a"))


def test_nested_brackets_are_linear():
    assert_linear(lambda n: "[" * (n // 2) + "]" * (n // 2))
    assert_linear(lambda n: "[(" * (n // 4) + ")]" * (n // 4))
    assert_linear(lambda n: "1" + "A" * n)
    assert_linear(lambda n: "[a](" + "x" * n + " y)")
    assert_linear(lambda n: "[a](x" * (n // 5) + ")")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    unit=st.text(alphabet=CHARS + "aAzZ \n", min_size=1, max_size=6),
    prefix=st.text(alphabet=CHARS + "aA ", max_size=3),
    suffix=st.text(alphabet=CHARS + "aA ", max_size=3),
)
def test_adversarial_mixes_are_linear(unit, prefix, suffix):
    assert_linear(repeat(unit, prefix, suffix))


# The link pattern, as a regex that retries from every "[": ``unlink`` must give what it
# gives, in linear time, in a text with no code, blank line or definition (which it reads
# otherwise). The innermost brackets make a link; its target is a destination (bare, with
# parentheses only balanced, one deep; or in angle brackets) and an optional title, which
# is read after the link's text; anything else makes no link (read as written).
LINK = re.compile(
    r"(!?)\[([^\[\]]*)\]\([ \t]*\n?[ \t]*"
    r"(?:<[^<>\n]*>|(?:[^\s<()]|\([^\s()]*\))*)"
    r"""(?:(?:[ \t]+\n?|\n)[ \t]*(?:"([^"]*)"|'([^']*)'|\(([^()]*)\)))?[ \t]*\n?[ \t]*\)"""
)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="[]()!a \n\"'<>", max_size=40))
def test_unlink_does_what_the_link_regex_does(markdown):
    assume(re.search(r"\n[ \t]*\n|    ", markdown) is None)

    def shown(m: re.Match) -> str:
        title = m[3] or m[4] or m[5]
        return "" if m[1] else m[2] + (f" {title}" if title else "")

    assert L.unlink(markdown) == LINK.sub(shown, markdown)


# (with today's sign rule: a hyphen glues the digits only to a word before it)
OLD_FIGURE = re.compile(
    r"(?<![\w.])(?<![\w.\-/][-\u2212])(?:(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?|(\.\d+))"
    r"(?:\s?(%|\u2030|\u2031|percent\b|per cent\b|per mille\b|permille\b)|(k|K|M|B|bn|x|X)(?![A-Za-z0-9]))?"
    r"(?![\w.]*\d)(?![A-Za-z])"
)
OLD_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2,}[a-z]")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789,.%\u2030kKMBbnxX _-/aAp ercentml", max_size=30))
def test_the_figure_pattern_matches_what_it_matched(text):
    assert [m.group(0) for m in F._FIGURE.finditer(text)] == [m.group(0) for m in OLD_FIGURE.finditer(text)]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="aAbBZz1", max_size=20))
def test_the_camel_case_pattern_finds_what_it_found(token):
    assert bool(T._CAMEL.search(token)) == bool(OLD_CAMEL.search(token))


# ------------------------------------------------------------------- a whole story


def _story(seed_doc, text: str) -> dict:
    """The seed with ``text`` in its first section's first paragraphs, each at most as long
    as a string may be."""
    doc = copy.deepcopy(seed_doc)
    paragraphs = doc["sections"][0]["paragraphs"]
    chunk = MAX_TEXT - 10
    for i in range(0, len(text), chunk):
        if i // chunk < len(paragraphs):
            paragraphs[i // chunk]["markdown"] = text[i : i + chunk]
    return desk.validate(doc)


def _room(seed_doc) -> int:
    """How much of the largest story the first section's first two paragraphs may take."""
    first_two = sum(len(p["markdown"]) for p in seed_doc["sections"][0]["paragraphs"][:2])
    total = sum(len(f["text"]) for f in seed_doc["key_facts"]) + sum(
        len(p["markdown"]) for s in seed_doc["sections"] for p in s["paragraphs"]
    )
    return desk.MAX_STORY_TEXT - (total - first_two)


@pytest.mark.django_db
@pytest.mark.parametrize("unit", ["[", "1", "1 ", "[](", "1.5% ", "Aa b ", "A0 ", "Aa-B ", "from 1 to 2 ", "!", "."])
def test_a_story_of_the_largest_accepted_size_is_checked_quickly(manifests_loaded, seed_doc, unit):
    """The largest story desk/1 accepts, its first paragraph one pattern repeated: checked
    with work linear in its text (at most 40 times the check of a story whose paragraph is a
    twentieth of it), with a rubric of bounded size."""
    room = _room(seed_doc)
    big = _story(seed_doc, repeat(unit)(room))
    normal = _story(seed_doc, repeat(unit)(room // 20))
    run_checks(normal)  # warm up
    rubrics = []
    linear, t_normal, t_big = grows_linearly(lambda: run_checks(normal), lambda: rubrics.append(run_checks(big)))
    assert linear, f"{t_big:.2f}s (a twentieth of it: {t_normal:.3f}s)"
    assert len(json.dumps(rubrics[-1])) < 200_000


@pytest.mark.django_db
def test_a_story_longer_than_that_is_not_well_formed(manifests_loaded, seed_doc):
    doc = copy.deepcopy(seed_doc)
    for paragraph in doc["sections"][0]["paragraphs"][:2]:
        paragraph["markdown"] = "word " * (MAX_TEXT // 5)
    with pytest.raises(desk.DeskError) as exc:
        desk.validate(doc)
    assert exc.value.path == "sections"
    assert f"at most {desk.MAX_STORY_TEXT}" in exc.value.message


@pytest.mark.django_db
def test_the_checks_api_answers_a_paragraph_of_brackets_quickly(manifests_loaded, seed_doc, read_key):
    """A read key posting a paragraph of 99,990 "[" tied a worker up for 30 seconds: the
    answer's work is linear in the paragraph (99,990 "[" cost at most 40 times 9,999)."""
    api = client_for(read_key[1])

    def post(n):
        doc = copy.deepcopy(seed_doc)
        doc["sections"] = [{"heading": "x", "paragraphs": [{"markdown": "[" * n, "cites": []}]}]
        doc["key_facts"] = []
        response = api.post("/api/v1/checks/", doc, format="json")
        assert response.status_code == 200, response.content[:300]
        assert response.json()["passed"] is False

    linear, t_small, t_large = grows_linearly(lambda: post(9_999), lambda: post(99_990))
    assert linear, f"{t_large:.2f}s for 99,990 characters, {t_small:.3f}s for 9,999"
