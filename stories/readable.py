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

# What follows a link's "](" for CommonMark to read a link, up to its ")": a destination, in
# angle brackets or bare (no space, parentheses only balanced, here one deep), then an
# optional title in quotes or parentheses, with at most one line break between the parts.
# With anything else ("[text](see 99% of cases)") there is no link: readers read the
# brackets, the parentheses and all between them as written, and so do the checks. A title
# is shown when the pointer rests on the link, so it is read after the link's text. Every
# repetition is possessive (it gives nothing back), and a bare destination stops at its
# second "(", so a match runs past at most two of the "(" that start the next ones: linear.
_TARGET = re.compile(
    r"[ \t]*+\n?+[ \t]*+"
    r"(?:<(?:[^<>\n\\]|\\.)*+>|(?:[^\s<()\\]|\\\S|\((?:[^\s()\\]|\\\S)*+\))*+)"
    r"""(?:(?:[ \t]++\n?+|\n)[ \t]*+(?:"((?:[^"\\]|\\.)*+)"|'((?:[^'\\]|\\.)*+)'|\(((?:[^()\\]|\\.)*+)\)))?+"""
    r"[ \t]*+\n?+[ \t]*+\)"
)


# A link reference definition on one line, "[label]: destination "title"", which the page
# does not show (it names a link's target). Only one that CommonMark reads as a definition:
# a label with a character other than a space and no bracket that is not escaped, a bare
# destination with no parentheses or one in angle brackets, an optional title, then the
# line's end. Anything else (a definition over several lines, a title with an escaped
# quote) is read as written: more text than readers see, never less. Each part is a class
# the next does not share, and no part runs past the line: linear.
_DEFINITION = re.compile(
    r"^ {0,3}\[([ \t]*(?:[^\s\[\]\\]|\\.)(?:[^\n\[\]\\]|\\.)*)\]:[ \t]*"
    r"(?:<[^<>\n]*>|(?:[^\s<()\\]|\\\S)(?:[^\s()\\]|\\\S)*)"
    r"""(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*(?:\n|\Z)""",
    re.MULTILINE,
)
_FENCES = ("```", "~~~")
MAX_LABEL = 999  # CommonMark: a longer label makes no definition


def undefine(markdown: str) -> str:
    """The text without its link reference definitions, which readers do not see: each
    ``_DEFINITION`` where a block starts (at the start, after a blank line or right after
    another definition; a definition cannot interrupt a paragraph). A text with a code fence
    keeps them all, since a fence may show one as code. Each line is looked at once."""
    if "]:" not in markdown or any(fence in markdown for fence in _FENCES):
        return markdown
    out, copied = [], 0
    for m in _DEFINITION.finditer(markdown):
        start = m.start()
        if len(m[1]) > MAX_LABEL:
            continue
        if start != copied and not markdown[markdown.rfind("\n", 0, start - 1) + 1 : start].isspace():
            continue  # inside a paragraph: shown as written
        out.append(markdown[copied:start])
        copied = m.end()
    if not out:
        return markdown
    out.append(markdown[copied:])
    return "".join(out)


def _escaped(text: str, at: int) -> bool:
    """Whether the character at ``at`` follows an odd run of backslashes (is escaped)."""
    start = at
    while start and text[start - 1] == "\\":
        start -= 1
    return (at - start) % 2 == 1


# Where a page may show Markdown as written, as code, from where it stands to the block's
# end: a fence, or an indented code block (four spaces or a tab, which may follow a list's or
# a quote's marks). A code span shows only what stands between two backticks.
_CODE = ("```", "~~~", "    ", "\t")


