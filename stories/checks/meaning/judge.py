"""Support judges: ``judge(sentence, claims) -> Verdict``.

``CHECKS_JUDGE`` names the class (a dotted path); ``DeterministicJudge`` is the default.
A judge is made once per check run (``load_judge()``), so it may keep state for that run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from itertools import islice

from django.conf import settings
from django.utils.module_loading import import_string

from stories.text import iter_sentences

from .clauses import CACHED_TEXT, CONTRAST, RANGE, THAN, Clause, clauses
from .lexicon import lexicon

SUPPORTED, CONTRADICTED, NOT_ENOUGH = "supported", "contradicted", "not enough information"
VERDICTS = (SUPPORTED, CONTRADICTED, NOT_ENOUGH)
ALIGNED = 0.5  # share of a clause's content words its claim clause must share
MIN_SHARED = 2
NEAR = 0.15  # claim clauses this close to the best alignment are weighed too
MAX_CLAIM_CLAUSES = 400


@dataclass(frozen=True)
class Verdict:
    label: str
    reason: str = ""
    kind: str = ""  # negation, direction, comparison, outcome, roles
    claim: str = ""  # the claim the sentence was read against
    terms: tuple = field(default_factory=tuple)  # (the sentence's term, the claim's term)


# The two verdicts without a contradiction, made once (a verdict is immutable): most
# sentences get one of them.
_RESTATES = Verdict(SUPPORTED, "restates a cited claim")
_UNSAID = Verdict(NOT_ENOUGH, "no cited claim says the same thing")


class DeterministicJudge:
    """Reads negation, opposed terms (``lexicon.json``) and role frames, clause by clause,
    against the best-aligned clause of the cited claims."""

    def __init__(self):
        self._claims: tuple[str, ...] | None = None  # the last claims read, and their clauses
        self._claim_clauses: list = []
        self._read: dict[str, tuple[Clause, ...]] = {}  # each claim's clauses, read once a run

    def _clauses_of(self, text: str) -> tuple[Clause, ...]:
        read = self._read.get(text)
        if read is None:
            read = self._read[text] = _claim_clauses(text)
        return read

    def judge(self, sentence: str, claims: list[str]) -> Verdict:
        key = tuple(claims)
        if key != self._claims:  # a unit's sentences are read against the same claims
            self._claims = key
            self._claim_clauses = list(
                islice(((text, c) for text in key for c in self._clauses_of(text)), MAX_CLAIM_CLAUSES)
            )
        claim_clauses = self._claim_clauses
        aligned_any = False
        for clause in clauses(sentence):
            candidates = _aligned(clause, claim_clauses)
            if not candidates:
                continue
            aligned_any = True
            problems = [(_contradiction(clause, c), text) for _, text, c in candidates]
            if all(p for p, _ in problems):
                (kind, terms, reason), text = problems[0]
                return Verdict(CONTRADICTED, reason, kind, text, terms)
        return _RESTATES if aligned_any else _UNSAID


def _claim_clauses(text: str) -> tuple[Clause, ...]:
    return _cached_claim_clauses(text) if len(text) <= CACHED_TEXT else _read_claim(text)


@lru_cache(maxsize=8192)
def _cached_claim_clauses(text: str) -> tuple[Clause, ...]:
    return _read_claim(text)


def _read_claim(text: str) -> tuple[Clause, ...]:
    """The clauses of the claim's sentences, up to the ``MAX_CLAIM_CLAUSES`` the judge reads:
    the rest of a long claim is not read."""
    found, read_any = [], False
    for sentence in iter_sentences(text):
        read_any = True
        found += clauses(sentence)
        if len(found) >= MAX_CLAIM_CLAUSES:
            break
    if not read_any:
        found = list(clauses(text))
    return tuple(found[:MAX_CLAIM_CLAUSES])


def _aligned(clause: Clause, claim_clauses) -> list[tuple[float, str, Clause]]:
    content = clause.content
    if not content:
        return []
    size = len(content)
    least = min(MIN_SHARED, size)  # at least one: a claim clause sharing no word is passed over unread
    scored = []
    for text, c in claim_clauses:
        if content.isdisjoint(c.content):
            continue
        shared = len(content & c.content)
        if shared >= least:
            score = shared / size
            if score >= ALIGNED:
                scored.append((score, text, c))
    if not scored:
        return []
    scored.sort(key=lambda s: -s[0])
    best = scored[0][0]
    return [s for s in scored if s[0] >= best - NEAR]


def _contradiction(s: Clause, a: Clause) -> tuple[str, tuple, str] | None:
    """(kind, (sentence term, claim term), reason) when clause ``s`` says the opposite of ``a``."""
    if not s.terms and s.negated == a.negated and not (s.frames and a.frames):
        return None  # no frames to compare, no terms to oppose, the same polarity (most clauses)
    kinds = lexicon().kinds
    than_pair = any(f.type == THAN for f in s.frames) and any(f.type == THAN for f in a.frames)
    for fs in s.frames:
        for fa in a.frames:
            if (fs.type == THAN) != (fa.type == THAN) or (fs.type == RANGE) != (fa.type == RANGE):
                continue
            if fs.preferred & fa.rejected and fs.rejected & fa.preferred:
                if fs.type == THAN and _side(fs.comparator) != _side(fa.comparator):
                    terms = (fs.comparator, fa.comparator)
                    return "comparison", terms, f"{fs.comparator} vs {fa.comparator}"
                what = {CONTRAST: "contrast", THAN: "comparison", RANGE: "range"}[fs.type]
                terms = (f"{fs.preferred_text} / {fs.rejected_text}", f"{fa.preferred_text} / {fa.rejected_text}")
                return (
                    "roles",
                    terms,
                    f"the {what} is reversed: '{fs.preferred_text}' and '{fs.rejected_text}' swap places",
                )
    agreed = False
    comparators = {f.comparator for f in s.frames + a.frames if f.type == THAN} if than_pair else set()
    for group, s_terms in s.terms.items():
        a_terms = a.terms.get(group)
        if not a_terms:
            continue
        s_terms = [t for t in s_terms if t[1] not in comparators]
        a_terms = [t for t in a_terms if t[1] not in comparators]
        pair = _opposed_pair(s_terms, a_terms, s.negated != a.negated)
        if pair is None:
            continue
        if pair is True:
            agreed = True
            continue
        (_, s_word), (_, a_word) = pair
        if s.negated == a.negated:
            return kinds[group], (s_word, a_word), f"{s_word} vs {a_word}"
        sn = " ".join(s.negations + [s_word]) if s.negated else s_word
        an = " ".join(a.negations + [a_word]) if a.negated else a_word
        return "negation", (sn, an), f"{sn} vs {an}"
    if s.negated != a.negated and not agreed:
        if s.negated:
            return "negation", (s.negations[0], ""), f"the sentence says '{s.negations[0]}' where its claim does not"
        return "negation", ("", a.negations[0]), f"the claim says '{a.negations[0]}' where the sentence does not"
    return None


def _opposed_pair(s_terms: list, a_terms: list, flipped: bool):
    """The first (sentence term, claim term) on opposite sides (a negation on one side only
    ``flipped`` the sentence's sides); True when the terms agree; None when they cannot tell.
    Terms are counted by side when both clauses have as many; else each clause must use
    one side only."""
    if not s_terms or not a_terms:
        return None
    if len(s_terms) == len(a_terms) > 1:  # compared as counts of each side: voice reorders them
        s_count = [sum((t[0] ^ flipped) == side for t in s_terms) for side in (0, 1)]
        a_count = [sum(t[0] == side for t in a_terms) for side in (0, 1)]
        if s_count == a_count:
            return True
        side = 0 if s_count[0] > a_count[0] else 1
        st = next(t for t in s_terms if (t[0] ^ flipped) == side)
        at = next(t for t in a_terms if t[0] != side)
        return st, at
    s_sides, a_sides = {t[0] for t in s_terms}, {t[0] for t in a_terms}
    if len(s_sides) != 1 or len(a_sides) != 1:
        return None
    if (s_terms[0][0] ^ flipped) != a_terms[0][0]:
        return s_terms[0], a_terms[0]
    return True


def _side(word: str) -> int:
    sides = {side for _, side in lexicon().terms.get(word, ())}
    return sides.pop() if len(sides) == 1 else -1


@lru_cache(maxsize=16)
def _judge_class(path: str):
    return import_string(path)


def load_judge():
    """A judge of the class ``CHECKS_JUDGE`` names, for one check run."""
    return _judge_class(getattr(settings, "CHECKS_JUDGE", "stories.checks.meaning.judge.DeterministicJudge"))()
