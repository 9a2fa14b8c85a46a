"""What the story page shows, built from a loaded story and its desk/1 dict: numbered
sources with the texts of the claims the story cites, and cite markers that point at them."""

from __future__ import annotations

import datetime as dt
import functools
import html
from dataclasses import dataclass, field

from django.conf import settings
from django.utils.formats import localize
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.timezone import template_localtime

from public import markup, organization, renderings
from public.templatetags.page_urls import kept_reverse
from stories import desk
from stories.publication import publication_of


@dataclass
class Source:
    n: int
    manifest_id: str
    title: str
    source_name: str
    source_url: str
    published_date: str
    claims: list[dict] = field(default_factory=list)  # [{"id", "text", "self_reported"}] in citing order


def claim_texts(story) -> dict[str, dict]:
    """Every claim the loaded story cites: id -> {text, self_reported}. No queries."""
    owners = list(story.key_facts.all()) + [p for s in story.sections.all() for p in s.paragraphs.all()]
    out = {}
    for owner in owners:
        for cite in owner.cites.all():
            for cc in cite.claims.all():
                out[cc.claim_id] = {
                    "text": cc.claim.text if cc.claim.has_text else "",
                    "self_reported": cc.claim.self_reported,
                }
    return out


def build_sources(d: dict, claims: dict[str, dict]) -> list[Source]:
    numbers = renderings.source_numbers(d)
    by_id = {}
    for m in d["manifests"]:
        by_id[m["manifest_id"]] = Source(
            numbers[m["manifest_id"]],
            m["manifest_id"],
            m["title"],
            m["source_name"],
            m["source_url"],
            m["published_date"],
        )
    seen = set()
    cites = [c for f in d["key_facts"] for c in f["cites"]] + [
        c for s in d["sections"] for p in s["paragraphs"] for c in p["cites"]
    ]
    for cite in cites:
        source = by_id.get(cite["manifest_id"])
        for cid in cite["claim_ids"]:
            if source is not None and cid not in seen:
                seen.add(cid)
                info = claims.get(cid, {})
                source.claims.append(
                    {"id": cid, "text": info.get("text", ""), "self_reported": info.get("self_reported")}
                )
    return sorted(by_id.values(), key=lambda s: s.n)


def _shown(value) -> str:
    """``value`` as ``{{ value }}`` shows it in an autoescaped template."""
    if type(value) is str:
        return html.escape(value)  # what django.utils.html.escape does, without its lazy wrapper
    if type(value) is int and not settings.USE_THOUSAND_SEPARATOR:
        return str(value)
    return conditional_escape(localize(template_localtime(value)))


def sources_html(sources: list[Source]) -> SafeString:
    """The items of the page's numbered sources list, each with the claims the story cites,
    as the template's loop made them (Python is several times faster than the template
    language for a list as long as a story's claims; the bytes are the same)."""
    out = []
    for s in sources:
        n = _shown(s.n)
        out.append(
            f'\n      <li id="source-{n}" value="{n}">\n        <p class="source-title"><a href="{_shown(s.source_url)}"'
            f' rel="nofollow noopener">{_shown(s.title)}</a></p>\n        <p class="source-meta">'
            f"{_shown(s.source_name)} · {_shown(s.published_date)} · Manifest"
            f' <a href="{html.escape(kept_reverse("manifest-detail", (s.manifest_id,)))}"><code>'
            f"{_shown(s.manifest_id)}</code></a></p>\n        "
        )
        if s.claims:
            count = len(s.claims)
            out.append(
                f"\n        <details open>\n          <summary>{count} cited claim{'' if count == 1 else 's'}</summary>"
                '\n          <ul class="claims">\n            '
            )
            for c in s.claims:
                cid = _shown(c["id"])
                text = _shown(c["text"]) if c["text"] else "<em>Claim text not yet fetched.</em>"
                flag = ' <span class="flag">Self-reported</span>' if c["self_reported"] else ""
                out.append(f'<li id="claim-{cid}">{text}{flag} <code class="claim-id">{cid}</code></li>\n            ')
            out.append("\n          </ul>\n        </details>\n        ")
        out.append("\n      </li>\n      ")
    return mark_safe("".join(out))


