"""Text normalisation of stories' prose: sentences, tokens, figures and distinctive names.

Pure functions of strings, shared by the publish checks (``claims_support``) and the story
fingerprints (``stories.fingerprints``), so that both agree on what a word is. Nothing here
touches the database.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from decimal import Decimal, InvalidOperation
from functools import lru_cache

STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "rather",
        "instead",
        "while",
        "one",
    ]
)


def unlink(markdown: str) -> str:
    r"""Each link or image, ``[text](target)`` or ``![text](target)``, replaced by its text.

    What ``re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", markdown)`` does, in one pass: that
    regex retries from every ``[`` and rescans the rest of the text each time, so a paragraph
    of ``[`` took quadratic time. Here the text is read once: when no ``]`` (or ``)``) follows,
    no later link can end either, and every ``[`` before a ``]`` that is not followed by ``(``
    fails on that same ``]``.
    """
    find = markdown.find
    out, copied, pos = [], 0, 0
    while (opening := find("[", pos)) >= 0:
        closing = find("]", opening + 1)
        if closing < 0:
            break
        if markdown.startswith("(", closing + 1):
            end = find(")", closing + 2)
            if end < 0:
                break
            start = opening - 1 if opening > copied and markdown[opening - 1] == "!" else opening
            out += (markdown[copied:start], markdown[opening + 1 : closing])
            copied = pos = end + 1
        else:
            pos = closing + 1
    if not out:
        return markdown
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
# readers do not see ("n*o*t" is "not") or characters that they do ("not*reached"). Each is
# one character class between one-character lookarounds: linear, and replaced in C.
_MARK_RUN = re.compile(r"[*_`~#>\[\]]+")
# Each starts with the letter before the run (kept by the replacement): a pattern that starts
# with a class is searched for that class, where a lookbehind would be tried at every place.
_INSIDE = r"([^\W_]){}(?=[^\W_])"
_LITERAL_INSIDE = re.compile(_INSIDE.format(r"[_#>]+"))
_LITERAL_INSIDE_NO_LINKS = re.compile(_INSIDE.format(r"[_#>\[\]]+"))  # no link definitions: brackets are seen
_AMBIGUOUS_INSIDE = re.compile(_INSIDE.format(r"[*_`~#>\[\]]+"))


def _reference(m: re.Match) -> str:
    decimal, hexadecimal, name = m.groups()
    if name is not None:
        from markdown_it.common.entities import entities

        return entities.get(name, m.group())
    if decimal is None and hexadecimal is None:
        return m.group()  # an escaped mark: the backslash keeps the words apart, as the mark does
    from markdown_it.common.utils import isValidEntityCode

    code = int(decimal, 10) if decimal is not None else int(hexadecimal, 16)
    return chr(code) if isValidEntityCode(code) else "\ufffd"


def _both_readings(word: str) -> str:
    """A whitespace-free word with a run of marks inside it that may be markup or characters,
    read both ways, glued and split ("n*o*t" reads "not n o t", "not*reached" "notreached not
    reached"), so that neither reading can hide a word from the checks."""
    return word + " " + _AMBIGUOUS_INSIDE.sub(r"\1 ", word)


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


def visible(text: str) -> str:
    """Plain text as readers see it: without the characters that draw nothing between two
    letters ("n\u200dot" is "not")."""
    if text.isascii():
        return text
    hidden = _invisible(False)
    if hidden.search(text) is not None:
        text = hidden.sub("", text)
    if len(text.encode("utf-16-le", "surrogatepass")) > 2 * len(text):  # a character past U+FFFF
        text = _invisible(True).sub("", text)
    return text


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
    text = unlink(markdown)
    if "&" in text:
        text = _REFERENCE.sub(_reference, text)
    text = visible(text)
    if not any(c in text for c in _MARKS):
        return " ".join(text.split())
    references = "]:" in text  # a link reference definition makes "n[o]t" a link, read "not"
    if any(c in text for c in "_#>[]"):
        text = (_LITERAL_INSIDE if references else _LITERAL_INSIDE_NO_LINKS).sub(r"\1 ", text)
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


# A sentence ends at . ! ? followed by space and something that can start a sentence. Decimals
# ("30.7%") never match, because no space follows their point.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)]*\s+(?=[\"'“‘(]*[A-Z0-9])")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


_WORD = re.compile(r"[A-Za-z0-9]+")


def stem(word: str) -> str:
    """A light suffix stripper: enough that 'introduced'/'introduces', 'scores'/'scored',
    'studies'/'study' meet, without a stemming library."""
    if len(word) <= 3 or word.isdigit():
        return word
    for suffix, repl in (
        ("ies", "y"),
        ("ied", "y"),
        ("ing", ""),
        ("edly", ""),
        ("ed", ""),
        ("es", ""),
        ("ly", ""),
        ("s", ""),
    ):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: len(word) - len(suffix)] + repl
            break
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    return word


