"""A swapped name at the head of a sentence: "Google released the model" against the claim
"Meta released the model". A capitalised word that opens a sentence proves nothing by its
capital, so ``names`` does not count it; here it counts when the cited claim that the rest
of the sentence restates opens with a different capitalised word that the sentence lacks.
"""

from __future__ import annotations

import re

from stories.text import CALENDAR, STOPWORDS, content_tokens, name_key, name_stated, sentences, stemmed

from .lexicon import lexicon
from .numbers import word_figures

_OPENING = re.compile(r"[\"'“‘(]*([A-Z][a-z]+)(?![\w\-’'])(?!\s+[A-Z])")
REST_ALIGNED = 0.6
MAX_CLAIM_SENTENCES = 400


def _opening(text: str) -> str | None:
    m = _OPENING.match(text)
    if not m:
        return None
    word, low = m.group(1), m.group(1).lower()
    lex = lexicon()
    if low in STOPWORDS or low in CALENDAR or low in lex.negation or low in lex.terms or low in lex.number_words:
        return None
    return None if word_figures(word) else word


def swapped_opening(sentence: str, claims: list[str], haystack: str) -> tuple[str, str, str] | None:
    """(the sentence's opening word, the claim's, the claim) when the sentence opens with a
    word no cited text states where the claim it restates opens with another name."""
    word = _opening(sentence)
    if word is None or name_stated(word, haystack):
        return None
    rest = content_tokens(sentence) - {stemmed(word)}
    if len(rest) < 2:
        return None
    sentence_key = " " + name_key(sentence) + " "
    seen = 0
    for claim in claims:
        for claim_sentence in sentences(claim) or [claim]:
            seen += 1
            if seen > MAX_CLAIM_SENTENCES:
                return None
            other = _opening(claim_sentence)
            if other is None or name_stated(other, sentence_key):
                continue
            if len(rest & content_tokens(claim_sentence)) / len(rest) >= REST_ALIGNED:
                return word, other, claim
    return None
