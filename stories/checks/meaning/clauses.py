"""A sentence read as clauses: content words, negation, opposed terms and role frames.

Linear in the text: one tokenising regex with no backtracking, at most ``MAX_TOKENS`` tokens
a sentence, windows of at most ``WINDOW`` words around each frame's cue.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import islice

from stories.text import STOPWORDS, content_word, stem

from .lexicon import lexicon

MAX_TOKENS = 300
WINDOW = 3
NOT_BUT_REACH = 8
_TOKEN = re.compile(r"[a-z0-9]+(?:[.'’][a-z0-9]+)*|[,;:]")
_PUNCT = frozenset(",;:")
CONTRAST, THAN, RANGE = "contrast", "than", "range"


@dataclass(frozen=True, slots=True)
class Frame:
    """A contrast or comparison: ``preferred`` is the side the clause favours (X in "X,
    not Y", "X rather than Y", "X more than Y"; Y in "not X but Y", "X less than Y", "from
    X to Y"); each side is a set of stemmed content words."""

    type: str
    preferred: frozenset
    rejected: frozenset
    cue: str
    comparator: str = ""
    preferred_text: str = ""
    rejected_text: str = ""


@dataclass(slots=True)
class Clause:
    text: str
    tokens: list[str]
    content: frozenset = frozenset()
    negations: list[str] = field(default_factory=list)
    terms: dict = field(default_factory=dict)  # group index -> [(side, word)] in order
    frames: list[Frame] = field(default_factory=list)

    @property
    def negated(self) -> bool:
        return len(self.negations) % 2 == 1


def _is_content(word: str) -> bool:
    return word not in STOPWORDS and (len(word) > 1 or word.isdigit())


def _content(words) -> frozenset:
    # ``content_word`` keeps what ``_is_content`` keeps, stemmed (never empty), and is None
    # for the rest
    return frozenset(filter(None, map(content_word, words)))


_FRAME_CUES = frozenset(["not", "rather", "instead", "than", "from"])


@lru_cache(maxsize=1)
def _not_content() -> frozenset:
    """Words that are never a clause's content words: the lexicon's terms and negations."""
    lex = lexicon()
    return frozenset(lex.terms).union(lex.negation)


@lru_cache(maxsize=1)
def _special() -> frozenset:
    """Tokens the second pass of ``_read`` does anything with, besides words ending in n't:
    negations, their markers and the lexicon's terms."""
    lex = lexicon()
    return frozenset(lex.negation_before_to | lex.negation | {"not", "nor", "zero", "0"} | set(lex.terms))


def _window(tokens: list[str], start: int, step: int) -> list[str]:
    """Up to ``WINDOW`` content words from ``start`` going by ``step``, stopping at punctuation."""
    out, i = [], start
    while 0 <= i < len(tokens) and len(out) < WINDOW and tokens[i] not in _PUNCT:
        if _is_content(tokens[i]):
            out.append(tokens[i])
        i += step
    return out[::-1] if step < 0 else out


def _comparator_before(tokens: list[str], than: int) -> int | None:
    """The index of "more"/"higher"/... up to ``WINDOW`` words before "than" ("more common than")."""
    comparators = lexicon().than_comparators
    for k in range(than - 1, max(-1, than - 2 - WINDOW), -1):
        if tokens[k] in _PUNCT:
            return None
        if tokens[k] in comparators:
            return k
    return None


def _frame(type_, pref: list[str], rej: list[str], cue: str, comparator: str = "") -> Frame | None:
    p, r = _content(pref), _content(rej)
    if not p or not r or p == r:
        return None
    return Frame(type_, p - r, r - p, cue, comparator, " ".join(pref), " ".join(rej))


def _read(tokens: list[str]) -> Clause:
    lex = lexicon()
    kinds = set(tokens)  # each pass below visits only the tokens it does anything with
    words = tokens if _PUNCT.isdisjoint(kinds) else [t for t in tokens if t not in _PUNCT]
    clause = Clause(" ".join(words), tokens)
    contrast_nots: set[int] = set()
    n = len(tokens)
    cues = () if _FRAME_CUES.isdisjoint(kinds) else _FRAME_CUES.intersection(kinds)
    for i, tok in enumerate(tokens) if cues else ():
        if tok not in cues:
            continue
        nxt = tokens[i + 1] if i + 1 < n else ""
        if tok == "not" and i > 0 and tokens[i - 1] == ",":  # "X, not Y"
            f = _frame(CONTRAST, _window(tokens, i - 2, -1), _window(tokens, i + 1, 1), ", not")
            if f:
                clause.frames.append(f)
                contrast_nots.add(i)
        elif tok == "not" and nxt not in lex.not_negation_after_not:  # "not X but Y"
            end = min(n, i + NOT_BUT_REACH)
            for k in range(i + 1, end):
                if tokens[k] in _PUNCT and tokens[k] != ",":
                    break
                if tokens[k] == "but":
                    f = _frame(CONTRAST, _window(tokens, k + 1, 1), tokens[i + 1 : k], "not … but")
                    if f:
                        clause.frames.append(f)
                        contrast_nots.add(i)
                    break
        elif (tok == "rather" and nxt == "than") or (tok == "instead" and nxt == "of"):
            f = _frame(CONTRAST, _window(tokens, i - 1, -1), _window(tokens, i + 2, 1), f"{tok} {nxt}")
            if f:
                clause.frames.append(f)
        elif tok == "than" and (at := _comparator_before(tokens, i)) is not None:
            comparator = tokens[at]
            before, after = _window(tokens, at - 1, -1), _window(tokens, i + 1, 1)
            up = all(side == 0 for _, side in lex.terms.get(comparator, [(0, 0)]))
            f = _frame(THAN, before if up else after, after if up else before, "than", comparator)
            if f:
                clause.frames.append(f)
        elif tok == "from":
            for k in range(i + 1, min(n, i + 2 + 2 * WINDOW)):
                if tokens[k] in _PUNCT:
                    break
                if tokens[k] == "to":
                    start, end = tokens[i + 1 : k], _window(tokens, k + 1, 1)
                    if not any(c.isdigit() for w in start + end for c in w):  # figures: the range check's
                        f = _frame(RANGE, end, start, "from … to")
                        if f:
                            clause.frames.append(f)
                    break
    special = _special().intersection(kinds)
    contracted = any(t.endswith(("n't", "n’t")) for t in kinds) if "'" in clause.text or "’" in clause.text else False
    for i, tok in enumerate(tokens) if special or contracted else ():
        if tok not in special and not (contracted and tok.endswith(("n't", "n’t"))):
            continue  # an ordinary word or punctuation: nothing below applies to it
        nxt = tokens[i + 1] if i + 1 < n else ""
        if tok in lex.negation_before_to and nxt == "to":
            clause.negations.append(f"{tok} to")
            continue
        if i in contrast_nots:
            continue
        if tok == "not" and nxt in lex.not_negation_after_not:
            continue
        if tok == "nor" and "neither" in tokens[:i]:
            continue  # "neither … nor" is one negation
        if tok in ("zero", "0") and nxt == "of":  # "zero of the bridges" = "none of the bridges"
            clause.negations.append(tok)
            continue
        if tok in lex.negation or tok.endswith(("n't", "n’t")):
            clause.negations.append(tok)
            continue
        for group, side in lex.terms.get(tok, ()):
            clause.terms.setdefault(group, []).append((side, tok))
    clause.content = _content(kinds - _not_content())
    return clause


def _split(tokens: list[str]) -> list[list[str]]:
    """Clauses end at ; and : and at a comma before a conjunction ("…, and …", "…, while …")."""
    if _PUNCT.isdisjoint(tokens):
        return [tokens] if tokens else []
    conj = lexicon().clause_conjunctions
    out, current = [], []
    for tok, nxt in zip(tokens, [*tokens[1:], ""]):
        if tok in (";", ":") or (tok == "," and nxt in conj):
            if current:
                out.append(current)
            current = []
            continue
        current.append(tok)
    if current:
        out.append(current)
    return out


CACHED_TEXT = 2000  # longer sentences are not kept in the cache: a hostile story must not fill it


def clauses(sentence: str) -> tuple[Clause, ...]:
    """The clauses of one sentence (its first ``MAX_TOKENS`` tokens)."""
    return _cached_clauses(sentence) if len(sentence) <= CACHED_TEXT else _clauses(sentence)


@lru_cache(maxsize=16384)
def _cached_clauses(sentence: str) -> tuple[Clause, ...]:
    return _clauses(sentence)


def _clauses(sentence: str) -> tuple[Clause, ...]:
    lowered = sentence.lower()
    if len(lowered) <= CACHED_TEXT:  # at most a thousand tokens: all read at once, then cut
        tokens = _TOKEN.findall(lowered)[:MAX_TOKENS]
    else:
        tokens = [m[0] for m in islice(_TOKEN.finditer(lowered), MAX_TOKENS)]
    return tuple(map(_read, _split(tokens)))


__all__ = ["CONTRAST", "RANGE", "THAN", "Clause", "Frame", "clauses", "stem"]
