"""IPTC ninjs 3.1 ("News in JSON") from a desk/1 story dict: a pure function, no database.

Mapping (fields without a home in ninjs are left out rather than invented: the decision
card, the unresolved questions, the writer agent and the cites themselves stay in desk/1):

- ``uri``: the canonical story URL; ``altIds``: the desk id; ``version``: the story version
- ``headlines``: main = headline, sub = dek; ``slugline``: slug
- ``bodies``: the sections as Markdown (``text/markdown``), headings as ``##``
- ``descriptions``: the key facts (role ``keyfact``); ``edNote``: the corrections this
  ``version`` carries, each with its kind, time and text
- ``digitalSourceType``: from the story's writer: an agent (IPTC ``trainedAlgorithmicMedia``)
  or a person (``digitalCreation``); left out when unknown
- ``firstCreated``: published_at; ``versionCreated``: the latest of its correction times and
  its revision time (``revised_at``, when published changes last reached readers), else published_at
- ``renditions``: the HTML, desk/1 JSON and Markdown representations (``links``)
- ``associations``: the images (type ``picture``) with their rendition, caption and credit
- ``infoSources``: the cited manifests (name, source URL, publisher as ``literal``)
- ``subjects``: newsroom and beat; ``genres``: the trust label
- ``rightsInfo``: the reuse licence page; ``usageTerms``: the reuse summary
- ``trustIndicators``: the disclosure (who wrote it, how it passed the checks or which
  failed and why an editor overrode them) linking to ``checks.json``, the corrections, the
  machine-readable reuse policy, and the newsroom's policy pages (role: the schema.org
  property naming that policy, e.g. ``https://schema.org/correctionsPolicy``)
"""

from __future__ import annotations

from urllib.parse import urlsplit

NINJS_SCHEMA = "https://www.iptc.org/std/ninjs/ninjs-schema_3.1.json"
DIGITAL_SOURCE_TYPES = {
    "agent": ("trainedAlgorithmicMedia", "Written by an agent using a trained model"),
    "person": ("digitalCreation", "Written by a person using digital tools"),
}
DIGITAL_SOURCE_TYPE_CV = "http://cv.iptc.org/newscodes/digitalsourcetype/"


def _body(doc: dict) -> str:
    parts = []
    for section in doc["sections"]:
        parts.append(f"## {section['heading']}")
        parts.extend(p["markdown"] for p in section["paragraphs"])
    return "\n\n".join(parts)


def _version_created(doc: dict, revised_at: str | None) -> str | None:
    times = [c["corrected_at"] for c in doc.get("corrections", []) if c.get("corrected_at")]
    times += [revised_at] if revised_at else []
    return max(times) if times else doc.get("published_at")


def _image(i: int, image: dict) -> dict:
    rendition = {"name": "original", "href": image["url"]}
    if image.get("width"):
        rendition["width"] = image["width"]
    if image.get("height"):
        rendition["height"] = image["height"]
    out = {"name": f"image{i + 1}", "uri": image["url"], "type": "picture", "renditions": [rendition]}
    out["descriptions"] = [{"role": "alt", "value": image["alt"]}]
    if image.get("caption"):
        out["descriptions"].append({"role": "caption", "value": image["caption"]})
    if image.get("credit"):
        out["by"] = image["credit"]
    return out


def _link(name: str, href: str | None, content_type: str, title: str) -> dict | None:
    if not href:
        return None
    return {"name": name, "href": href, "contentType": content_type, "title": title}


def _ed_note(doc: dict) -> str | None:
    corrections = doc.get("corrections") or []
    if not corrections:
        return None
    return " ".join(f"{c['kind'].capitalize()} of {c['corrected_at']}: {c['text']}" for c in corrections)