def key_facts_html(key_facts: list[dict]) -> SafeString:
    """The key facts list's items, as the template's loop made them."""
    flag = (
        ' <span class="flag" title="Every claim this fact cites is the source reporting on itself">Self-reported</span>'
    )
    return mark_safe(
        "".join(
            f"\n      <li>{_shown(f['text'])}{flag if f['self_reported'] else ''}{_shown(f['markers'])}</li>\n      "
            for f in key_facts
        )
    )


def sections_html(sections: list[dict]) -> SafeString:
    """The story's sections with their paragraphs, as the template's loop made them."""
    out = []
    for s in sections:
        anchor = _shown(s["anchor"])
        out.append(
            f'\n    <section aria-labelledby="{anchor}">\n      <h2 id="{anchor}">{_shown(s["heading"])}</h2>\n      '
        )
        out.extend(f'<div class="para">{_shown(p)}</div>\n      ' for p in s["paragraphs"])
        out.append("\n    </section>\n    ")
    return mark_safe("".join(out))


def markers_html(cites: list[dict], sources: dict[str, Source]) -> SafeString:
    """Numbered cite markers: links to the sources list (they work without JavaScript);
    ``data-claims`` lets the optional script show the cited claim texts in place."""
    out = []
    for cite in cites:
        source = sources.get(cite["manifest_id"])
        if source is None:
            continue
        # format_html's output, without its per-argument lazy-string checks
        n, title = _shown(source.n), _shown(source.title)
        claims = html.escape(" ".join(cite["claim_ids"]))
        out.append(
            f'<sup class="cite"><a href="#source-{n}" data-claims="{claims}" aria-label="Source {n}: {title}">[{n}]</a></sup>'
        )
    return mark_safe("".join(out))


def stored_html(paragraph) -> str:
    """A paragraph row's sanitised HTML: as the commit step stored it with the version, else
    (a row written since without it) rendered now."""
    return paragraph.html or (str(markup.to_html(paragraph.markdown)) if paragraph.markdown else "")


def paragraph_html(html: str, markers: SafeString) -> SafeString:
    """The paragraph's sanitised HTML (``stored_html``) with the markers inside its last block."""
    html = html.rstrip()
    for closing in ("</p>", "</li></ul>", "</li></ol>"):
        if html.endswith(closing):
            return mark_safe(html[: -len(closing)] + markers + closing)
    return mark_safe(html + (format_html('<p class="cites">{}</p>', markers) if markers else ""))


@functools.lru_cache(maxsize=256)
def inline_html(text: str) -> SafeString:
    """``markup.to_inline_html``, once per text: the site profile's few texts (the steps of
    "Run these manifests yourself", the house ad) are on every story page."""
    return markup.to_inline_html(text)


def parse_time(value: str | None) -> dt.datetime | None:
    return dt.datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC) if value else None


def public_rubric(rubric: dict | None) -> dict | None:
    """The recorded rubric as readers may read it: a finding that names another story (a
    near-duplicate, ``not_a_repeat``) names it only while that story is published; else it
    says "a story not published now", without its id, headline or edition. One query, only
    for a rubric with such findings."""
    named = [
        f
        for c in (rubric or {}).get("criteria", [])
        for f in c.get("findings", [])
        if isinstance(f, dict) and f.get("story_id")
    ]
    if not named:
        return rubric
    from stories.models import Story

    public = set(Story.objects.published().filter(id__in={f["story_id"] for f in named}).values_list("id", flat=True))
    if all(f["story_id"] in public for f in named):
        return rubric

    def shown(f: dict) -> dict:
        if f["story_id"] in public:
            return f
        # Rebuilt from the structured fields: nothing of the message's own wording before
        # them (where the hidden headline stands) is kept.
        named = f"story {f['story_id']} ({f.get('headline', '')!r}, edition {f.get('edition', '')})"
        message = f.get("message", "")
        rest = message[len(named) :] if message.startswith(named) else " is a near-duplicate"
        message = "a story not published now" + rest
        return {k: v for k, v in f.items() if k not in ("story_id", "headline", "edition")} | {"message": message}

    return {
        **rubric,
        "criteria": [
            {**c, "findings": [shown(f) if isinstance(f, dict) and f.get("story_id") else f for f in c["findings"]]}
            if c.get("findings")
            else c
            for c in rubric["criteria"]
        ],
    }


