"""``claims_belong``: every cited claim id exists and belongs to the manifest it is cited under."""

from .base import ERROR, Criterion, CriterionResult, finding, share


class ClaimsBelong(Criterion):
    name = "claims_belong"

    def run(self, ctx) -> CriterionResult:
        findings, total, good = [], 0, 0
        for path, cite in ctx.cites:
            mid = cite["manifest_id"]
            for j, cid in enumerate(cite["claim_ids"]):
                total += 1
                claim = ctx.claims.get(cid)
                where = f"{path}.claim_ids[{j}]"
                if claim is None:
                    findings.append(finding(ERROR, where, f"claim {cid} is not in the database", claim_id=cid))
                elif claim.manifest_id != mid:
                    findings.append(
                        finding(
                            ERROR,
                            where,
                            f"claim {cid} belongs to manifest {claim.manifest_id}, not {mid}",
                            claim_id=cid,
                            cited_under=mid,
                            belongs_to=claim.manifest_id,
                        )
                    )
                else:
                    good += 1
        return CriterionResult(self.name, share(good, total), findings)
