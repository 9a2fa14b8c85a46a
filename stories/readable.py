"""The words a reader reads in a story's Markdown: what the publish checks and the story
fingerprints read, so that no markup or invisible character can show readers a word the
checks do not see.

Pure functions of strings; each step reads the text once (the text is untrusted, and the
Markdown renderer itself is too slow for a hostile paragraph).
"""

from __future__ import annotations

import re
import sys
import unicodedata
from functools import lru_cache

from stories.links import undefine, unlink

# The characters that can make a paragraph's rendered words differ from its source: emphasis,
# code, strikethrough, links, headings, quotes, backslash escapes and character references
# ("n&zwj;ot"). An ASCII paragraph with none of them reads as it is written. Looked for one by
# one with ``in``: ten such scans take a tenth of the time of one search of a class.
_MARKUP = "*_`~#>[]&\\"
_MARKS = "*_`~#>[]"

# A character reference as CommonMark reads one (the semicolon is required: "&not reached"
# is shown as written), or a backslash-escaped punctuation mark, which is shown as that mark
# and so keeps a following "&" from starting a reference. Bounded repetitions: linear.
_REFERENCE = re.compile(r"\\[!-/:-@\[-`{-~]|&(?:#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));")

# A run of Markdown marks. Between two letters or digits, "_", "#" and ">" are never markup
# (CommonMark does not open or close "_" emphasis inside a word), so readers see them, and
# the word is two; "*", "~~", "`" and brackets (a link by reference) may be markup that
# readers do not see ("n*o*t" is "not") or characters that they do ("not*reached"). So may
# "_" once a link's text stands beside it: "[n](url)_[ot](url)_" shows "not". Each is one
# character class between one-character lookarounds: linear, and replaced in C.
_MARK_RUN = re.compile(r"[*_`~#>\[\]]+")
# Each starts with the letter before the run (kept by the replacement): a pattern that starts
# with a class is searched for that class, where a lookbehind would be tried at every place.
_INSIDE = r"([^\W_]){}(?=[^\W_])"
# The marks readers see between two letters, by (a link was read, a link definition is there).
_LITERAL_INSIDE = {
    (False, True): re.compile(_INSIDE.format(r"[_#>]+")),
    (False, False): re.compile(_INSIDE.format(r"[_#>\[\]]+")),  # no link definitions: brackets are seen
    (True, True): re.compile(_INSIDE.format(r"[#>]+")),
    (True, False): re.compile(_INSIDE.format(r"[#>\[\]]+")),
}
_AMBIGUOUS_INSIDE = re.compile(_INSIDE.format(r"[*_`~#>\[\]]+"))


def _reference(m: re.Match) -> str:
    decimal, hexadecimal, name = m.groups()
    if name is not None:
        from markdown_it.common.entities import entities

        return entities.get(name, m.group())
    if decimal is None and hexadecimal is None:
        # An escaped punctuation mark is shown as the mark ("215\\%" is "215%"); a Markdown
        # mark keeps its backslash, which keeps the words apart as the mark does.
        mark = m.group()[1]
        return m.group() if mark in _MARKS else mark
    from markdown_it.common.utils import isValidEntityCode

    code = int(decimal, 10) if decimal is not None else int(hexadecimal, 16)
    return chr(code) if isValidEntityCode(code) else "\ufffd"


def _both_readings(word: str) -> str:
    """A whitespace-free word with runs of marks inside it, each of which may be markup or
    characters, read each way a reader may read it, so that no markup can hide a word from
    the checks: the whole word glued ("n*o*t" reads "not", "1*1*.5%" "11.5%"), then split,
    only the letters and digits the marks join ("n o t", "1 1"). Runs written alike pair up
    and are read alike, but for one left over from an odd number of them, read apart first
    and then last ("n*o*t*x" shows "not*x": "not x"); where unlike runs mix, each (up to
    ``KINDS`` of them) is also read apart with the others glued, and glued with the others
    apart ("x_*n*ot" shows "x_not": "x not"). Each reading once: "not—quite*ly*" adds
    "quite ly", not a second "not", which would read as no negation at all."""
    out = [word]
    for m in _AMBIGUOUS_WORD.finditer(word):
        pieces = _MARK_SPLIT.split(m.group())  # letters and digits, a run of marks, letters and digits...
        runs = pieces[1::2]
        glued = [False] * len(runs)
        readings = {_joined(pieces, glued): False, _joined(pieces, [True] * len(runs)): True}  # glued: read above
        kinds = list(dict.fromkeys(runs))[:KINDS]
        for kind in kinds:
            alike = [run == kind for run in runs]
            if len(kinds) > 1:
                readings.setdefault(_joined(pieces, alike), True)
                readings.setdefault(_joined(pieces, [not a for a in alike]), True)
            if alike.count(True) % 2 and alike.count(True) > 1:
                for at in (alike.index(True), len(alike) - 1 - alike[::-1].index(True)):
                    readings.setdefault(_joined(pieces, [i == at for i in range(len(runs))]), True)
        out += (reading for reading, new in readings.items() if new)
    return " ".join(out)