@lru_cache(maxsize=65536)
def _norm_word(word: str) -> str:
    return stem(word.lower())


def stemmed(word: str) -> str:
    """A word as the wording test compares it: lowercased and lightly stemmed."""
    return _norm_word(word)


def content_tokens(text: str) -> set[str]:
    """Lowercase, stemmed words that carry meaning (no stopwords)."""
    if text.isascii():  # then lowering the text first lowers exactly the words' letters
        out = {content_word(w) for w in _WORD.findall(text.lower())}
    else:
        out = {content_word(w.lower()) for w in _WORD.findall(text)}
    out.discard(None)
    return out


@lru_cache(maxsize=65536)
def content_word(low: str) -> str | None:
    """A lowercased word as ``content_tokens`` keeps it (stemmed), or None when it carries
    no meaning (a stopword, a single letter)."""
    if low in STOPWORDS or (len(low) == 1 and not low.isdigit()):
        return None
    return _norm_word(low)


def words(text: str) -> list[str]:
    """Every word, lowercased and unstemmed: what fingerprints shingle."""
    if text.isascii():  # then lowering the text first lowers exactly the words' letters
        return _WORD.findall(text.lower())
    return [w.lower() for w in _WORD.findall(text)]


# ------------------------------------------------------------------------- figures

# A number not glued to a word before it ("Qwen3", "GSM8K" and "ProgAgent-14B" are names,
# not figures), with an optional unit: % or a magnitude suffix (64k, 14B, 2.5M, 3bn, 10x).
# Linear time: the figure must not run on into a letter, nor into more digits through word
# characters or points; the letter test comes first (one character), and the digit test is
# lazy, so that each step of backtracking through a run of digits ("1111...1a") stops at the
# next digit instead of rescanning the rest of the run.
_FIGURE = re.compile(
    r"(?<![\w.\-/])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?"
    r"(?:\s?(%|percent\b|per cent\b)|(k|K|M|B|bn|x|X)(?![A-Za-z0-9]))?"
    r"(?![A-Za-z])(?![\w.]*?\d)"
)


def _canonical_number(integer: str, fraction: str | None) -> str:
    if not fraction:  # a whole number: its digits without leading zeros (no Decimal needed)
        return integer.replace(",", "").lstrip("0") or "0"
    raw = integer.replace(",", "") + fraction
    try:
        value = Decimal(raw)
    except InvalidOperation:
        return raw
    text = format(value.normalize(), "f")
    return text


def figures(text: str) -> list[tuple[str, str]]:
    """[(as written, canonical)] for each figure: '30.70 %' -> '30.7%', '64k-token' -> '64k',
    '1,000' -> '1000'. Years and plain integers count too: the source must state them."""
    out = []
    for m in _FIGURE.finditer(text):
        integer, fraction, pct, mag = m.group(1), m.group(2), m.group(3), m.group(4)
        unit = "%" if pct else (mag.lower() if mag else "")
        if unit == "bn":
            unit = "b"
        out.append((m.group(0).strip(), _canonical_number(integer, fraction) + unit))
    return out


_RANGE = re.compile(r"\bfrom\s+(\S+)\s+to\s+(\S+)", re.IGNORECASE)


