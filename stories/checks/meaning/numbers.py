"""Number words as figures: "four" is 4, "twenty-one" 21, "a dozen" 12, "half" 50%,
"twice" 2x, "zero" and "none" 0; followed by "percent" or "per cent", a number is a
percentage, as in digits: "fifteen percent" is 15%; followed by "per mille", a tenth of
one: "three hundred seven per mille" is 30.7%.

Cardinal words are read by ``text2num`` (its ``alpha2digit``, a compiled parser that needs
no download); the few words it leaves alone ("half", "twice", "dozen", "none") come from
the lexicon's ``number_words``. "one" is not a figure ("one of the", "no one"), nor are
ordinals ("first", "second").
"""

from __future__ import annotations

import re
import string
from functools import lru_cache

from text_to_num import alpha2digit

from stories.figures import figures

from .lexicon import lexicon

# Words only: the parser's output is compared with its input word by word.
_WORDISH = re.compile(r"[A-Za-z]+|\d[\d,.]*%?")
_TARGET = re.compile(r"[A-Za-z]+|\d[\d,.]*%?[A-Za-z]*")  # "2nd": an ordinal, one token
MAX_RUN = 12  # words of one number ("one hundred and twenty-five thousand ...")
CHUNK = 48
MAX_TEXT = 20_000  # longer texts are read up to here: no prose sentence is longer


def _digit_figure(token: str) -> str | None:
    found = figures(token)
    return found[0][1] if len(found) == 1 else None


CACHED_TEXT = 2000  # longer texts are not kept in the cache: a hostile story must not fill it


def word_figures(text: str) -> tuple[tuple[str, str], ...]:
    """((as written, canonical figure), ...) for each number written in words."""
    return _cached_word_figures(text) if len(text) <= CACHED_TEXT else _word_figures(text)


@lru_cache(maxsize=8192)
def _cached_word_figures(text: str) -> tuple[tuple[str, str], ...]:
    return _word_figures(text)


def _word_figures(text: str) -> tuple[tuple[str, str], ...]:
    text = text[:MAX_TEXT]
    specials = lexicon().number_words
    if text.isascii() and _no_number_words(text.lower()):
        return ()  # most sentences, looked at in C
    out: list[tuple[str, str]] = []
    source = _WORDISH.findall(text.replace("-", " "))
    numeric = []
    for token in source:
        low = token.lower()
        canon = specials.get(low)
        if canon is not None:
            out.append((token, canon))
        numeric.append(_numeric(low))
    if not any(numeric):
        return tuple(out)
    # The parser's time grows faster than its input on long runs of number words: it reads
    # chunks of ``CHUNK`` words (a number longer than ``MAX_RUN`` words is not prose anyway),
    # and only those with a number word, the others it would give back unchanged.
    for begin in range(0, len(source), CHUNK):
        if any(numeric[begin : begin + CHUNK]):
            out += _parse_chunk(source[begin : begin + CHUNK], specials)
    return tuple(out)


# The words the parser reads as numbers, or as parts of one ("o eight" is 08), with their
# plurals ("hundreds", "thirds"): every number it reads has one ("and", "point" and "a" join
# numbers but start none), so a text with none of them is not given to it at all
# (tests/stories/test_checks_meaning_support.py holds the parser to this list).
NUMBER_WORDS = frozenset(
    [
        "zero",
        "o",
        "nought",
        "one",
        "first",
        "oneth",
        "two",
        "second",
        "three",
        "third",
        "four",
        "fourth",
        "five",
        "fifth",
        "six",
        "sixth",
        "seven",
        "seventh",
        "eight",
        "eighth",
        "nine",
        "ninth",
        "ten",
        "tenth",
        "eleven",
        "eleventh",
        "twelve",
        "twelfth",
        "thirteen",
        "thirteenth",
        "fourteen",
        "fourteenth",
        "fifteen",
        "fifteenth",
        "sixteen",
        "sixteenth",
        "seventeen",
        "seventeenth",
        "eighteen",
        "eighteenth",
        "nineteen",
        "nineteenth",
        "twenty",
        "twentieth",
        "thirty",
        "thirtieth",
        "forty",
        "fourty",
        "fortieth",
        "fourtieth",
        "fifty",
        "fiftieth",
        "sixty",
        "sixteeth",
        "seventy",
        "seventieth",
        "eighty",
        "eightieth",
        "ninety",
        "ninetieth",
        "hundred",
        "hundredth",
        "thousand",
        "thousandth",
        "million",
        "millionth",
        "billion",
        "billionth",
    ]
)


# Each byte of an ASCII letter as itself, lowercased; every other byte a space: the words of
# a translated ASCII text are its runs of letters (as ``_WORDISH`` reads them).
_LETTER_BYTES = bytes(ord(chr(c).lower()) if chr(c) in string.ascii_letters else 0x20 for c in range(256))


@lru_cache(maxsize=1)
def _number_forms() -> frozenset:
    """The words that make a text's number words worth reading: the lexicon's
    (``number_words``), and the parser's with or without a plural s (``_numeric``)."""
    return frozenset(lexicon().number_words).union(NUMBER_WORDS, (word + "s" for word in NUMBER_WORDS))


def _no_number_words(lowered: str) -> bool:
    """Whether the lowercased ASCII text has no number word: its words (its runs of letters,
    as ``_WORDISH`` reads them) meet none of ``_number_forms``, nor, ending in "ss", are
    number words with more than one s (``_numeric``)."""
    words = lowered.encode("ascii").translate(_LETTER_BYTES).decode("ascii").split()
    if not _number_forms().isdisjoint(words):
        return False
    return "ss" not in lowered or not any(_numeric(word) for word in words if word.endswith("ss"))


def _numeric(low: str) -> bool:
    """Whether the parser may read the lowercased word as a number or part of one (a figure
    in digits never is)."""
    return low.rstrip("s") in NUMBER_WORDS


def _percentage_words(source: list[str], i: int) -> tuple[int, str]:
    """How many of the words from ``source[i]`` say "percent" or "per mille" ("percent",
    "per cent", "per mille", "permille", in any case), and which of the two: (0, "") when
    they say neither."""
    word = source[i].lower() if i < len(source) else ""
    if word in ("percent", "permille"):
        return 1, word
    following = source[i + 1].lower() if word == "per" and i + 1 < len(source) else ""
    if following in ("cent", "mille"):
        return 2, f"per {following}"
    return 0, ""


def _parse_chunk(source: list[str], specials: dict) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    joined = " ".join(source)
    try:
        converted = alpha2digit(joined, "en", threshold=0)
    except Exception:  # a parser failure on odd text means no number words
        return out
    if converted == joined:  # nothing converted: the walk below would find every token equal
        return out
    target = _TARGET.findall(converted)
    # Walk both token lists: the parser replaces a run of words with one digit token.
    i = j = 0
    while i < len(source) and j < len(target):
        if source[i] == target[j]:
            i += 1
            j += 1
            continue
        canon = _digit_figure(target[j])
        nxt = target[j + 1] if j + 1 < len(target) else None
        start = i
        while i < len(source) and source[i] != nxt:
            i += 1
        written = " ".join(source[start:i]) or target[j]
        unit, said = _percentage_words(source, i) if i > start else (0, "")
        if unit:  # "fifteen percent" is 15%, as "15 percent" is, and "307 per mille" 30.7%
            canon = _digit_figure(f"{target[j]} {said}")
            written = " ".join(source[start : i + unit])
        if canon is not None and canon != "1" and i - start <= MAX_RUN and specials.get(written.lower()) is None:
            out.append((written, canon))
        j += 1
    return out
