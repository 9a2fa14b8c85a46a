"""The derived fields of desk/1: everything a document carries that the stored fields and
the database determine (its URL and links, source count, publishers, trust text, each key
fact's self-reported flag, the cited manifests, the disclosure of who wrote it and how it
passed the checks). ``render`` adds them, in the order readers' tools and the archive
expect. Nothing here queries the database.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from django.conf import settings
from django.urls import NoReverseMatch, get_script_prefix, get_urlconf, reverse

from manifests.models import Manifest
from newsroom.models import SiteProfile

SCHEMA = "hangingcontext.desk/1"
DECISION_CARD_KEYS = ("useful_for", "not_for", "compare_against")

DERIVED_KEYS = (
    "url",
    "newsroom_title",
    "labels",
    "source_count",
    "publishers",
    "cited_manifest_ids",
    "manifests",
    "run_these_manifests",
    "links",
    "sponsor",
    "disclosure",
    "reuse",
)


@dataclass(frozen=True)
class ManifestInfo:
    manifest_id: str
    title: str
    source_name: str
    source_url: str
    published_date: dt.date

    def as_dict(self) -> dict:
        return {
            "manifest_id": self.manifest_id,
            "title": self.title,
            "source_name": self.source_name,
            "source_url": self.source_url,
            "published_date": self.published_date.isoformat(),
        }

    @classmethod
    def of(cls, manifest: Manifest) -> ManifestInfo:
        return cls(manifest.id, manifest.title, manifest.publisher.name, manifest.source_url, manifest.published_date)


def iter_cites(doc: dict):
    """(path, cite) for every cite, key facts first, then sections: desk/1's citing order."""
    for i, fact in enumerate(doc["key_facts"]):
        for k, cite in enumerate(fact["cites"]):
            yield f"key_facts[{i}].cites[{k}]", cite
    for i, section in enumerate(doc["sections"]):
        for j, para in enumerate(section["paragraphs"]):
            for k, cite in enumerate(para["cites"]):
                yield f"sections[{i}].paragraphs[{j}].cites[{k}]", cite


def all_cites(doc: dict):
    """Every cite, in ``iter_cites``'s order, without its path."""
    for fact in doc["key_facts"]:
        yield from fact["cites"]
    for section in doc["sections"]:
        for para in section["paragraphs"]:
            yield from para["cites"]


def cited_manifest_ids(doc: dict) -> list[str]:
    return list(dict.fromkeys(cite["manifest_id"] for cite in all_cites(doc)))


def story_url(edition: str, slug: str) -> str:
    return settings.SITE_URL + reversed_url("story-detail", edition[:10], slug)


# Arguments that every path converter in use (``str``, ``slug``) takes as they are and that
# ``reverse`` writes unquoted.
_PLAIN_ARG = re.compile(r"[-A-Za-z0-9_]+").fullmatch
_URL_PARTS: dict[tuple, tuple[str, ...] | None] = {}


def reversed_url(name: str, *args: str) -> str:
    """``reverse(name, args=args)``, from the pattern reversed once per URLconf and script
    prefix with stand-in arguments (a story list reverses three URLs a story). Arguments
    with any character ``reverse`` might quote or a converter might refuse are reversed
    as before."""
    return _reversed(_where(), name, args)


def _where() -> tuple[str, str]:
    """What ``reverse`` reads besides its arguments: the URLconf and the script prefix."""
    return get_urlconf() or settings.ROOT_URLCONF, get_script_prefix()


def _reversed(where: tuple[str, str], name: str, args: tuple[str, ...]) -> str:
    if not all(_PLAIN_ARG(a) for a in args):
        return reverse(name, args=list(args))
    key = (name, len(args), *where)
    parts = _URL_PARTS.get(key, False)
    if parts is False:
        parts = _URL_PARTS[key] = _url_parts(name, len(args))
    if parts is None:
        return reverse(name, args=list(args))
    out = [parts[0]]
    for arg, part in zip(args, parts[1:], strict=True):
        out += (arg, part)
    return "".join(out)


