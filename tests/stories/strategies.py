"""Hypothesis strategies for valid desk/1 stories: unicode text, optional fields, empty
lists, corrections, images, drafts, cites over the manifests of ``documents.CLAIMS``."""

import datetime as dt

from hypothesis import strategies as st

from tests.stories.documents import CLAIMS, NEWSROOM_TITLES

# Any character desk/1 accepts: no surrogates, no NUL (PostgreSQL text refuses it), no
# character XML 1.0 cannot hold (the other C0 controls but tab, newline and carriage return,
# U+FFFE and U+FFFF: feeds and sitemaps are XML); DEL and the C1 controls allowed.
NOT_XML = "".join(map(chr, [*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0xFFFE, 0xFFFF]))
chars = st.characters(blacklist_categories=("Cs",), blacklist_characters=NOT_XML)
text = st.text(chars, max_size=30)
nonempty = text.filter(lambda s: s.strip())
slug = st.from_regex(r"[a-z0-9]{1,6}(-[a-z0-9]{1,6}){0,2}", fullmatch=True)
hour = st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2099, 12, 31), timezones=st.just(dt.UTC))
edition = hour.map(lambda d: d.strftime("%Y-%m-%dT%H"))
timestamp = hour.map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ"))
url = st.builds(lambda path: f"https://example.org/{path}", st.from_regex(r"[a-z0-9/_.-]{0,20}", fullmatch=True))


def cites_of(mid):
    return st.lists(st.sampled_from(sorted(CLAIMS[mid])), unique=True, max_size=3).map(
        lambda ids: {"manifest_id": mid, "claim_ids": ids}
    )


cite = st.sampled_from(sorted(CLAIMS)).flatmap(cites_of)
cites = st.lists(cite, max_size=3)
image = st.fixed_dictionaries(
    {
        "url": url,
        "alt": nonempty,
        "caption": text,
        "credit": text,
        "width": st.none() | st.integers(0, 100_000),
        "height": st.none() | st.integers(0, 100_000),
    }
)
section = st.fixed_dictionaries(
    {"heading": text, "paragraphs": st.lists(st.fixed_dictionaries({"markdown": nonempty, "cites": cites}), max_size=3)}
)
corrections = st.lists(
    st.tuples(timestamp, st.sampled_from(["correction", "clarification", "update"]), nonempty), max_size=3
).map(lambda items: [{"corrected_at": t, "kind": k, "text": x} for t, k, x in sorted(items, key=lambda i: i[0])])
related = st.fixed_dictionaries({"url": url, "headline": nonempty, "slug": st.just("") | slug})

stored = st.fixed_dictionaries(
    {
        "id": st.from_regex(r"[0-9]{19}", fullmatch=True),
        "slug": slug,
        "edition": edition,
        "newsroom": st.sampled_from(sorted(NEWSROOM_TITLES)),
        "beat": st.none() | slug,
        "audience": st.from_regex(r"[a-z0-9_-]{0,12}", fullmatch=True),
        "angle": text,
        "headline": nonempty,
        "dek": text,
        "published_at": st.none() | timestamp,
        "trust": slug,
        "key_facts": st.lists(st.fixed_dictionaries({"text": nonempty, "cites": cites}), max_size=3),
        "images": st.lists(image, max_size=2),
        "sections": st.lists(section, max_size=3),
        "unresolved": st.lists(nonempty, max_size=2),
        "decision_card": st.fixed_dictionaries(
            {k: st.lists(nonempty, max_size=2) for k in ("useful_for", "not_for", "compare_against")}
        ),
        "writer": st.fixed_dictionaries({"agent": text, "run_id": text}),
        "corrections": corrections,
        "related": st.lists(related, max_size=2),
    }
)


def ordered(d: dict, keys: str) -> dict:
    return {k: d[k] for k in keys.split()}


def in_spec_order(v: dict) -> dict:
    """The generated parts with their keys in desk/1's order (strategies do not promise one)."""
    cites = lambda cs: [ordered(c, "manifest_id claim_ids") for c in cs]  # noqa: E731
    return {
        **v,
        "key_facts": [{"text": f["text"], "cites": cites(f["cites"])} for f in v["key_facts"]],
        "images": [ordered(i, "url alt caption credit width height") for i in v["images"]],
        "sections": [
            {
                "heading": s["heading"],
                "paragraphs": [{"markdown": p["markdown"], "cites": cites(p["cites"])} for p in s["paragraphs"]],
            }
            for s in v["sections"]
        ],
        "decision_card": ordered(v["decision_card"], "useful_for not_for compare_against"),
        "writer": ordered(v["writer"], "agent run_id"),
        "corrections": [ordered(c, "corrected_at kind text") for c in v["corrections"]],
        "related": [ordered(r, "url headline slug") for r in v["related"]],
    }