def _joined(pieces: list[str], apart: list[bool]) -> str:
    """The letters and digits of ``pieces`` with the runs of marks between them gone: each
    run a space where ``apart`` says so, and nothing (it glues) elsewhere."""
    out = [pieces[0]]
    for i, space in enumerate(apart):
        out += (" " if space else "", pieces[2 * i + 2])
    return "".join(out)


_MARK_SPLIT = re.compile(r"([*_`~#>\[\]]+)")


# Letters and digits joined by runs of marks ("quite*ly*", "n*o*t"), with the decimals and
# percent sign of a figure they end in ("1*5.5%"): the part of a word that is read split.
# Classes that share no character, one after the other: linear.
_AMBIGUOUS_WORD = re.compile(r"[^\W_]+(?:[*_`~#>\[\]]+[^\W_]+)+(?:[.,][0-9]+)*%?")
KINDS = 4  # kinds of runs of marks in a word read apart from the others


@lru_cache(maxsize=2)
def _invisible(astral: bool) -> re.Pattern:
    """Every character a reader does not see as one: format characters (category Cf:
    zero-width space and joiners, soft hyphen, word joiner, byte order mark, bidirectional
    controls) and combining marks (Mn, Me), which are drawn on the letter before them. One
    character class of ranges, built once from the Unicode database, found and removed in a
    single scan; those of the Basic Multilingual Plane apart (``astral`` False), because a
    class of ranges above it is read range by range."""
    low, high = (0x10000, sys.maxunicode) if astral else (0, 0xFFFF)
    ranges, start = [], None
    for code in range(low, high + 2):
        hidden = code <= high and unicodedata.category(chr(code)) in ("Cf", "Mn", "Me")
        if hidden and start is None:
            start = code
        elif not hidden and start is not None:
            ranges.append(f"\\U{start:08x}-\\U{code - 1:08x}")
            start = None
    return re.compile("[" + "".join(ranges) + "]+")


# Letters drawn as ASCII ones in another width or style: fullwidth forms ("ｎｏｔ") and the
# mathematical alphanumerics ("𝐧𝐨𝐭"), read as the letters, digits and marks they are drawn as;
# and the Arabic and small percent signs ("215٪" is "215%").
_STYLED = re.compile("[\uff01-\uff5e\U0001d400-\U0001d7ff\u066a\ufe6a]+")
_WORD = re.compile(r"\w+")


# Percent signs of other scripts and sizes, read as the "%" they are drawn as (NFKC folds the
# small one, not the Arabic one).
_PERCENT = {0x066A: "%"}


def _styled(m: re.Match) -> str:
    return unicodedata.normalize("NFKC", m.group()).translate(_PERCENT)


@lru_cache(maxsize=1)
def _numerals() -> tuple[dict[int, str], re.Pattern]:
    """Digits drawn other than as digits, read as the number readers read: superscript and
    subscript digits ("⁹⁹%" is 99%), circled and parenthesised numbers ("⑳" is 20, "❾" 9);
    each such character (category No) whose compatibility form is its number's digits, or
    whose name says it is circled. A run of them after a letter, digit or percent sign is an
    exponent, an index or a note's mark ("10²", "CO₂", "30%¹") and is left as written. One
    class of them all, and the table, built once from the Unicode database."""
    table = {}
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        if unicodedata.category(char) != "No":
            continue
        value = unicodedata.numeric(char, None)
        if value is None or value < 0 or value != int(value):
            continue
        digits = str(int(value))
        if unicodedata.normalize("NFKC", char).strip("()., ") == digits or "CIRCLED" in unicodedata.name(char, ""):
            table[code] = digits
    return table, re.compile(r"(?<![\w%])[" + "".join(re.escape(chr(code)) for code in sorted(table)) + "]+")


def _numeral_run(m: re.Match) -> str:
    return m.group().translate(_numerals()[0])


