"""Every rendering of a story, each a small pure function of a desk/1 dict (the output of
``stories.desk.export_story``) and, where the format has room for them, of the story's
revision time and publication record (``Provenance``): plain text, Markdown, JSON-LD, the
desk/1 JSON itself and ``checks.json``, the public record of its checks.

They read nothing from the database, so a page that renders one costs exactly the
queries that loaded the story.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from urllib.parse import quote

from django.conf import settings
from django.urls import reverse
from markdown_it import MarkdownIt

from public import markup
from stories import desk

SITE_NAME_DEFAULT = "Hanging Context"


def site_name() -> str:
    return getattr(settings, "SITE_NAME", SITE_NAME_DEFAULT)


def source_numbers(d: dict) -> dict[str, int]:
    """Cite marker numbers: 1, 2, ... in the order of ``cited_manifest_ids``."""
    return {mid: n for n, mid in enumerate(d["cited_manifest_ids"], start=1)}


def short_id(manifest_id: str) -> str:
    """The marker the plain text shows for a manifest: ``m:…`` and its last four characters."""
    return f"m:…{manifest_id[-4:]}"


CHECKS_SCHEMA = "hangingcontext.checks/1"


@dataclass(frozen=True)
class Provenance:
    """What a story's renderings say beyond its desk/1 dict: when published changes last
    reached readers, and how its live version passed the checks (``stories.publication``)."""

    revised_at: str | None = None  # desk/1 time format
    editor: str = ""  # the editor its disclosure names, "" when none
    action: str = ""
    published_version: int | None = None
    recorded_at: str | None = None
    passed: bool | None = None
    overridden: bool = False
    score: float | None = None
    reason: str = ""
    rubric: dict | None = field(default=None, compare=False)

    @property
    def failed_criteria(self) -> list[str]:
        return [c["name"] for c in (self.rubric or {}).get("criteria", []) if not c.get("passed")]


NO_PROVENANCE = Provenance()


def date_modified(d: dict, provenance: Provenance = NO_PROVENANCE) -> str | None:
    """The story's last change a reader can see: publication, its revision or its latest
    correction."""
    times = [d["published_at"], provenance.revised_at, *(c["corrected_at"] for c in d["corrections"])]
    times = [t for t in times if t]
    return max(times) if times else None


def checks_url(d: dict) -> str:
    return d["url"] + "checks.json"


def to_checks(d: dict, provenance: Provenance) -> dict:
    """``checks.json``: the public record of the checks the live version passed, or that an
    editor overrode (criteria failed, reason, editor), with the rubric recorded then."""
    p = provenance
    return {
        "schema": CHECKS_SCHEMA,
        "story": {"id": d["id"], "url": d["url"], "json": d["links"]["json"]},
        "published_at": d["published_at"],
        "revised_at": p.revised_at,
        "publication": {
            "action": p.action or None,
            "version": p.published_version,
            "recorded_at": p.recorded_at,
            "checks_passed": p.passed,
            "score": p.score,
            "overridden": p.overridden,
            "failed_criteria": p.failed_criteria,
            "reason": p.reason if p.overridden else "",
            "editor": p.editor or None,
        },
        "rubric": p.rubric,
        "disclosure": d["disclosure"],
    }


def to_checks_json(d: dict, provenance: Provenance) -> str:
    return desk.dumps(to_checks(d, provenance))


def to_json(d: dict) -> str:
    """``index.json``: desk/1 exactly as ``export_stories`` writes it, pretty-printed."""
    return desk.dumps(d)


def to_text(d: dict) -> str:
    """``index.txt``: headline, then each section heading and its paragraphs, each
    paragraph followed by its cite markers; blocks separated by a blank line."""
    blocks = [d["headline"]]
    for section in d["sections"]:
        blocks.append(section["heading"])
        for para in section["paragraphs"]:
            markers = "".join(f" {short_id(c['manifest_id'])}" for c in para["cites"])
            blocks.append(markup.to_text(para["markdown"]) + markers)
    return "\n\n".join(blocks)


# What CommonMark (with strikethrough) reads as markup anywhere in a line: emphasis, code,
# links and images, raw HTML and autolinks, entity and character references, tables' pipes.
_MD_INLINE = re.compile(r"([\\`*_\[\]<>&!|~#])")
# What starts a block at the beginning of a line: list markers (``-``, ``+``, ``1.``,
# ``1)``), thematic breaks and setext underlines (``---``, ``===``), quotes, fences.
_MD_BLOCK_START = re.compile(r"^(?:([-+=>:])|([0-9]{1,9})([.)]))")


def _md_escape_line(text: str) -> str:
    """Plain text as one Markdown line that a CommonMark reader gives back unchanged (but
    for runs of whitespace, made one space): no block syntax at its start, no inline markup,
    no entity (``AT&amp;T`` stays ``AT&amp;T``)."""
    text = _MD_INLINE.sub(r"\\\1", " ".join(text.split()))
    return _MD_BLOCK_START.sub(lambda m: "\\" + m.group(1) if m.group(1) else m.group(2) + "\\" + m.group(3), text)


# What a URL may keep as written inside a Markdown link destination or an autolink: every
# character a URL may hold but whitespace, ``(``, ``)``, ``<``, ``>``, ``\`` and ``"``, which
# could end the link or start markup (``%`` too, so that what is encoded stays as it is).
_URL_SAFE = "!#$%&'*+,-./:;=?@[]^_`{|}~"


def _md_url(url: str) -> str:
    """A URL as a Markdown link destination or autolink: those characters percent-encoded,
    so a source's URL cannot end its link early and add text or links of its own."""
    return quote(url, safe=_URL_SAFE)


