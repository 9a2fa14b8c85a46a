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
    """A validated desk/1 document and the database rows the criteria read, loaded once,
    when a criterion first asks for them: the cited manifests (with publishers) and the
    cited claims, in two queries. The story's own ``manifests`` list is never used as
    evidence. With ``public_sources``, only the sources some published story cites are read;
    any other reads as if it did not exist. ``fingerprint``: the document's (signature, cited
    claim ids), when the caller has computed them (``fingerprints.fingerprint_of``)."""

    def __init__(
        self,
        doc: dict,
        *,
        exclude_story_id: str | None = None,
        public_sources: bool = False,
        fingerprint: tuple[str, list[str]] | None = None,
    ):
        from .batch import current

        self.doc = doc
        self.fingerprint = fingerprint
        self.excluded_ids = {i for i in (doc.get("id"), exclude_story_id) if i}
        self._public_sources = public_sources
        self._batch = current()  # the bulk import's batch reads now, if any (``checks.batch``)

    @cached_property
    def cites(self) -> list:
        from stories.desk import iter_cites

        return list(iter_cites(self.doc))

    @cached_property
    def cited_manifest_ids(self) -> list[str]:
        from stories.desk import cited_manifest_ids

        return cited_manifest_ids(self.doc)

    @cached_property
    def cited_claim_ids(self) -> list[str]:
        return list(dict.fromkeys(cid for _, cite in self.cites for cid in cite["claim_ids"]))

    @cached_property
    def manifests(self) -> dict:
        return self._sources[0]

    @cached_property
    def claims(self) -> dict:
        return self._sources[1]

    @cached_property
    def _sources(self) -> tuple[dict, dict]:
        """(manifests, claims), read when a criterion first asks for either: a context made
        for criteria that read neither (the bulk import's ``not_a_repeat``, the others'
        results taken from its workers) reads nothing."""
        from manifests.models import Claim, Manifest

        batch, public_sources = self._batch, self._public_sources
        loaded = batch.sources(self.cited_manifest_ids, self.cited_claim_ids) if batch is not None else None
        if loaded is not None and not public_sources:  # read once for the bulk import's batch
            return loaded
        manifests = Manifest.objects.filter(id__in=self.cited_manifest_ids)
        claims = Claim.objects.filter(id__in=self.cited_claim_ids)
        if public_sources:  # only sources a published story cites: the others read as unknown
            from stories.models import Cite

            public = Cite.objects.filter(manifest_id__in=self.cited_manifest_ids).of_published_stories()
            manifests = manifests.filter(id__in=public.values("manifest_id"))
            claims = claims.filter(manifest_id__in=public.values("manifest_id"))
        return {m.id: m for m in manifests.select_related("publisher")}, claims.rows()

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