def ranges(text: str) -> list[tuple[str, str, str]]:
    """[(as written, from, to)] for each "from X to Y" whose ends are figures, canonical."""
    out = []
    for m in _RANGE.finditer(text):
        low, high = figures(m.group(1)), figures(m.group(2))
        if len(low) == 1 and len(high) == 1:
            out.append((f"from {low[0][0]} to {high[0][0]}", low[0][1], high[0][1]))
    return out


# ------------------------------------------------------------------------- names

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-]*[A-Za-z0-9]|[A-Za-z0-9]")
_ACRONYM = re.compile(r"^[A-Z]{2,}[0-9]*s?$")
# Searched, so two capitals before the lower-case letter find whatever more would: "{2,}"
# instead rescanned a run of capitals from each of its letters (quadratic).
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
_MIXED = re.compile(r"^[A-Za-z].*\d|^[A-Za-z]+\d")
_CAPITALISED = re.compile(r"^[A-Z][a-z]+$")
# Capitalised, but not names a source must state.
CALENDAR = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    ]
)
# A word right after one of these starts a clause, so its capital proves nothing.
_CLAUSE_OPENERS = frozenset(':;—–"“‘(')


def _opens_clause(sentence: str, start: int) -> bool:
    """Whether the last character before ``start``, spaces aside, opens a clause (or there is
    none). Read backwards over the spaces only: copying the sentence up to each capitalised
    word made a long sentence of them quadratic."""
    i = start - 1
    while i >= 0 and sentence[i].isspace():
        i -= 1
    return i < 0 or sentence[i] in _CLAUSE_OPENERS


def _distinctive_token(token: str) -> bool:
    """ProgAgent-14B, Qwen3-8B, GSM8K, LOCA-bench, MMLU, CoSIR, IFEval: a model, benchmark,
    product or organisation, not an ordinary word."""
    if token.isdigit():  # a number (a figure's business), never a name
        return False
    if _MIXED.match(token) and any(c.isalpha() for c in token):
        return True
    return any(_ACRONYM.match(part) or _CAMEL.search(part) for part in token.split("-"))


def names(text: str) -> list[str]:
    """Distinctive names in a text, as written: single distinctive tokens, and runs of
    capitalised words ("Invisible Technologies"); a lone capitalised word counts when it is
    not the first word of its sentence ("the Muon optimizer")."""
    found: list[str] = []

    def close_run(run: list[str], run_starts_sentence: bool) -> None:
        if len(run) >= 2 or (len(run) == 1 and not run_starts_sentence):
            found.append(" ".join(run))

    for sentence in sentences(text):
        run: list[str] = []
        run_starts_sentence = False
        for m in _TOKEN.finditer(sentence):
            token = m.group(0)
            if token.isalpha() and token.islower():  # an ordinary word: neither test can hold
                if run:
                    close_run(run, run_starts_sentence)
                    run = []
            elif _distinctive_token(token):
                close_run(run, run_starts_sentence)
                run = []
                found.append(token)
            elif _CAPITALISED.match(token) and token.lower() not in STOPWORDS and token.lower() not in CALENDAR:
                if not run:
                    run_starts_sentence = _opens_clause(sentence, m.start())
                run.append(token)
            else:
                close_run(run, run_starts_sentence)
                run = []
        close_run(run, run_starts_sentence)
    return list(dict.fromkeys(found))


def name_key(name: str) -> str:
    """How names are compared: lowercase words separated by single spaces ('LOCA-bench' ->
    'loca bench', 'invisible-technologies-blog' -> 'invisible technologies blog')."""
    if name.isascii():  # then lowering the text first lowers exactly the words' letters
        return " ".join(_WORD.findall(name.lower()))
    return " ".join(w.lower() for w in _WORD.findall(name))


def name_stated(name: str, haystack: str) -> bool:
    """``haystack`` is ``' ' + name_key(support text) + ' '``."""
    key = name_key(name)
    if not key:
        return True
    if f" {key} " in haystack:
        return True
    # plural or possessive forms: "LLMs" / "LLM", "Technologies'"
    return key.endswith("s") and f" {key[:-1]} " in haystack
