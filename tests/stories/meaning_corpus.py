"""The planted-fault corpus (``corpus/meaning_faults.json``) and a way to check one paragraph
against its claims with ``claims_support`` alone, without a database."""

import json
from pathlib import Path
from types import SimpleNamespace

from stories.checks.base import Unit
from stories.checks.claims_support import ClaimsSupport

CORPUS = json.loads((Path(__file__).parent / "corpus" / "meaning_faults.json").read_text(encoding="utf-8"))
CASES = CORPUS["cases"]
MANIFEST = "1900000000000000001"


def support_findings(text: str, claims: list[str], path: str = "sections[0].paragraphs[0]") -> list[dict]:
    """``claims_support``'s findings for one paragraph citing ``claims``."""
    claim_rows = {str(1900000000000000100 + i): SimpleNamespace(text=t, has_text=True) for i, t in enumerate(claims)}
    manifest = SimpleNamespace(title="A report", publisher=SimpleNamespace(name="example-desk"))
    ctx = SimpleNamespace(
        units=[Unit(path, text, [{"manifest_id": MANIFEST, "claim_ids": list(claim_rows)}])],
        claims=claim_rows,
        manifests={MANIFEST: manifest},
    )
    return ClaimsSupport().run(ctx).findings


def errors_of(findings: list[dict]) -> list[dict]:
    return [f for f in findings if f["severity"] == "error"]