# How a CommonMark reader that renders raw HTML reads index.md (the site's renderer does not).
_HTML_READER = MarkdownIt("commonmark", {"html": True}).enable("strikethrough")
_END = "endofparagraph0sentinel"


def _html_in(tokens) -> bool:
    return any(
        t.type == "html_block" or (t.type == "inline" and any(c.type == "html_inline" for c in t.children or ()))
        for t in tokens
    )


def _ends(text: str) -> bool:
    """Whether what follows ``text`` in index.md is read on its own (no fence or HTML block of
    the paragraph left open to swallow the sources and the disclosure)."""
    tokens = _HTML_READER.parse(f"{text}\n\n{_END}")
    return len(tokens) >= 2 and tokens[-2].type == "inline" and tokens[-2].content == _END


# How a reader that takes any link destination reads index.md (the site's renderer keeps
# only those of ``markup.URL_SCHEMES``, and shows the others as text).
_ANY_LINK_READER = MarkdownIt("commonmark", {"html": True}).enable("strikethrough")
_ANY_LINK_READER.validateLink = lambda url: True
_ANY_LINK_READER.normalizeLink = lambda url: url  # the destination as written (no %-encoding of a tab)
_INVISIBLE_IN_URL = re.compile(r"[\x00-\x20\x7f]+")  # browsers drop tabs and newlines from URLs
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")  # a relative URL has none


def _foreign_link_in(text: str) -> bool:
    """Whether a reader that takes any link destination finds a link or image in ``text``
    whose scheme the site does not link (``javascript:``, ``data:``…)."""
    for token in _ANY_LINK_READER.parse(text):
        for child in token.children or () if token.type == "inline" else ():
            url = child.attrGet("href") if child.type == "link_open" else child.attrGet("src")
            if url is None:
                continue
            scheme = _SCHEME.match(_INVISIBLE_IN_URL.sub("", url))
            if scheme is not None and scheme[1].lower() not in markup.URL_SCHEMES:
                return True
    return False


def _md_paragraph(markdown: str) -> str:
    """A paragraph's Markdown for index.md, read there as the site reads it. As written,
    unless a reader that renders raw HTML would find HTML in it (the site shows it as text:
    a tag, a comment that hides what follows), or a reader that takes any link would find a
    link the site does not make (a ``javascript:`` one), or it leaves a code fence open: then
    a fence is closed, and a paragraph with HTML or such a link is given as its words, one
    escaped line."""
    text = markdown.strip()
    if "<" not in text and "`" not in text and "~" not in text and ":" not in text:
        return text  # nothing a reader could take for HTML or a link with a scheme, and no fence
    if _html_in(_HTML_READER.parse(text)) or _foreign_link_in(text):
        return _md_escape_line(markup.to_text(text))
    if not _ends(text):
        fences = [t for t in _HTML_READER.parse(text) if t.type == "fence"]
        closed = f"{text}\n{fences[-1].markup}" if fences else text
        text = closed if _ends(closed) else _md_escape_line(markup.to_text(text))
    return text


def _md_markers(cites: list[dict], numbers: dict[str, int]) -> str:
    seen = list(dict.fromkeys(c["manifest_id"] for c in cites))
    urls = {mid: settings.SITE_URL + reverse("manifest-detail", args=[mid]) for mid in seen}
    return "".join(f" [\\[{numbers[mid]}\\]]({urls[mid]})" for mid in seen if mid in numbers)


