"""index.md: every text (headline, key facts, unresolved points, corrections) comes back
unchanged from a CommonMark reader: no entity is decoded, no line-leading marker starts a
list, no inline character becomes markup."""

import copy
import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from public import renderings
from stories.markup import _inline_text
from tests.seed import SEED_JSON

COMMONMARK = MarkdownIt("commonmark").enable("strikethrough")
WHEN = "2026-10-17T09:00:00Z"

# Printable text without line breaks or unusual spaces; index.md puts each text on one
# line, so runs of whitespace become one space, which the texts here already are.
texts = (
    st.text(
        alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Co", "Cn", "Zl", "Zp", "Zs")) | st.just(" "),
        min_size=1,
        max_size=60,
    )
    .map(lambda t: " ".join(t.split()))
    .filter(bool)
)


def _doc(seed_doc, text):
    d = copy.deepcopy(seed_doc)
    d.update(
        headline=text,
        dek="",
        key_facts=[{"text": text, "self_reported": False, "cites": []}],
        unresolved=[text],
        corrections=[{"kind": "correction", "corrected_at": WHEN, "text": text}],
        sections=[],
        manifests=[],
    )
    return d


def _sections(markdown: str) -> dict[str, list[str]]:
    """Plain text of each block's inline content, under the ``##`` heading it follows."""
    out, current, heading = {}, None, False
    for tok in COMMONMARK.parse(markdown):
        if tok.type == "heading_open":
            heading = True
        elif tok.type == "inline":
            text = _inline_text(tok.children)
            if heading:
                current = text
                out.setdefault(current, [])
                heading = False
            elif current is not None:
                out[current].append(text)
    return out


def _nesting(markdown: str, heading: str) -> list[str]:
    """The token types between ``heading`` and the next heading."""
    out, inside = [], False
    tokens = COMMONMARK.parse(markdown)
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            inside = tokens[i + 1].content == heading
        elif inside:
            out.append(tok.type)
    return out


def check(seed_doc, text):
    md = renderings.to_markdown(_doc(seed_doc, text))
    headings = [tok for tok in COMMONMARK.parse(md) if tok.type == "heading_open"]
    assert headings[0].tag == "h1"
    assert _inline_text(COMMONMARK.parse(md)[1].children) == text
    found = _sections(md)
    assert found["Key facts"][0] == text
    assert found["Unresolved"][0] == text
    assert found["Corrections"][0] == f"Correction, {WHEN}: {text}"
    for heading in ("Key facts", "Unresolved", "Corrections"):
        types = _nesting(md, heading)
        assert types.count("bullet_list_open") == 1 and "ordered_list_open" not in types, (heading, types)
        assert "hr" not in types and "blockquote_open" not in types


@pytest.mark.parametrize(
    "text",
    [
        "AT&amp;T &copy; 2026",
        "1. first",
        "1) first",
        "+ plus",
        "- minus",
        "* star",
        "# hash",
        "> quote",
        "---",
        "===",
        "```",
        "~~~ fence",
        "<script>alert(1)</script>",
        "[x](javascript:alert(1))",
        "![img](https://x.example/a.png)",
        "**bold** _em_ `code` ~~gone~~",
        "a\\b\\",
        "&#35; &#x23;",
        "<https://auto.example>",
        "[ref]: https://x.example",
        "C# and F#",
    ],
)
def test_texts_come_back_unchanged(seed_doc, text):
    check(seed_doc, text)


@settings(max_examples=150, deadline=None)
@given(text=texts)
@example(text="AT&amp;T &copy; 2026")
def test_any_text_comes_back_unchanged(seed_doc_once, text):
    check(seed_doc_once, text)


@pytest.fixture(scope="module")
def seed_doc_once():
    """The seed story, read once for all of Hypothesis's examples (none mutates it)."""
    return json.loads(SEED_JSON.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "url",
    [
        "https://s.example/a) [planted](https://evil.example/",
        'https://s.example/a b<c>d\\e"f',
        "https://s.example/wiki/Foo_(bar)?q=1&r=%20#frag",
    ],
)
def test_a_source_url_stays_inside_its_link(seed_doc, url):
    d = copy.deepcopy(seed_doc)
    d["manifests"] = d["manifests"][:1]
    d["manifests"][0]["source_url"] = url
    md = renderings.to_markdown(d)
    sources = next(tok for tok in COMMONMARK.parse(md.split("## Sources", 1)[1]) if tok.type == "inline")
    links = [t for t in sources.children if t.type == "link_open"]
    assert len(links) == 1
    assert "evil.example" not in _inline_text(sources.children)
    href = links[0].attrs["href"]
    assert href.startswith("https://s.example/")
    assert not any(c in href for c in ' ()<>\\"')


