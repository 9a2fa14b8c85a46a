"""``metadata_consistent``: the document's derived fields agree with its cites and the
database: ``source_count``, ``publishers``, ``cited_manifest_ids``, ``manifests``,
``labels.trust_text`` and each key fact's ``self_reported``. A derived field the document
leaves out is not checked (the CMS derives it on save)."""

from stories.desk import ManifestInfo, key_fact_self_reported, trust_text

from .base import ERROR, Criterion, CriterionResult, finding, share


class MetadataConsistent(Criterion):
    name = "metadata_consistent"

    def run(self, ctx) -> CriterionResult:
        derived = ctx.doc.get("derived", {})
        # A manifest the database lacks is manifests_exist's finding; its entry in the
        # document cannot be verified, so it is taken as written rather than reported twice.
        own = {e.get("manifest_id"): e for e in derived.get("manifests") or [] if isinstance(e, dict)}
        entries = []
        for mid in ctx.cited_manifest_ids:
            if mid in ctx.manifests:
                entries.append(ManifestInfo.of(ctx.manifests[mid]).as_dict())
            elif mid in own:
                entries.append(own[mid])
        expected = {
            "source_count": len(ctx.cited_manifest_ids),
            "publishers": sorted({e.get("source_name") for e in entries if isinstance(e.get("source_name"), str)}),
            "cited_manifest_ids": ctx.cited_manifest_ids,
            "manifests": entries,
        }
        findings, compared = [], 0
        for key, want in expected.items():
            if key in derived:
                compared += 1
                if derived[key] != want:
                    findings.append(self.disagrees(key, derived[key], want))
        labels = derived.get("labels")
        if isinstance(labels, dict) and "trust_text" in labels:
            compared += 1
            want = trust_text(ctx.doc["trust"], len(ctx.cited_manifest_ids))
            if labels["trust_text"] != want:
                findings.append(self.disagrees("labels.trust_text", labels["trust_text"], want))
        flags = {cid: c.self_reported_or_unknown for cid, c in ctx.claims.items()}
        for i, fact in enumerate(ctx.doc["key_facts"]):
            if fact.get("self_reported") is None:
                continue
            compared += 1
            want = key_fact_self_reported(fact, flags)
            if fact["self_reported"] != want:
                findings.append(self.disagrees(f"key_facts[{i}].self_reported", fact["self_reported"], want))
        return CriterionResult(self.name, share(compared - len(findings), compared), findings)

    @staticmethod
    def disagrees(path: str, got, want) -> dict:
        return finding(
            ERROR, path, f"{path} is {_short(got)}, but the cites give {_short(want)}", expected=want, found=got
        )


def _short(value) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."