def _url_parts(name: str, count: int) -> tuple[str, ...] | None:
    """The reversed URL of ``name`` split around its ``count`` arguments, or None when it
    cannot be (no such pattern for stand-ins, or a stand-in not found once in order)."""
    samples = [f"zq{i}standin" for i in range(count)]
    try:
        url = reverse(name, args=samples)
    except NoReverseMatch:
        return None
    parts = []
    for sample in samples:
        if url.count(sample) != 1:
            return None
        head, _, url = url.partition(sample)
        parts.append(head)
    return (*parts, url)


def format_time(value: dt.datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# What each criterion's failure means, in the words of the disclosure (docs/checks.md).
FAILED_CRITERIA = {
    "manifests_exist": "a cited Manifest id is not a known Manifest",
    "manifests_recent": "a cited Manifest is not recent",
    "claims_belong": "a cited claim id does not belong to its Manifest",
    "paragraphs_cited": "a paragraph or key fact cites no claim",
    "claims_support": "a paragraph is not fully supported by the claims it cites",
    "not_a_repeat": "the story may repeat a recent story",
    "metadata_consistent": "the story's source details disagree with its cites",
}
CHECKS_PASSED = (
    "every cited Manifest id exists and is recent, claim ids belong to their Manifest, the story does not "
    "repeat a recent story, and each paragraph is supported by the claims it cites"
)
AGENT_WROTE = "Written by an agent from the Synorb Manifests listed here"
VERIFY = "Run the Manifests yourself to verify."


@dataclass(frozen=True)
class Responsibility:
    """Who answers for a story and how it passed the checks: what its disclosure says.
    The default is a story with no recorded override and no named editor."""

    editor: str = ""  # the person who published it (or created it): full name, else username
    revised_by_people: bool = False
    overridden: bool = False
    failed_criteria: tuple[str, ...] = ()
    reason: str = ""


def named_editor(agent: str, r: Responsibility) -> str:
    """The editor the disclosure names ("" when it names none: an agent's story that passed,
    or no one recorded)."""
    if agent and not r.revised_by_people and not r.overridden:
        return ""
    return r.editor


def disclosure(site_text: str, *, agent: str, url: str, responsibility: Responsibility) -> str:
    """The story's disclosure. ``site_text`` (the site profile's) is the disclosure of a story
    an agent wrote that passed every check; any other story says who wrote it, which editor
    took responsibility, and, when checks were overridden, which failed and why."""
    r = responsibility
    if agent and not r.revised_by_people and not r.overridden:
        return site_text
    who = r.editor or "an editor"
    if not agent:
        wrote = "Written by people, not an agent, from the Synorb Manifests listed here"
    elif r.revised_by_people:
        wrote = f"{AGENT_WROTE} and revised by people"
    else:
        wrote = AGENT_WROTE
    if not r.overridden:
        return f"{wrote}; {who} took editorial responsibility and published it after server-side checks: {CHECKS_PASSED}. {VERIFY}"
    if r.failed_criteria:
        failed = "; ".join(f"{name}: {FAILED_CRITERIA.get(name, 'did not pass')}" for name in r.failed_criteria)
    else:
        failed = "the failing criteria were not recorded"
    reason = f", giving this reason: \u201c{r.reason}\u201d" if r.reason else ""
    return (
        f"{wrote}; {who} took editorial responsibility and published it although server-side checks failed "
        f"({failed}){reason}. The record of the checks: {url}checks.json. {VERIFY}"
    )


def trust_text(trust: str, source_count: int) -> str:
    return f"{trust.replace('_', ' ').capitalize()} · {source_count} source{'' if source_count == 1 else 's'}"


def key_fact_self_reported(fact: dict, claims_self_reported: dict[str, bool | None]) -> bool:
    """True when every claim the fact cites is self-reported by its source. While a cited
    claim is a stub (unknown), the flag as imported stands."""
    flags = [claims_self_reported.get(cid) for cite in fact["cites"] for cid in cite["claim_ids"]]
    if not flags:
        return bool(fact.get("self_reported")) if fact.get("self_reported") is not None else False
    if any(flag is False for flag in flags):
        return False
    if all(flag is True for flag in flags):
        return True
    return bool(fact.get("self_reported"))


def render(
    doc: dict,
    *,
    manifests: dict[str, ManifestInfo],
    claims_self_reported: dict[str, bool | None],
    newsroom_title: str,
    profile: SiteProfile,
    responsibility: Responsibility | None = None,
) -> dict:
    """The full desk/1 document, in desk/1's key order, from the stored fields ``doc``;
    ``responsibility`` (for the disclosure) says how a stored story was published."""
    where = _where()
    url = settings.SITE_URL + _reversed(where, "story-detail", (doc["edition"][:10], doc["slug"]))
    cited = cited_manifest_ids(doc)
    known = [manifests[mid] for mid in cited if mid in manifests]
    source_count = len(cited)
    out = {
        "schema": SCHEMA,
        "type": "story",
        "id": doc["id"],
        "slug": doc["slug"],
        "edition": doc["edition"],
        "url": url,
        "newsroom": doc["newsroom"],
        "beat": doc["beat"],
        "newsroom_title": newsroom_title,
        "audience": doc["audience"],
        "angle": doc["angle"],
        "headline": doc["headline"],
        "dek": doc["dek"],
        "published_at": format_time(doc["published_at"]),
        "labels": {
            "trust": doc["trust"],
            "trust_text": trust_text(doc["trust"], source_count),
            "newsroom": newsroom_title,
        },
        "source_count": source_count,
        "publishers": sorted({m.source_name for m in known}),
        "key_facts": [
            {
                "text": fact["text"],
                "self_reported": key_fact_self_reported(fact, claims_self_reported),
                "cites": [dict(c) for c in fact["cites"]],
            }
            for fact in doc["key_facts"]
        ],
        "images": [dict(image) for image in doc["images"]],
        "sections": [
            {
                "heading": s["heading"],
                "paragraphs": [
                    {"markdown": p["markdown"], "cites": [dict(c) for c in p["cites"]]} for p in s["paragraphs"]
                ],
            }
            for s in doc["sections"]
        ],
        "unresolved": list(doc["unresolved"]),
        "decision_card": _ordered_card(doc["decision_card"]),
        "writer": {"agent": doc["writer"]["agent"], "run_id": doc["writer"]["run_id"]},
        "corrections": [
            {"corrected_at": format_time(c["corrected_at"]), "kind": c["kind"], "text": c["text"]}
            for c in doc["corrections"]
        ],
        "cited_manifest_ids": cited,
        "manifests": [m.as_dict() for m in known],
        "run_these_manifests": profile.run_these_manifests_for(cited),
        "links": {
            "html": url,
            "json": url + "index.json",
            "markdown": url + "index.md",
            "newsroom": settings.SITE_URL + _reversed(where, "newsroom-detail", (doc["newsroom"],)),
            "edition": settings.SITE_URL + _reversed(where, "edition-detail", (doc["edition"],)),
        },
        "related": [dict(r) for r in doc["related"]],
    }
    if profile.sponsor:
        out["sponsor"] = profile.sponsor
    out["disclosure"] = disclosure(
        profile.disclosure, agent=doc["writer"]["agent"], url=url, responsibility=responsibility or Responsibility()
    )
    out["reuse"] = profile.reuse_for(url)
    return out


def with_publication(
    rendered: dict, *, published_at: dt.datetime | None, profile: SiteProfile, responsibility: Responsibility
) -> dict:
    """What ``render`` returns for the stored fields ``rendered`` was rendered from, but
    ``published_at`` and ``responsibility``: the only parts of the document those change
    (its ``published_at`` and its disclosure), without rendering the rest again. The
    other values are shared with ``rendered``, not copied."""
    out = dict(rendered)  # the same key order
    out["published_at"] = format_time(published_at)
    out["disclosure"] = disclosure(
        profile.disclosure, agent=rendered["writer"]["agent"], url=rendered["url"], responsibility=responsibility
    )
    return out


def _ordered_card(card: dict) -> dict:
    ordered = {key: list(card[key]) for key in DECISION_CARD_KEYS if key in card}
    ordered.update({key: list(value) for key, value in card.items() if key not in ordered})
    return ordered


def default_newsroom_title(slug: str) -> str:
    """The title of a newsroom a document names by its slug only ("the-desk" -> "The Desk")."""
    return slug.replace("-", " ").title()