def test_the_newsroom_title_in_the_byline_is_text(seed_doc):
    """A newsroom's title is text the desk typed: no reader of index.md renders it as HTML
    or markup."""
    d = copy.deepcopy(seed_doc)
    d["newsroom_title"] = "Desk <img src=x onerror=alert(3)> *bold*"
    md = renderings.to_markdown(d)
    byline = next(line for line in md.splitlines() if "Desk" in line)
    tokens = MarkdownIt("commonmark", {"html": True}).parseInline(byline)[0].children
    assert not [t for t in tokens if t.type in ("html_inline", "em_open", "strong_open")]
    assert "Desk <img src=x onerror=alert(3)> *bold*" in _inline_text(tokens)


HTML_READER = MarkdownIt("commonmark", {"html": True}).enable("strikethrough")


def _with_paragraph(seed_doc, markdown: str) -> str:
    d = copy.deepcopy(seed_doc)
    d["sections"] = d["sections"][:1]
    d["sections"][0]["paragraphs"] = [{"markdown": markdown, "cites": d["sections"][0]["paragraphs"][0]["cites"]}]
    return renderings.to_markdown(d)


@pytest.mark.parametrize(
    "markdown",
    [
        "Para <img src=x onerror=alert(1)> and more.",
        "Ends with an open comment\n\n<!--",
        "<script>alert(1)</script>",
        "- a list\n- with <b>bold</b> HTML",
        "```\nan open fence",
        "~~~\nanother open fence",
    ],
)
def test_a_paragraph_cannot_hide_the_sources_or_show_html_to_a_reader_that_renders_it(seed_doc, markdown):
    """The site shows raw HTML in a paragraph as text; index.md is read so by a reader that
    renders HTML too, and no paragraph swallows the sources list or the disclosure."""
    md = _with_paragraph(seed_doc, markdown)
    tokens = HTML_READER.parse(md)
    assert not [t for t in tokens if t.type == "html_block"]
    assert not [c for t in tokens if t.type == "inline" for c in t.children or () if c.type == "html_inline"]
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert "Sources" in headings
    assert any(t.type == "inline" and t.content.startswith("How this was checked") for t in tokens)


@pytest.mark.parametrize(
    "markdown",
    [
        "Plain words, as most paragraphs are.",
        "Some **strong**, _em_ and [a link](https://example.org) with `<code>` and ~~gone~~.",
        "> a quote\n\n```\nclosed <fence>\n```",
        "See <https://example.org/auto> for more.",
    ],
)
def test_a_paragraph_without_html_is_copied_as_written(seed_doc, markdown):
    md = _with_paragraph(seed_doc, markdown)
    assert "\n" + markdown in md
    tokens = HTML_READER.parse(md)
    assert "Sources" in [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]


ANY_LINK_READER = MarkdownIt("commonmark", {"html": True}).enable("strikethrough")
ANY_LINK_READER.validateLink = lambda url: True  # as a Markdown reader that filters no link does


@pytest.mark.parametrize(
    "markdown",
    [
        "See [this](javascript:alert(1)) now.",
        "See [this](JavaScript:alert(1)) now.",
        "See [this](<java\tscript:alert(1)>) now.",
        "See [this](java&#115;cript:alert(1)) now.",
        "An autolink <javascript:alert(1)>.",
        "A [reference][r] link.\n\n[r]: javascript:alert(2)",
        "An image ![i](data:text/html;base64,PHNjcmlwdD4=) here.",
        "[vb](vbscript:msgbox(1))",
    ],
)
def test_a_link_the_site_does_not_make_is_no_link_in_index_md(seed_doc, markdown):
    """The site shows such a link as text (only http, https and mailto links are made);
    index.md gives the paragraph as its words, so no reader of it makes the link either."""
    md = _with_paragraph(seed_doc, markdown)
    urls = [
        c.attrGet("href") or c.attrGet("src") or ""
        for t in ANY_LINK_READER.parse(md)
        if t.type == "inline"
        for c in t.children or ()
        if c.type in ("link_open", "image")
    ]
    assert urls and all(u.startswith(("https://", "http://", "mailto:")) for u in urls), (
        urls
    )  # the cite markers, sources


@pytest.mark.parametrize(
    "markdown",
    [
        "A [relative](/stories/x/) link, a [fragment](#top) and a [query](?a=b:c).",
        "At 10:30, [mail](mailto:a@b.example).",
    ],
)
def test_links_the_site_makes_are_copied_as_written(seed_doc, markdown):
    assert "\n" + markdown in _with_paragraph(seed_doc, markdown)