def to_ninjs(
    doc: dict,
    *,
    version: int | None = None,
    revised_at: str | None = None,
    writer: str | None = None,
    policies: list[tuple[str, str, str]] = (),
) -> dict:
    """A rendered desk/1 story (``stories.desk.export_story``) as a ninjs 3.1 object;
    ``revised_at`` (desk/1 time format) when published changes last reached readers;
    ``writer`` "agent" or "person"; ``policies`` (schema.org property, title, URL) of the
    newsroom's policy pages."""
    links = doc.get("links", {})
    out: dict = {
        "uri": doc["url"],
        "standard": {"name": "ninjs", "version": "3.1", "schema": NINJS_SCHEMA},
        "type": "text",
        "representationType": "full",
        "profile": doc.get("schema", "hangingcontext.desk/1"),
        "altIds": [{"role": "desk-id", "value": doc["id"]}],
    }
    if version is not None:
        out["version"] = str(version)
    if doc.get("published_at"):
        out["firstCreated"] = doc["published_at"]
        out["versionCreated"] = _version_created(doc, revised_at)
    out["pubStatus"] = "usable" if doc.get("published_at") else "withheld"
    ed_note = _ed_note(doc)
    if ed_note:
        out["edNote"] = ed_note
    if writer in DIGITAL_SOURCE_TYPES:
        code, name = DIGITAL_SOURCE_TYPES[writer]
        out["digitalSourceType"] = {"uri": DIGITAL_SOURCE_TYPE_CV + code, "name": name, "literal": writer}
    out["language"] = "en"
    out["slugline"] = doc["slug"]
    out["headlines"] = [{"role": "main", "value": doc["headline"]}]
    if doc.get("dek"):
        out["headlines"].append({"role": "sub", "value": doc["dek"]})
    out["descriptions"] = [
        {"role": "keyfact", "contentType": "text/plain", "value": f["text"]} for f in doc["key_facts"]
    ]
    out["bodies"] = [{"role": "main", "contentType": "text/markdown", "value": _body(doc)}]
    out["renditions"] = [
        r
        for r in (
            _link("html", links.get("html"), "text/html", "The story page"),
            _link("json", links.get("json"), "application/json", "The story as hangingcontext.desk/1 JSON"),
            _link("markdown", links.get("markdown"), "text/markdown", "The story as Markdown"),
        )
        if r
    ]
    if doc.get("images"):
        out["associations"] = [_image(i, image) for i, image in enumerate(doc["images"])]
    subjects = [{"name": doc.get("newsroom_title") or doc["newsroom"], "rel": "newsroom", "literal": doc["newsroom"]}]
    if doc.get("beat"):
        subjects.append({"name": doc["beat"], "rel": "beat", "literal": doc["beat"]})
    out["subjects"] = subjects
    if doc.get("labels", {}).get("trust"):
        out["genres"] = [
            {"name": doc["labels"].get("trust_text") or doc["labels"]["trust"], "literal": doc["labels"]["trust"]}
        ]
    if doc.get("manifests"):
        out["infoSources"] = [
            {"name": m["title"], "role": "source", "uri": m["source_url"], "literal": m["manifest_id"]}
            for m in doc["manifests"]
        ]
    reuse = doc.get("reuse") or {}
    if reuse.get("license_url"):
        out["rightsInfo"] = {"linkedRights": reuse["license_url"]}
    if reuse.get("summary"):
        out["usageTerms"] = reuse["summary"]
    if reuse.get("attribution"):
        out["copyrightNotice"] = reuse["attribution"]
    site = "{0.scheme}://{0.netloc}".format(urlsplit(doc["url"]))
    indicators = []
    if doc.get("disclosure"):
        indicators.append(
            {"role": f"{site}/trust/disclosure", "title": doc["disclosure"], "href": doc["url"] + "checks.json"}
        )
    indicators += [
        {
            "role": f"{site}/trust/correction",
            "title": f"{c['kind'].capitalize()} of {c['corrected_at']}: {c['text']}",
            "href": doc["url"],
        }
        for c in doc.get("corrections", [])
    ]
    if reuse.get("machine_url"):
        indicators.append({"role": f"{site}/trust/reuse-policy", "title": "Reuse policy", "href": reuse["machine_url"]})
    indicators += [{"role": f"https://schema.org/{prop}", "title": title, "href": url} for prop, title, url in policies]
    if indicators:
        out["trustIndicators"] = indicators
    return out
