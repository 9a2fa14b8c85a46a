"""What every criterion shares: the context it reads and the result it returns."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from functools import cached_property

from newsroom.models import parse_edition

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITY_RANK = {ERROR: 0, WARNING: 1, INFO: 2}


def finding(severity: str, path: str, message: str, **extra) -> dict:
    """One finding of the rubric: ``severity``, ``path``, ``message`` and any details."""
    return {"severity": severity, "path": path, "message": message, **extra}


@dataclass
class CriterionResult:
    name: str
    score: float
    findings: list[dict] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not any(f["severity"] == ERROR for f in self.findings)

    def as_dict(self) -> dict:
        """The criterion's part of the rubric; findings errors first, then in document order."""
        findings = sorted(self.findings, key=lambda f: SEVERITY_RANK[f["severity"]])
        return {"name": self.name, "passed": self.passed, "score": round(self.score, 4), "findings": findings}


class Criterion:
    """A named rule of checks.md. Subclasses set ``name`` and implement ``run``."""

    name: str = ""

    def run(self, ctx: CheckContext) -> CriterionResult:  # pragma: no cover - interface
        raise NotImplementedError


def share(good: int, total: int) -> float:
    return 1.0 if total == 0 else good / total


@dataclass(frozen=True)
class Unit:
    """A paragraph or key fact: the text that must be cited and supported."""

    path: str
    text: str
    cites: list


class CheckContext:
    """A validated desk/1 document and the database rows the criteria read, loaded once:
    the cited manifests (with publishers) and the cited claims, in two queries. The story's
    own ``manifests`` list is never used as evidence. With ``public_sources``, only the
    sources some published story cites are read; any other reads as if it did not exist."""

    def __init__(self, doc: dict, *, exclude_story_id: str | None = None, public_sources: bool = False):
        from manifests.models import Claim, Manifest
        from stories.desk import cited_manifest_ids, iter_cites

        self.doc = doc
        self.excluded_ids = {i for i in (doc.get("id"), exclude_story_id) if i}
        self.cites = list(iter_cites(doc))
        self.cited_manifest_ids = cited_manifest_ids(doc)
        self.cited_claim_ids = list(dict.fromkeys(cid for _, cite in self.cites for cid in cite["claim_ids"]))
        from .batch import current

        batch = current()
        loaded = batch.sources(self.cited_manifest_ids, self.cited_claim_ids) if batch is not None else None
        if loaded is not None and not public_sources:  # read once for the bulk import's batch (``checks.batch``)
            self.manifests, self.claims = loaded
            return
        manifests = Manifest.objects.filter(id__in=self.cited_manifest_ids)
        claims = Claim.objects.filter(id__in=self.cited_claim_ids)
        if public_sources:  # only sources a published story cites: the others read as unknown
            from stories.models import Cite

            public = Cite.objects.filter(manifest_id__in=self.cited_manifest_ids).of_published_stories()
            manifests = manifests.filter(id__in=public.values("manifest_id"))
            claims = claims.filter(manifest_id__in=public.values("manifest_id"))
        self.manifests = {m.id: m for m in manifests.select_related("publisher")}
        self.claims = claims.rows()

    @cached_property
    def edition_start(self) -> dt.datetime:
        return parse_edition(self.doc["edition"])

    @cached_property
    def units(self) -> list[Unit]:
        """Key facts first, then paragraphs: desk/1's citing order. Each is the text its readers
        read: a paragraph's Markdown as rendered (``plain``), a key fact, which is shown as plain
        text, without the characters that draw nothing (``visible``)."""
        from stories.readable import plain, visible

        out = [
            Unit(f"key_facts[{i}]", visible(fact["text"]), fact["cites"])
            for i, fact in enumerate(self.doc["key_facts"])
        ]
        for i, section in enumerate(self.doc["sections"]):
            for j, para in enumerate(section["paragraphs"]):
                out.append(Unit(f"sections[{i}].paragraphs[{j}]", plain(para["markdown"]), para["cites"]))
        return out