def unlink(markdown: str, references: bool = False) -> str:
    r"""Each link, ``[text](target "title")``, replaced by its text (and its title, which
    readers see when they point at it), and each image, ``![text](target)``, by nothing:
    the page shows no image (the sanitiser drops it), so no reader reads its text. Brackets
    and parentheses that make no link stay as written: an escaped bracket, a target that
    ``_TARGET`` does not read as one. Of brackets inside brackets, the innermost make the
    link ("[n[ot](url)" shows "[not"). A link that may be shown as written (in code, or
    after a label's "]") is read both ways (``_both_ways``).

    What ``re.sub(r"!?\[([^\]]*)\]\(([^)]*)\)", ...)`` does, in one pass: that regex
    retries from every ``[`` and rescans the rest of the text each time, so a paragraph of
    ``[`` took quadratic time. Here the text is read once: when no ``]`` (or ``)``) follows,
    no later link can end either, every ``[`` before a ``]`` that is not followed by a link's
    target fails on that same ``]`` (the innermost ``[`` is found by looking back to the
    first), a target is read as ``_TARGET`` says, and the next blank line is found once for
    every link before it. A run of backslashes is counted once, for the bracket it escapes.
    """
    if "](" not in markdown:
        return markdown
    find = markdown.find
    links, copied, pos, paren, blank = [], 0, 0, -1, -1  # links: (start, end, what readers read, either way)
    code = any(mark in markdown for mark in _CODE)
    ticks = (find("`"), markdown.rfind("`"))  # a link between the first and the last may be in a code span
    definitions = references or "]:" in markdown  # labels that make links (their definitions may be gone)
    while (opening := find("[", pos)) >= 0:
        closing = find("]", opening + 1)
        if closing < 0:
            break
        first, opening = opening, markdown.rfind("[", opening, closing)
        while opening > first and _escaped(markdown, opening):
            opening = markdown.rfind("[", first, opening)
        pos = closing + 1
        if not markdown.startswith("(", closing + 1):
            continue
        if paren <= closing + 1:
            paren = find(")", closing + 2)
            if paren < 0:
                break
        if blank < opening:
            found = _BLANK.search(markdown, opening)
            blank = found.start() if found else len(markdown)
        target = _TARGET.match(markdown, closing + 2)
        if target is None:
            continue  # no link: read as written
        if blank < target.end():
            continue  # a blank line ends the paragraph, and with it any link
        if _escaped(markdown, opening) or _escaped(markdown, closing):
            continue  # "\[text](url)" is shown as written
        image = opening > copied and markdown[opening - 1] == "!" and not _escaped(markdown, opening - 1)
        start = opening - 1 if image else opening
        title = target[1] or target[2] or target[3]
        shown = "" if image else markdown[opening + 1 : closing] + (f" {title}" if title else "")
        # "[text][label](url)" may be a link by reference, then "(url)" as written
        either = (
            code
            or ticks[0] < start < target.end() <= ticks[1]
            or (definitions and start and markdown[start - 1] == "]")
        )
        links.append((start, target.end(), shown, either))
        copied = pos = target.end()
    if not links:
        return markdown
    if any(link[3] for link in links):
        return _both_ways(markdown, links)
    out, copied = [], 0
    for start, end, shown, _ in links:
        out += (markdown[copied:start], shown)
        copied = end
    out.append(markdown[copied:])
    return "".join(out)


_SPACE = re.compile(r"\s")
_BLANK = re.compile(r"\n[ \t]*\n")


def _both_ways(markdown: str, links: list[tuple[int, int, str, bool]]) -> str:
    """The text with each run of non-space characters that holds a link that may be shown as
    written (its last item) read both ways: with its links read ("not"), then as written
    ("[n](url)ot"), so that each reading keeps the letters it glues. Other links are read.
    A run is looked back over only to the end of the run before it, and forward from past
    its last link: linear."""
    out, copied, i = [], 0, 0
    while i < len(links):
        begin, stop, shown, either = links[i]
        if not either:
            out += (markdown[copied:begin], shown)
            copied, i = stop, i + 1
            continue
        while begin > copied and not markdown[begin - 1].isspace():
            begin -= 1
        space = _SPACE.search(markdown, stop)
        end = space.start() if space else len(markdown)
        first = i
        while i + 1 < len(links) and links[i + 1][0] < end:
            i += 1
            if links[i][1] > end:
                space = _SPACE.search(markdown, links[i][1])
                end = space.start() if space else len(markdown)
        read, at = [], begin
        for start, stop, shown, _ in links[first : i + 1]:
            read += (markdown[at:start], shown)
            at = stop
        out += (markdown[copied:begin], *read, markdown[at:end], " ", markdown[begin:end])
        copied, i = end, i + 1
    out.append(markdown[copied:])
    return "".join(out)


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
    """A whitespace-free word with a run of marks inside it that may be markup or characters,
    read both ways, so that neither reading can hide a word from the checks: the whole word
    glued ("n*o*t" reads "not", "1*1*.5%" "11.5%"), then split, only the letters and digits
    the marks join ("n o t", "1 1"; "not—quite*ly*" adds "quite ly", not a second "not",
    which would read as no negation at all)."""
    return word + " " + " ".join(_AMBIGUOUS_INSIDE.sub(r"\1 ", m.group()) for m in _AMBIGUOUS_WORD.finditer(word))


# Letters and digits joined by runs of marks ("quite*ly*", "n*o*t"), with the decimals and
# percent sign of a figure they end in ("1*5.5%"): the part of a word that is read split.
# Classes that share no character, one after the other: linear.
_AMBIGUOUS_WORD = re.compile(r"[^\W_]+(?:[*_`~#>\[\]]+[^\W_]+)+(?:[.,][0-9]+)*%?")


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
