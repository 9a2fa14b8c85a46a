"""How the checks read a text, held to the plain definitions of what they find.

``sentences``, ``figures``, ``ranges``, ``tokens_and_key`` and the number-word reader take
short cuts (a pattern the regex engine can skip to, a text's words found once, sentences
without number words answered at once); each is compared here with its plain definition on
texts built to meet the edges: closing marks after a sentence's end, figures at a text's
start or after a point, "from" in any case, number words with plural s's, non-ASCII letters.
"""

import itertools
import random
import re

import pytest

from stories import text as text_module
from stories.checks.meaning import numbers
from stories.checks.meaning.lexicon import lexicon
from stories.figures import _FIGURE, _figure_matches, figures, ranges
from stories.text import (
    _TOKEN,
    CALENDAR,
    STOPWORDS,
    _distinctive_token,
    content_tokens,
    iter_sentences,
    name_key,
    names,
    sentences,
    tokens_and_key,
)

# The plain definitions.
SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)]*\s+(?=[\"'“‘(]*[A-Z0-9])")
FIGURE = re.compile(_FIGURE.pattern.removeprefix("(?=[\\d.])"))
RANGE = re.compile(r"\bfrom\s+(\S+)\s+to\s+(\S+)", re.IGNORECASE)


def plain_sentences(text):
    return [s.strip() for s in SENTENCE_END.split(text) if s.strip()]


def plain_names(text):
    """Every token read in turn: runs of capitalised words, and distinctive tokens."""
    found = []

    def close(run, first):
        if len(run) >= 2 or (len(run) == 1 and not first):
            found.append(" ".join(run))

    for sentence in plain_sentences(text):
        run, first = [], False
        for m in _TOKEN.finditer(sentence):
            token = m.group(0)
            if token.isalpha() and token.islower():
                close(run, first)
                run = []
            elif _distinctive_token(token):
                close(run, first)
                run = []
                found.append(token)
            elif re.match(r"^[A-Z][a-z]+$", token) and token.lower() not in STOPWORDS | CALENDAR:
                if not run:
                    before = sentence[: m.start()].rstrip()
                    first = not before or before[-1] in ':;—–"“‘('
                run.append(token)
            else:
                close(run, first)
                run = []
        close(run, first)
    return list(dict.fromkeys(found))


def plain_ranges(text):
    """Each "from X to Y" of the plain pattern whose ends are one figure each."""
    out = []
    for m in RANGE.finditer(text):
        low, high = figures(m.group(1)), figures(m.group(2))
        if len(low) == 1 and len(high) == 1:
            out.append((f"from {low[0][0]} to {high[0][0]}", low[0][1], high[0][1]))
    return out


def plain_number_words(text):
    """Whether the number-word reader has any word to read: a lexicon word, or one the
    parser reads (``_numeric``), among the text's words."""
    words = [w.lower() for w in numbers._WORDISH.findall(text.replace("-", " "))]
    return any(w in lexicon().number_words or numbers._numeric(w) for w in words)


PIECES = [
    "Scores rose",
    "to 30.7%.",
    "It fell.",
    '"No."',
    "(Yes!)",
    "’Quoted?’",
    "a.b",
    "3.",
    ".5%",
    "v1.2.3",
    "From 68.5% to 74.3%",
    "FROM 5% TO 7%",
    "from x to y",
    "ones",
    "tenss",
    "oss",
    "Half",
    "twenty-one",
    "boss",
    "hundreds",
    "—Invisible Technologies",
    "the Muon optimizer",
    "the Muon-optimizer",
    "-led Invisible",
    "led- (Meta",
    "on Monday: Google",
    "Kelvin \u212a",
    "straße",
    "İstanbul",
    "ProgAgent-14B",
    "!.",
    "",
    "\n",
    "  ",
]


def texts(count=3000, seed=11):
    rnd = random.Random(seed)
    out = [" ".join(p) for p in itertools.permutations(PIECES[:6], 3)]
    for _ in range(count):
        sep = rnd.choice([" ", "", "  ", "\n", ". ", "-"])
        out.append(sep.join(rnd.choice(PIECES) for _ in range(rnd.randrange(1, 9))))
    return out


def test_sentences_split_as_the_plain_pattern_does():
    for text in texts():
        assert sentences(text) == plain_sentences(text), text
        assert list(iter_sentences(text)) == plain_sentences(text), text


def test_a_sentence_keeps_its_mark_and_drops_the_closing_marks_after_it():
    assert sentences('He said "no." Then it rose!) Again') == ['He said "no.', "Then it rose!", "Again"]
    assert sentences("It fell!. Then rose") == ["It fell!.", "Then rose"]


PLAIN_PIECES = ["model", "scored", "70.3%", "the", "rose", "on", "é", "straße", "'", "(", ":", ".", "1,000"]
RISKY_PIECES = ["gpt4", "bench-2", "x-9", "a1", "-1", "3-8b", "Éric", "ǅ", "İ", "Scores", "Qwen3", "GSM8K", "the Muon"]


def test_a_text_seen_to_name_nothing_names_nothing_when_read():
    """``names`` answers at once for a text with no capital after its first character and no
    digit after a letter or hyphen; on texts mostly lowercase, every answer is the plain
    reading's, and the short cut is taken for many of them."""
    rnd, taken = random.Random(5), 0
    for _ in range(4000):
        pieces = [rnd.choice(PLAIN_PIECES if rnd.random() < 0.9 else RISKY_PIECES) for _ in range(6)]
        text = rnd.choice([" ", "", ". "]).join(pieces)
        taken += text_module._nameless(text)
        assert names(text) == plain_names(text), text
    assert taken > 500
    assert names("Scores rose 70.3% on gpt4") == ["gpt4"]
    assert names("Scores rose for the bench-2 suite") == ["bench-2"]


def test_figures_and_ranges_are_those_of_the_plain_patterns():
    for text in texts():
        plain = [m.group(0) for m in FIGURE.finditer(text)]
        assert [written.lstrip("-\u2212") for written, _ in figures(text)] == [p.strip() for p in plain], text
        assert ranges(text) == plain_ranges(text), text


def test_figures_at_the_start_and_after_a_point():
    assert figures(".5% of 3 runs") == [(".5%", "0.5%"), ("3", "3")]
    assert figures("7") == [("7", "7")]
    assert figures("no figure here.") == []
    assert ranges("Scores went FROM 5% TO 7%") == [("from 5% to 7%", "5%", "7%")]


FIGURE_EDGES = [*'0123456789.,%-/ aKkMBx_\u2212("\n\u2030\u0663', "percent", "per cent", " per mille", "bn", "Qwen3-8B"]


def test_the_figures_found_from_digit_to_digit_are_those_found_at_every_character():
    """``_figure_matches`` tries the pattern only at digits (and a point before one) that
    follow no word character or point, skipping the rest of a word after a failed try:
    the matches are those ``finditer`` finds trying every character."""
    rng = random.Random(7)
    for _ in range(20_000):
        text = "".join(rng.choice(FIGURE_EDGES) for _ in range(rng.randint(0, 24)))
        expected = [(m.span(), m.groups()) for m in _FIGURE.finditer(text)]
        assert [(m.span(), m.groups()) for m in _figure_matches(text)] == expected, text


def test_a_failed_try_skips_the_rest_of_its_word_and_no_figure_in_the_next():
    assert figures("GSM8K 12 v1.2.3 .5 a.5 Qwen3-8B -7%") == [("12", "12"), (".5", "0.5"), ("-7%", "-7%")]
    assert figures("x" * 50 + "1" * 50 + " 3") == [("3", "3")]


def test_figures_in_other_scripts_digits_are_made_canonical_in_ascii():
    assert figures("١٢.٥% and .٨") == [("١٢.٥%", "12.5%"), (".٨", "0.8")]
    assert figures("１２.５０%") == [("１２.５０%", "12.5%")]
    assert figures("٣٠٧‰") == [("٣٠٧‰", "30.7%")]


def test_a_texts_words_are_found_once_for_its_content_words_and_name_key():
    for text in texts():
        assert tokens_and_key(text) == (content_tokens(text), name_key(text)), text


def test_a_text_without_number_words_is_answered_at_once_and_the_same():
    for text in texts():
        if not plain_number_words(text):
            assert numbers._word_figures(text) == (), text
        if text.isascii():
            assert numbers._no_number_words(text.lower()) == (not plain_number_words(text)), text


@pytest.mark.parametrize(
    "text,expected",
    [
        ("tenss of runs", (("tenss", "10"),)),
        ("Half the runs", (("Half", "50%"),)),
        ("the boss left", ()),
    ],
)
def test_number_words_with_plural_s_and_capitals(text, expected):
    assert numbers._word_figures(text) == expected


def test_names_are_those_of_reading_every_token_in_turn():
    for text in texts():
        assert names(text) == plain_names(text), text


def test_capitalised_words_make_names_as_before():
    assert names("We met Invisible Technologies and the Muon optimizer.") == ["Invisible Technologies", "Muon"]
    assert names("Scores rose. Then Meta (Llama) won") == ["Meta Llama"]
    assert names("On Monday, GSM8K and LOCA-bench: Invisible") == ["GSM8K", "LOCA-bench"]
