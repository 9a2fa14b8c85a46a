"""A swapped name at the head of a sentence: "Google released the model" against the claim
"Meta released the model". A capitalised word that opens a sentence proves nothing by its
capital, so ``names`` does not count it; here it counts when the cited claim that the rest
of the sentence restates opens with a different capitalised word that the sentence lacks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from itertools import islice

from stories.text import CALENDAR, STOPWORDS, content_tokens, iter_sentences, name_key, name_stated, stemmed

from .lexicon import lexicon
from .numbers import word_figures

_OPENING = re.compile(r"[\"'“‘(]*([A-Z][a-z]+)(?![\w\-’'])(?!\s+[A-Z])")
REST_ALIGNED = 0.6
MAX_CLAIM_SENTENCES = 400
CACHED_TEXT = 2000  # longer claims are not kept past a run: a hostile story must not fill the cache


def _opening(text: str) -> str | None:
    m = _OPENING.match(text)
    if not m:
        return None
    word, low = m.group(1), m.group(1).lower()
    lex = lexicon()
    if low in STOPWORDS or low in CALENDAR or low in lex.negation or low in lex.terms or low in lex.number_words:
        return None
    return None if word_figures(word) else word


def claim_openings(claim: str) -> tuple[tuple[str | None, frozenset | None], ...]:
    """(opening name, content words) of each of the claim's first sentences, one more than
    ``swapped_opening`` reads: the content words only for a sentence that opens with a name."""
    return _cached_claim_openings(claim) if len(claim) <= CACHED_TEXT else _claim_openings(claim)


@lru_cache(maxsize=4096)
def _cached_claim_openings(claim: str) -> tuple[tuple[str | None, frozenset | None], ...]:
    return _claim_openings(claim)


def _claim_openings(claim: str) -> tuple[tuple[str | None, frozenset | None], ...]:
    out = []
    for claim_sentence in first_sentences(claim, MAX_CLAIM_SENTENCES + 1) or [claim]:
        other = _opening(claim_sentence)
        out.append((other, None if other is None else frozenset(content_tokens(claim_sentence))))
    return tuple(out)


def first_sentences(text: str, limit: int) -> list[str]:
    """``sentences(text)[:limit]``, without splitting the rest of a long text."""
    return list(islice(iter_sentences(text), limit))


def swapped_opening(
    sentence: str, claims: list[str], stated: str | Callable[[str], bool], openings=claim_openings
) -> tuple[str, str, str] | None:
    """(the sentence's opening word, the claim's, the claim) when the sentence opens with a
    word no cited text states where the claim it restates opens with another name.
    ``stated`` is the cited texts' haystack (``name_stated``), or tells whether they name a
    word; ``openings`` reads a claim's sentences (``claim_openings``)."""
    if isinstance(stated, str):
        haystack = stated
        stated = lambda name: name_stated(name, haystack)  # noqa: E731
    word = _opening(sentence)
    if word is None or stated(word):
        return None
    rest = content_tokens(sentence) - {stemmed(word)}
    if len(rest) < 2:
        return None
    sentence_key = " " + name_key(sentence) + " "
    seen = 0
    for claim in claims:
        for other, tokens in openings(claim):
            seen += 1
            if seen > MAX_CLAIM_SENTENCES:
                return None
            if other is None or name_stated(other, sentence_key):
                continue
            if len(rest & tokens) / len(rest) >= REST_ALIGNED:
                return word, other, claim
    return None
