"""``paragraphs_cited``: every paragraph and every key fact cites at least one claim."""

from .base import ERROR, Criterion, CriterionResult, finding, share


class ParagraphsCited(Criterion):
    name = "paragraphs_cited"

    def run(self, ctx) -> CriterionResult:
        findings = []
        for unit in ctx.units:
            if not any(cite["claim_ids"] for cite in unit.cites):
                kind = "key fact" if unit.path.startswith("key_facts") else "paragraph"
                findings.append(finding(ERROR, unit.path, f"this {kind} cites no claim"))
        return CriterionResult(self.name, share(len(ctx.units) - len(findings), len(ctx.units)), findings)