def provenance_of(story, d: dict) -> renderings.Provenance:
    """A loaded story's revision time and publication record, as its renderings show them."""
    record = publication_of(story)
    editor = desk.named_editor(d["writer"]["agent"], desk.responsibility_of(story))
    revised_at = desk.format_time(story.revised_at)
    if record is None:
        return renderings.Provenance(revised_at=revised_at, editor=editor)
    return renderings.Provenance(
        revised_at=revised_at,
        editor=editor,
        action=record.action,
        published_version=record.version,
        recorded_at=desk.format_time(record.at),
        passed=record.passed,
        overridden=record.overridden,
        score=record.score,
        reason=record.reason,
        rubric=public_rubric(record.rubric),
    )


def checks_summary(provenance: renderings.Provenance) -> dict:
    """The page's "How this was checked": each failed criterion with what its failure means."""
    failed = [{"name": n, "meaning": desk.FAILED_CRITERIA.get(n, "")} for n in provenance.failed_criteria]
    return {"record": provenance, "failed": failed}


def share_image(d: dict, profile) -> dict:
    """The image shared with the page (og:image): the story's first, else the site's default."""
    if d["images"]:
        return {"url": d["images"][0]["url"], "alt": d["images"][0]["alt"]}
    return {"url": organization.default_image_url(profile), "alt": renderings.site_name()}


def story_context(story, d: dict, profile=None, *, html=None, claims=None) -> dict:
    """Everything ``public/story_detail.html`` reads; ``profile`` is the site profile (loaded
    when not given). ``html`` (each section's paragraph HTML as stored) and ``claims`` (as
    ``claim_texts``) are read from the loaded story when not given (``public.storypage``)."""
    if profile is None:
        from newsroom.models import SiteProfile

        profile = SiteProfile.load()
    provenance = provenance_of(story, d)
    sources = build_sources(d, claim_texts(story) if claims is None else claims)
    by_id = {s.manifest_id: s for s in sources}
    key_facts = [
        {"text": f["text"], "self_reported": f["self_reported"], "markers": markers_html(f["cites"], by_id)}
        for f in d["key_facts"]
    ]
    if html is None:  # the loaded rows are the ones ``d`` was exported from, in the same order
        html = [[stored_html(row) for row in section.paragraphs.all()] for section in story.sections.all()]
    sections = [
        {
            "heading": s["heading"],
            "anchor": f"section-{i}",
            "paragraphs": [
                paragraph_html(h, markers_html(p["cites"], by_id))
                for h, p in zip(section_html, s["paragraphs"], strict=True)
            ],
        }
        for i, (section_html, s) in enumerate(zip(html, d["sections"], strict=True), start=1)
    ]
    rtm = d["run_these_manifests"]
    steps = [
        {"n": st.get("n"), "title": st.get("title", ""), "html": inline_html(st.get("text", ""))}
        for st in rtm.get("steps", [])
    ]
    corrections = [{**c, "at": parse_time(c["corrected_at"])} for c in d["corrections"]]
    return {
        "d": d,
        "story": story,
        "published": parse_time(d["published_at"]),
        "modified": parse_time(renderings.date_modified(d, provenance)),
        "revised": parse_time(provenance.revised_at),
        "checks": checks_summary(provenance),
        "sources": sources,
        "sources_html": sources_html(sources),
        "key_facts": key_facts,
        "key_facts_html": key_facts_html(key_facts),
        "sections": sections,
        "sections_html": sections_html(sections),
        "corrections": corrections,
        "run": rtm,
        "run_steps": steps,
        "jsonld": mark_safe(
            renderings.jsonld_script_text(
                d,
                provenance,
                publisher=organization.publisher_ref(profile),
                default_image=organization.default_image_url(profile),
            )
        ),
        "image": d["images"][0] if d["images"] else None,
        "share_image": share_image(d, profile),
        "sponsor_text": inline_html(d["sponsor"]["text"]) if d.get("sponsor") else "",
        "site_name": renderings.site_name(),
    }
