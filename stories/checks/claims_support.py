"""``claims_support``: each paragraph and key fact is supported by the claims it cites.

For each unit (paragraph or key fact) that cites claims:

1. every figure in it (``30.7%``, ``64k``, ``31.85``, both ends of "from 68.5% to 74.3%")
   must be stated by a cited claim or a cited manifest's title or source name;
2. every distinctive name (``ProgAgent-14B``, ``Qwen3-8B``, ``LOCA-bench``, ``GSM8K``,
   "Invisible Technologies") must appear in a cited claim, title or source name;
3. a sentence is *backed* when at least ``CHECKS_SENTENCE_OVERLAP`` of its content words
   (lowercased, stemmed, no stopwords) occur in the cited claims; at least
   ``CHECKS_SUPPORT_THRESHOLD`` of the unit's sentences must be backed. An unbacked
   sentence with no figure and no name is editorial analysis: an ``info`` finding.

4. numbers written in words ("four", "a dozen", "half", "twice", "zero") in a sentence with
   claim-like content are figures too, compared as digits are;
5. the support judge (``CHECKS_JUDGE``, by default ``meaning.DeterministicJudge``) reads
   each sentence against the cited claims: a negation, an opposed term ("rose" against
   "fell") or swapped roles ("speed, not cost" against "cost, not speed") is an error
   that names its kind and quotes the claim.

An unbacked sentence with no figure and no name is editorial analysis (``info``); it does
not count against the backed share of a unit that has a backed sentence.

A stub claim (known by id, no text yet) supports nothing: its finding says so.

A rubric stays small whatever the text: a finding quotes at most ``SENTENCE_EXCERPT``
characters of its sentence, and a unit lists at most ``MAX_UNIT_FINDINGS`` findings, then
one that counts the rest (its score still counts every figure and name).
"""

from __future__ import annotations

from functools import lru_cache

from django.conf import settings

from stories.figures import figures, ranges
from stories.name_index import NameIndex
from stories.readable import visible
from stories.text import names, sentences, tokens_and_key

from .base import ERROR, INFO, SEVERITY_RANK, WARNING, Criterion, CriterionResult, finding
from .meaning import CONTRADICTED, load_judge, word_figures
from .meaning.names import claim_openings, swapped_opening

CLAIM_LIKE = 0.34  # a sentence sharing this much wording with its claims states facts
STUB_HINT = "run fetch_manifests or import_manifests to load it"
SENTENCE_EXCERPT = 1000
MAX_UNIT_FINDINGS = 50


def excerpt(text: str, limit: int = SENTENCE_EXCERPT) -> str:
    """A sentence, figure or name as a finding quotes it: whole, unless longer than any prose."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Reading:
    """What the check reads in one text (a claim, a manifest's title or source name, a
    sentence): its figures, ranges, content words and name key, read once and shared by
    every unit and sentence that meets the same text (``reading``, ``Readings``)."""

    __slots__ = ("_named", "_names", "_openings", "_text", "_word_figures", "figures", "key", "ranges", "tokens")

    def __init__(self, text: str):
        self._text = text
        self.figures = tuple(figures(text))
        self.ranges = tuple(ranges(text))
        tokens, self.key = tokens_and_key(text)
        self.tokens = frozenset(tokens)
        self._names = self._word_figures = self._openings = self._named = None

    @property
    def names(self) -> tuple[str, ...]:
        if self._names is None:
            self._names = tuple(names(self._text))
        return self._names

    @property
    def word_figures(self) -> tuple:
        if self._word_figures is None:
            self._word_figures = word_figures(self._text)
        return self._word_figures

    def states_name(self, name: str) -> bool:
        """Whether this text names ``name`` (``name_stated``), read from the text's
        ``NameIndex``: made once, however many units' evidence holds the text and however
        many names are looked up in it."""
        if self._named is None:
            self._named = NameIndex(self.key)
        return self._named.states(name)

    @property
    def openings(self) -> tuple:
        """The opening names of the text's first sentences (``names.claim_openings``)."""
        if self._openings is None:
            self._openings = claim_openings(self._text)
        return self._openings


