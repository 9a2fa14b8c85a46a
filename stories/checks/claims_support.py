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

A stub claim (known by id, no text yet) supports nothing: its finding says so.
"""

from django.conf import settings

from .base import ERROR, INFO, WARNING, Criterion, CriterionResult, finding
from .text import content_tokens, figures, name_key, name_stated, names, sentences

STUB_HINT = "run fetch_manifests or import_manifests to load it"


class ClaimsSupport(Criterion):
    name = "claims_support"

    def run(self, ctx) -> CriterionResult:
        findings, scores = [], []
        for unit in ctx.units:
            cited = [cid for cite in unit.cites for cid in cite["claim_ids"]]
            if not cited:
                continue  # paragraphs_cited reports it
            unit_findings, score = self.check_unit(ctx, unit, cited)
            findings += unit_findings
            scores.append(score)
        return CriterionResult(self.name, sum(scores) / len(scores) if scores else 1.0, findings)

    def check_unit(self, ctx, unit, cited: list[str]) -> tuple[list[dict], float]:
        findings = []
        texts, stubs = [], 0
        for cid in cited:
            claim = ctx.claims.get(cid)
            if claim is None:
                continue  # claims_belong reports it
            if not claim.has_text:
                stubs += 1
                findings.append(
                    finding(ERROR, unit.path, f"claim {cid} has no text yet, so it supports nothing: {STUB_HINT}", claim_id=cid)
                )
                continue
            texts.append(claim.text)
        sources = [
            part
            for mid in dict.fromkeys(cite["manifest_id"] for cite in unit.cites)
            if (m := ctx.manifests.get(mid)) is not None
            for part in (m.title, m.publisher.name)
        ]
        stated_figures = {canon for text in texts + sources for _, canon in figures(text)}
        haystack = " " + " | ".join(name_key(t) for t in texts + sources) + " "
        wording = set().union(*(content_tokens(t) for t in texts)) if texts else set()
        threshold = settings.CHECKS_SENTENCE_OVERLAP

        all_sentences = sentences(unit.text) or [unit.text]
        backed, items, missing = 0, 0, 0
        for sentence in all_sentences:
            sentence_figures = figures(sentence)
            sentence_names = names(sentence)
            items += len(sentence_figures) + len(sentence_names)
            for written, canon in sentence_figures:
                if canon not in stated_figures:
                    missing += 1
                    findings.append(
                        finding(ERROR, unit.path, f"{written} is not stated by any cited claim", sentence=sentence, figure=written)
                    )
            for name in sentence_names:
                if not name_stated(name, haystack):
                    missing += 1
                    findings.append(
                        finding(
                            ERROR, unit.path, f"{name} is not named by any cited claim, manifest title or source",
                            sentence=sentence, name=name,
                        )
                    )  # fmt: skip
            tokens = content_tokens(sentence)
            overlap = len(tokens & wording) / len(tokens) if tokens else 1.0
            if overlap >= threshold:
                backed += 1
            elif sentence_figures or sentence_names:
                findings.append(
                    finding(
                        WARNING, unit.path,
                        f"little of this sentence's wording is in the cited claims ({overlap:.0%} of its words)",
                        sentence=sentence, overlap=round(overlap, 3),
                    )
                )  # fmt: skip
            else:
                findings.append(
                    finding(
                        INFO, unit.path, f"editorial analysis: not backed by the cited claims ({overlap:.0%} of its words)",
                        sentence=sentence, overlap=round(overlap, 3),
                    )
                )  # fmt: skip
        backed_share = backed / len(all_sentences)
        if backed_share < settings.CHECKS_SUPPORT_THRESHOLD:
            findings.append(
                finding(
                    ERROR, unit.path,
                    f"only {backed} of {len(all_sentences)} sentences are backed by the cited claims "
                    f"(at least {settings.CHECKS_SUPPORT_THRESHOLD:.0%} must be)",
                    backed=backed, sentences=len(all_sentences),
                )
            )  # fmt: skip
        stated_share = 1.0 if items == 0 else (items - missing) / items
        score = min(1.0, backed_share / settings.CHECKS_SUPPORT_THRESHOLD) * stated_share if settings.CHECKS_SUPPORT_THRESHOLD else stated_share
        if stubs:
            score *= len(texts) / (len(texts) + stubs)
        return findings, score
