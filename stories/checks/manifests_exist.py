"""``manifests_exist``: every cited manifest id is a stored manifest."""

from .base import ERROR, Criterion, CriterionResult, finding, share


class ManifestsExist(Criterion):
    name = "manifests_exist"

    def run(self, ctx) -> CriterionResult:
        findings = []
        for path, cite in ctx.cites:
            mid = cite["manifest_id"]
            if mid not in ctx.manifests:
                findings.append(
                    finding(ERROR, f"{path}.manifest_id", f"manifest {mid} is not in the database", manifest_id=mid)
                )
        known = sum(1 for mid in ctx.cited_manifest_ids if mid in ctx.manifests)
        return CriterionResult(self.name, share(known, len(ctx.cited_manifest_ids)), findings)