CACHED_TEXT = 2000  # longer texts are not kept past a run: a hostile story must not fill the cache


def reading(text: str) -> Reading:
    """``text``'s ``Reading``; the last thousand texts' are kept (a bounded cache)."""
    return _cached_reading(text) if len(text) <= CACHED_TEXT else Reading(text)


@lru_cache(maxsize=1024)  # a story's claims and sentences, and the sources its batch cites
def _cached_reading(text: str) -> Reading:
    return Reading(text)


class Readings:
    """The readings of one check run, by text: each claim and source the run meets is read
    once, however long it is and however many units cite it (``reading`` keeps only short
    texts between runs)."""

    def __init__(self):
        self._by_text: dict[str, Reading] = {}
        self._shown: dict[str, str] = {}

    def shown(self, text: str) -> str:
        """``text`` as readers see it (``visible``), made once a run."""
        out = self._shown.get(text)
        if out is None:
            out = self._shown[text] = visible(text)
        return out

    def __call__(self, text: str) -> Reading:
        read = self._by_text.get(text)
        if read is None:
            read = self._by_text[text] = reading(text)
        return read

    def openings(self, text: str) -> tuple:
        return self(text).openings


def cited(ctx, unit, shown=visible) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(claim texts, ids of stub claims, cited manifests' titles and source names) of a
    unit's cites, in order, each text as readers see it (``shown``)."""
    texts, stubs = [], []
    for cite in unit.cites:
        for cid in cite["claim_ids"]:
            claim = ctx.claims.get(cid)
            if claim is None:
                continue  # claims_belong reports it
            if claim.has_text:  # read as the story's own text is: as readers see it
                texts.append(shown(claim.text))
            else:
                stubs.append(cid)
    manifests = [
        ctx.manifests[mid] for mid in dict.fromkeys(c["manifest_id"] for c in unit.cites) if mid in ctx.manifests
    ]
    sources = [shown(part) for m in manifests for part in (m.title, m.publisher.name)]
    return tuple(texts), tuple(stubs), tuple(sources)


class Evidence:
    """What a unit's cites offer: claim texts (for wording, figures and names) and the cited
    manifests' titles and source names (for figures and names only). Units with the same
    cites share one (``ClaimsSupport.run``)."""

    def __init__(self, ctx, unit, read=reading):
        self._build(*cited(ctx, unit), read)

    @classmethod
    def of(cls, texts, stubs, sources, read=reading) -> Evidence:
        evidence = cls.__new__(cls)
        evidence._build(texts, stubs, sources, read)
        return evidence

    def _build(self, texts, stubs, sources, read) -> None:
        self.texts, self.stubs = list(texts), list(stubs)
        claim_readings = [read(text) for text in texts]
        readings = claim_readings + [read(text) for text in sources]
        self._readings = readings
        self.openings = getattr(read, "openings", claim_openings)
        self.digit_figures = {canon for r in readings for _, canon in r.figures}
        self._word_figures: set[str] | None = None  # read when a figure is not among the digits
        # Names are looked up in the short texts' keys at once, and in each long text's own
        # (``Reading.states_name``): a long claim is searched once for a name, not once a unit.
        self._long = [r for r in readings if len(r.key) > CACHED_TEXT]
        self._short = NameIndex(" | ".join(r.key for r in readings if len(r.key) <= CACHED_TEXT))
        self._stated: dict[str, bool] = {}
        self.wording = set().union(*(r.tokens for r in claim_readings))
        self.ranges = {(low, high) for r in claim_readings for _, low, high in r.ranges}

    def states(self, canon: str) -> bool:
        """Whether the cited texts state the figure ``canon``, in digits or in words. Their
        numbers written in words are read only for a figure their digits do not state."""
        if canon in self.digit_figures:
            return True
        if self._word_figures is None:
            self._word_figures = {canon for r in self._readings for _, canon in r.word_figures}
        return canon in self._word_figures

    def names(self, name: str) -> bool:
        """Whether the cited texts name ``name`` (``name_stated``), each name looked up once."""
        stated = self._stated.get(name)
        if stated is None:
            stated = self._short.states(name) or any(r.states_name(name) for r in self._long)
            self._stated[name] = stated
        return stated


class ClaimsSupport(Criterion):
    name = "claims_support"

    def run(self, ctx) -> CriterionResult:
        findings, scores = [], []
        judge = load_judge()  # one per run: criteria are shared between threads
        read, evidence_by_cites = Readings(), {}  # each text read once, each set of cites weighed once
        for unit in ctx.units:
            if not any(cite["claim_ids"] for cite in unit.cites):
                continue  # paragraphs_cited reports it
            key = tuple((cite["manifest_id"], tuple(cite["claim_ids"])) for cite in unit.cites)
            evidence = evidence_by_cites.get(key)
            if evidence is None:
                evidence = evidence_by_cites[key] = Evidence.of(*cited(ctx, unit, read.shown), read)
            unit_findings, score = self.check_unit(unit, evidence, judge)
            findings += unit_findings
            scores.append(score)
        return CriterionResult(self.name, sum(scores) / len(scores) if scores else 1.0, findings)

    def check_unit(self, unit, evidence: Evidence, judge) -> tuple[list[dict], float]:
        """The unit's findings and its score (0 to 1)."""
        findings = [
            finding(ERROR, unit.path, f"claim {cid} has no text yet, so it supports nothing: {STUB_HINT}", claim_id=cid)
            for cid in evidence.stubs
        ]
        if not evidence.texts and evidence.stubs:
            return findings, 0.0  # nothing to check against until the claims are loaded
        all_sentences = sentences(unit.text) or [unit.text]
        backed = items = missing = analysis = 0
        overlap_needed = settings.CHECKS_SENTENCE_OVERLAP  # read once a unit, not once a sentence
        for sentence in all_sentences:
            is_backed, n_items, sentence_findings = self.check_sentence(
                unit.path, sentence, evidence, judge, overlap_needed
            )
            backed += is_backed
            items += n_items
            missing += sum(1 for f in sentence_findings if f["severity"] == ERROR)
            analysis += any(f["severity"] == INFO for f in sentence_findings)
            findings += sentence_findings
        threshold = settings.CHECKS_SUPPORT_THRESHOLD
        # Analysis sentences never tip a unit that its claims back; a unit of nothing but
        # analysis (or nothing backed) is judged on all its sentences.
        counted = len(all_sentences) - analysis if backed else len(all_sentences)
        backed_share = backed / counted
        if backed_share < threshold:
            findings.append(
                finding(
                    ERROR,
                    unit.path,
                    f"only {backed} of {counted} sentences are backed by the cited claims "
                    f"(at least {threshold:.0%} must be)",
                    backed=backed,
                    sentences=counted,
                )
            )
        score = (min(1.0, backed_share / threshold) if threshold else 1.0) * (
            1.0 if not items else (items - missing) / items
        )
        if evidence.stubs:
            score *= len(evidence.texts) / (len(evidence.texts) + len(evidence.stubs))
        return self.capped(unit.path, findings), score

    @staticmethod
    def capped(path: str, findings: list[dict]) -> list[dict]:
        """At most ``MAX_UNIT_FINDINGS`` findings, errors first, then one counting the rest
        (an error if any of them is): a paragraph of 50,000 unstated figures must not make a
        rubric of 50,000 findings."""
        if len(findings) <= MAX_UNIT_FINDINGS:
            return findings
        ranked = sorted(findings, key=lambda f: SEVERITY_RANK[f["severity"]])
        kept, rest = ranked[:MAX_UNIT_FINDINGS], ranked[MAX_UNIT_FINDINGS:]
        severity = min((f["severity"] for f in rest), key=SEVERITY_RANK.__getitem__)
        message = f"{len(rest)} more findings like these here are not listed"
        return [*kept, finding(severity, path, message, more=len(rest))]

    @staticmethod
    def check_sentence(
        path: str, sentence: str, evidence: Evidence, judge, overlap_needed: float
    ) -> tuple[bool, int, list[dict]]:
        """(backed?, figures and names in it, findings) for one sentence; it is backed when
        ``overlap_needed`` (``CHECKS_SENTENCE_OVERLAP``) of its words are in the claims."""
        findings, quoted = [], excerpt(sentence)
        read = reading(sentence)
        sentence_figures, sentence_names = read.figures, read.names
        for written, canon in sentence_figures:
            if not evidence.states(canon):
                written = excerpt(written)
                findings.append(
                    finding(
                        ERROR,
                        path,
                        f"{written} is not stated by any cited claim",
                        sentence=quoted,
                        figure=written,
                        kind="figure",
                    )
                )
        for written, low, high in read.ranges:
            if (high, low) in evidence.ranges and (low, high) not in evidence.ranges:
                written, low, high = excerpt(written), excerpt(low), excerpt(high)
                findings.append(
                    finding(
                        ERROR,
                        path,
                        f"{written} reverses the cited claim's range (from {high} to {low})",
                        sentence=quoted,
                        figure=written,
                        kind="range",
                    )
                )
        for name in sentence_names:
            if not evidence.names(name):
                name = excerpt(name)
                findings.append(
                    finding(
                        ERROR,
                        path,
                        f"{name} is not named by any cited claim, manifest title or source",
                        sentence=quoted,
                        name=name,
                        kind="name",
                    )
                )
        if evidence.texts and (swap := swapped_opening(sentence, evidence.texts, evidence.names, evidence.openings)):
            word, other, claim = (excerpt(part) for part in swap)
            findings.append(
                finding(
                    ERROR,
                    path,
                    f"contradicts its claim (name): {word} vs {other}",
                    sentence=quoted,
                    name=word,
                    kind="name",
                    claim=claim,
                    terms=[word, other],
                )
            )
        tokens = read.tokens
        overlap = len(tokens & evidence.wording) / len(tokens) if tokens else 1.0
        backed = overlap >= overlap_needed
        n_meaning = 0
        if overlap >= CLAIM_LIKE or sentence_figures or sentence_names:
            for written, canon in read.word_figures:
                n_meaning += 1
                if not evidence.states(canon):
                    written = excerpt(written)
                    message = f"{written} ({canon}) is not stated by any cited claim"
                    findings.append(
                        finding(ERROR, path, message, sentence=quoted, figure=written, kind="number", canonical=canon)
                    )
        reversed_range = any(f.get("kind") == "range" for f in findings)
        if evidence.texts and not reversed_range:  # a reversed range is that fault's one finding
            verdict = judge.judge(sentence, evidence.texts)
            if verdict.label == CONTRADICTED:
                n_meaning += 1
                findings.append(
                    finding(
                        ERROR,
                        path,
                        f"contradicts its claim ({verdict.kind}): {excerpt(verdict.reason, 300)}",
                        sentence=quoted,
                        kind=verdict.kind,
                        claim=excerpt(verdict.claim),
                        terms=[excerpt(t, 200) for t in verdict.terms],
                    )
                )
        if not backed and (sentence_figures or sentence_names):
            message = f"little of this sentence's wording is in the cited claims ({overlap:.0%} of its words)"
            findings.append(finding(WARNING, path, message, sentence=quoted, overlap=round(overlap, 3)))
        elif not backed:
            message = f"editorial analysis: not backed by the cited claims ({overlap:.0%} of its words)"
            findings.append(finding(INFO, path, message, sentence=quoted, overlap=round(overlap, 3)))
        return backed, len(sentence_figures) + len(sentence_names) + n_meaning, findings