def to_markdown(d: dict, provenance: Provenance = NO_PROVENANCE) -> str:
    """``index.md``: headline, dek, key facts, sections with numbered cite markers that
    link to each source's page, corrections and the numbered sources list."""
    numbers = source_numbers(d)
    out = [f"# {_md_escape_line(d['headline'])}", ""]
    if d["dek"]:
        out += [f"*{_md_escape_line(d['dek'])}*", ""]
    byline = [_md_escape_line(d["labels"]["trust_text"]), _md_escape_line(d["newsroom_title"])]
    if provenance.overridden:
        byline.append("Published over failing checks")
    if d["published_at"]:
        byline.append(f"Published {d['published_at']}")
    if provenance.revised_at:
        byline.append(f"Updated {provenance.revised_at}")
    out += [" · ".join(byline), "", f"Canonical: <{_md_url(d['url'])}>", ""]
    if d["corrections"]:
        out += ["## Corrections", ""]
        out += [
            f"- **{c['kind'].capitalize()}, {c['corrected_at']}:** {_md_escape_line(c['text'])}"
            for c in d["corrections"]
        ]
        out.append("")
    if d["key_facts"]:
        out += ["## Key facts", ""]
        for fact in d["key_facts"]:
            flag = " *(self-reported)*" if fact["self_reported"] else ""
            out.append(f"- {_md_escape_line(fact['text'])}{flag}{_md_markers(fact['cites'], numbers)}")
        out.append("")
    for section in d["sections"]:
        out += [f"## {_md_escape_line(section['heading'])}", ""]
        for para in section["paragraphs"]:
            body, markers = _md_paragraph(para["markdown"]), _md_markers(para["cites"], numbers)
            if markers and ("`" in body or "~" in body) and not _ends(body + markers):
                markers = "\n\n" + markers.lstrip()  # after a closing fence: a line of their own
            out += [body + markers, ""]
    if d["unresolved"]:
        out += ["## Unresolved", ""] + [f"- {_md_escape_line(u)}" for u in d["unresolved"]] + [""]
    if d["manifests"]:
        out += ["## Sources", ""]
        for m in d["manifests"]:
            n = numbers.get(m["manifest_id"], "?")
            out.append(
                f"{n}. [{_md_escape_line(m['title'])}]({_md_url(m['source_url'])}) ({_md_escape_line(m['source_name'])}, "
                f"{m['published_date']}), manifest `{m['manifest_id']}`"
            )
        out.append("")
    out += [
        d["disclosure"],
        "",
        f"How this was checked: <{_md_url(checks_url(d))}>",
        "",
        f"Reuse: {_md_escape_line(d['reuse'].get('summary', ''))} <{_md_url(d['reuse'].get('license_url', ''))}>",
    ]
    return "\n".join(out) + "\n"


def _pruned(value):
    """``value`` without empty lists, empty objects or nulls at any depth: schema.org
    readers take ``"image": []`` for a value, and validators reject it."""
    if isinstance(value, dict):
        out = {k: _pruned(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v is not None and v != [] and v != {}}
    if isinstance(value, list):
        out = [_pruned(v) for v in value]
        return [v for v in out if v is not None and v != [] and v != {}]
    return value


def to_jsonld(
    d: dict, provenance: Provenance = NO_PROVENANCE, *, publisher: dict | None = None, default_image: str = ""
) -> dict:
    """schema.org ``NewsArticle`` (``ReportageNewsArticle`` when the label is reported); its
    ``backstory`` is the disclosure, its ``editor`` the editor the disclosure names. Its
    ``publisher`` is the site's ``NewsMediaOrganization`` (``public.organization``);
    ``default_image`` stands in when the story has no image."""
    site = publisher or {"@type": "Organization", "name": site_name(), "url": settings.SITE_URL + "/"}
    images = [img["url"] for img in d["images"]] or ([default_image] if default_image else [])
    data = {
        "@context": "https://schema.org",
        "@type": "ReportageNewsArticle" if d["labels"]["trust"] == "reported" else "NewsArticle",
        "@id": d["url"],
        "url": d["url"],
        "mainEntityOfPage": d["url"],
        "headline": d["headline"][:110],
        "description": d["dek"] or None,
        "datePublished": d["published_at"],
        "dateModified": date_modified(d, provenance),
        "articleSection": d["newsroom_title"],
        "author": {
            "@type": "Organization",
            "name": f"{site_name()} {d['newsroom_title']} desk",
            "url": d["links"]["newsroom"],
        },
        "publisher": site,
        "isAccessibleForFree": True,
        "image": images,
        "citation": [
            {
                "@type": "CreativeWork",
                "name": m["title"],
                "url": m["source_url"],
                "identifier": m["manifest_id"],
                "datePublished": m["published_date"],
                "publisher": {"@type": "Organization", "name": m["source_name"]},
            }
            for m in d["manifests"]
        ],
        "correction": [
            {
                "@type": "CorrectionComment",
                "text": c["text"],
                "datePublished": c["corrected_at"],
                "name": c["kind"].capitalize(),
            }
            for c in d["corrections"]
        ],
        "license": d["reuse"].get("license_url"),
        "backstory": d["disclosure"],
    }
    if provenance.editor:
        data["editor"] = {"@type": "Person", "name": provenance.editor}
    return _pruned(data)


_JSON_SCRIPT_ESCAPES = {ord("<"): "\\u003C", ord(">"): "\\u003E", ord("&"): "\\u0026"}


def json_script_text(data) -> str:
    """JSON as text safe inside ``<script type="application/ld+json">``: ``<``, ``>`` and
    ``&`` escaped as in Django's ``json_script``, so no text in it can close the element."""
    return json.dumps(data, ensure_ascii=False).translate(_JSON_SCRIPT_ESCAPES)


def jsonld_script_text(d: dict, provenance: Provenance = NO_PROVENANCE, **site) -> str:
    """The story's JSON-LD (``to_jsonld``; ``site``: its ``publisher`` and ``default_image``)
    as text safe inside ``<script type="application/ld+json">``."""
    return json_script_text(to_jsonld(d, provenance, **site))
