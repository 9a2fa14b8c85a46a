"""Text normalisation of stories' prose: sentences, tokens and distinctive names.

Pure functions of strings, shared by the publish checks (``claims_support``) and the story
fingerprints (``stories.fingerprints``), so that both agree on what a word is. Nothing here
touches the database.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
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


# A sentence ends at . ! ? followed by space and something that can start a sentence; the
# closing marks and the space between are no sentence's. Decimals ("30.7%") never match,
# because no space follows their point. The match begins at the . ! or ? itself, which stays
# with its sentence: a pattern that opens with a character class lets the regex engine skip
# to the next candidate in C, where a look-behind first was tried at every character.
_SENTENCE_END = re.compile(r"[.!?][\"'”’)]*\s+(?=[\"'“‘(]*[A-Z0-9])")


CACHED_TEXT = 2000  # longer texts are split anew each time: a hostile story must not fill the cache


def iter_sentences(text: str) -> Iterator[str]:
    """``sentences(text)`` one by one: the rest of a long text is split only if it is read."""
    if (whole := _unsplit(text)) is not None:
        return iter(whole)
    return iter(_cached_sentences(text)) if len(text) <= CACHED_TEXT else _split_sentences(text)


def _unsplit(text: str) -> list[str] | None:
    """The sentences of a text with no sentence end in it (itself, stripped, if anything is
    left), found without splitting or keeping it; None for any other text."""
    if _SENTENCE_END.search(text) is not None:
        return None
    return [stripped] if (stripped := text.strip()) else []


@lru_cache(maxsize=4096)  # a text is split by each check that reads it, the same way
def _cached_sentences(text: str) -> tuple[str, ...]:
    return tuple(_split_sentences(text))


def _split_sentences(text: str) -> Iterator[str]:
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if part := text[start : m.start() + 1].strip():
            yield part
        start = m.end()
    if part := text[start:].strip():
        yield part


def sentences(text: str) -> list[str]:
    if (whole := _unsplit(text)) is not None:
        return whole
    return list(_cached_sentences(text) if len(text) <= CACHED_TEXT else _split_sentences(text))


_WORD = re.compile(r"[A-Za-z0-9]+")
# Each byte of an ASCII letter or digit as itself, lowercased; every other byte a space. In
# UTF-8 a character outside ASCII is bytes of 128 and up only, so the words of the translated
# encoding are the text's runs of [A-Za-z0-9], lowercased.
_WORD_BYTES = bytes(ord(chr(c).lower()) if chr(c) in string.ascii_letters + string.digits else 0x20 for c in range(256))


def lowered_words(text: str) -> list[str]:
    """``[w.lower() for w in _WORD.findall(text)]``, found in C: a table lookup per byte, with
    no regular expression (the checks read every sentence and claim this way)."""
    return text.encode("utf-8", "surrogatepass").translate(_WORD_BYTES).decode("ascii").split()


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
    return _content_of(lowered_words(text))


def tokens_and_key(text: str) -> tuple[set[str], str]:
    """(``content_tokens(text)``, ``name_key(text)``), the text's words found once."""
    found = lowered_words(text)
    return _content_of(found), " ".join(found)


def _content_of(lowered) -> set[str]:
    """The ``content_word`` of each lowercased word, those that carry meaning."""
    out = set(map(content_word, lowered))
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
    return lowered_words(text)


# ------------------------------------------------------------------------- names

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-]*[A-Za-z0-9]|[A-Za-z0-9]")
_ACRONYM = re.compile(r"^[A-Z]{2,}[0-9]*s?$")
# Searched, so two capitals before the lower-case letter find whatever more would: "{2,}"
# instead rescanned a run of capitals from each of its letters (quadratic).
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
_MIXED = re.compile(r"^[A-Za-z].*\d|^[A-Za-z]+\d")
# Runs of ordinary words (lowercase letters, whole tokens), with whatever is not a token's
# between them. Linear: within a run, every word but the last is followed by a separator.
_ORDINARY_WORDS = re.compile(r"(?<![A-Za-z0-9\-])[a-z]+(?:[^A-Za-z0-9\-]+[a-z]+)*(?![A-Za-z0-9\-])")
# A run of ordinary words (as ``_ORDINARY_WORDS``), or else one token (``_TOKEN``, group 1):
# the text read once, left to right, as those two read it.
_NAME_SCAN = re.compile(_ORDINARY_WORDS.pattern + "|(" + _TOKEN.pattern + ")")
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


# Each byte of an ASCII letter or hyphen as "a", of an ASCII digit as "0", every other byte
# a space: a token that starts with a letter and holds a digit has "a0" in its mask.
_NAME_BYTES = bytes(
    ord("a") if chr(c) in string.ascii_letters + "-" else ord("0") if chr(c) in string.digits else 0x20
    for c in range(256)
)


def _nameless(text: str) -> bool:
    """Whether ``text`` surely names nothing, seen in C: no capital letter after its first
    character (a capitalised word that opens the text alone is no name, and every other
    name has a capital), and no digit right after a letter or hyphen (a token that starts
    with a letter and holds a digit is distinctive). A text it cannot tell about is read."""
    rest = text[1:]
    return rest == rest.lower() and b"a0" not in text.encode("utf-8", "surrogatepass").translate(_NAME_BYTES)


def names(text: str) -> list[str]:
    """Distinctive names in a text, as written: single distinctive tokens, and runs of
    capitalised words ("Invisible Technologies"); a lone capitalised word counts when it is
    not the first word of its sentence ("the Muon optimizer")."""
    if _nameless(text):  # a text with no name in it: not read token by token
        return []
    found: list[str] = []
    for sentence in sentences(text):
        run: list[str] = []
        run_starts_sentence = False
        # Each match is a run of ordinary words, skipped whole (it ends any run of
        # capitalised words), or a token, read on its own (group 1).
        for m in _NAME_SCAN.finditer(sentence):
            token = m[1]
            if token is not None and token.isalpha() and (token.islower() or (token.istitle() and len(token) > 1)):
                # An ordinary word ("model"), or a capitalised one ("Invisible"): neither is
                # distinctive, so only the capitalised word's own tests are left.
                low = token.lower()
                if low == token or low in STOPWORDS or low in CALENDAR:
                    token = None
                else:
                    if not run:
                        run_starts_sentence = _opens_clause(sentence, m.start())
                    run.append(token)
                    continue
            if run:
                if len(run) >= 2 or not run_starts_sentence:
                    found.append(" ".join(run))
                run = []
            if token is not None and _distinctive_token(token):
                found.append(token)
        if len(run) >= 2 or (run and not run_starts_sentence):
            found.append(" ".join(run))
    return list(dict.fromkeys(found))


def name_key(name: str) -> str:
    """How names are compared: lowercase words separated by single spaces ('LOCA-bench' ->
    'loca bench', 'invisible-technologies-blog' -> 'invisible technologies blog')."""
    return " ".join(lowered_words(name))


def name_stated(name: str, haystack: str) -> bool:
    """``haystack`` is ``' ' + name_key(support text) + ' '``."""
    key = name_key(name)
    if not key:
        return True
    if f" {key} " in haystack:
        return True
    # plural or possessive forms: "LLMs" / "LLM", "Technologies'"
    return key.endswith("s") and f" {key[:-1]} " in haystack