@lru_cache(maxsize=1)
def _lookalikes() -> tuple[dict[int, str], re.Pattern]:
    """Each letter other than ASCII's that Unicode's confusables data (UTS #39, as
    ``confusable_homoglyphs`` ships it) draws as one ASCII letter: Cyrillic "о" as "o",
    Greek "Α" as "A", Latin "ı" as "i"; and one character class of them all."""
    from confusable_homoglyphs.utils import load

    table = {}
    for char, glyphs in load("confusables.json").items():
        if len(char) == 1 and not char.isascii() and char.isalpha():
            for glyph in glyphs:
                if len(glyph["c"]) == 1 and glyph["c"].isascii() and glyph["c"].isalpha():
                    # UTS #39 draws every capital I ("Ι", "І") as "l", its prototype: a capital
                    # is read as the capital it looks like ("FAІLED" is "FAILED").
                    table[ord(char)] = "I" if glyph["c"] == "l" and char.isupper() else glyph["c"]
                    break
    return table, re.compile("[" + "".join(re.escape(chr(code)) for code in sorted(table)) + "]")


def _latin(word: str) -> bool:
    return all(c.isascii() or not c.isalpha() or unicodedata.name(c, "").startswith("LATIN") for c in word)


def as_drawn(text: str) -> str:
    """Words whose every letter is drawn as a Latin one, read as the Latin word readers see:
    "nоt" with a Cyrillic "о" is "not", "ｎｏｔ" and "𝐧𝐨𝐭" too. A word with a letter of its own
    script that looks like no Latin one ("привет") is left as written, so text in other
    scripts reads as it did. Digits drawn as superscripts or in circles are read as digits
    (``_numerals``). Each word is read once."""
    if _STYLED.search(text) is not None:
        text = _STYLED.sub(_styled, text)
    numerals = _numerals()[1]
    if numerals.search(text) is not None:
        text = numerals.sub(_numeral_run, text)
    table, lookalike = _lookalikes()
    if lookalike.search(text) is None:
        return text

    def fold(m: re.Match) -> str:
        word = m.group()
        if lookalike.search(word) is None:
            return word
        folded = word.translate(table)
        return folded if _latin(folded) else word

    return _WORD.sub(fold, text)


def visible(text: str) -> str:
    """Plain text as readers see it: without the characters that draw nothing between two
    letters ("n\u200dot" is "not"), and with letters drawn as Latin ones read as those
    (``as_drawn``: "nоt" with a Cyrillic "о" is "not")."""
    if text.isascii():
        return text
    hidden = _invisible(False)
    if hidden.search(text) is not None:
        text = hidden.sub("", text)
    if text and max(text) > "\uffff":  # a character past U+FFFF
        text = _invisible(True).sub("", text)
    return as_drawn(text)


def plain(markdown: str) -> str:
    """Markdown to the words a reader sees, each run of whitespace one space (``str.split``'s
    whitespace is the regex ``\\s``'s, in half the time).

    Links and images keep their text (``unlink``); character references are decoded as the
    renderer decodes them ("n&zwj;ot" is "n\u200dot"); characters that draw nothing go
    (``visible``: "n\u200dot" is "not"); and Markdown marks go, or keep two words apart where
    readers see them, and a run inside a word that may be either is read both ways
    (``_both_readings``). Each step reads the text once: the text is
    untrusted, and the renderer itself is too slow for a hostile paragraph."""
    if markdown.isascii() and not any(c in markdown for c in _MARKUP):
        return " ".join(markdown.split())
    references = "]:" in markdown  # a link reference definition makes "n[o]t" a link, read "not"
    text = unlink(undefine(markdown), references)
    # A link's text next to a mark ("[n](url)_[ot](url)_" shows "not"): the mark may be markup.
    linked = text != markdown
    if "&" in text or "\\" in text:
        text = _REFERENCE.sub(_reference, text)
    text = visible(text)
    if not any(c in text for c in _MARKS):
        return " ".join(text.split())
    references = references or "]:" in text
    if any(c in text for c in "_#>[]"):
        text = _LITERAL_INSIDE[linked, references].sub(r"\1 ", text)
    if _AMBIGUOUS_INSIDE.search(text) is not None:
        text = " ".join(text.split())  # words are then separated by single spaces
        out, copied = [], 0
        for run in _AMBIGUOUS_INSIDE.finditer(text):  # each word with such a run, once
            if run.start() < copied:
                continue
            start = text.rfind(" ", 0, run.start() + 1) + 1
            end = text.find(" ", run.end())
            end = len(text) if end < 0 else end
            out += (text[copied:start], _both_readings(text[start:end]))
            copied = end
        out.append(text[copied:])
        text = "".join(out)
    return " ".join(_MARK_RUN.sub("", text).split())
