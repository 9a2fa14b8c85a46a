"""Story Markdown to safe HTML and to plain text.

Story text comes from writer agents: it is rendered with markdown-it-py with raw HTML
turned off, and the HTML is then sanitised with nh3 (an allow-list of tags and
attributes, http/https/mailto links only), so no script, event handler or
``javascript:`` link in a story ever reaches a page.
"""

from __future__ import annotations

import re
from functools import lru_cache

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

ALLOWED_TAGS = {
    "p",
    "a",
    "em",
    "strong",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "br",
    "sup",
    "sub",
    "del",
    "h3",
    "h4",
    "hr",
}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}
URL_SCHEMES = {"http", "https", "mailto"}
LINK_REL = "nofollow noopener"


@lru_cache(maxsize=1)
def _md() -> MarkdownIt:
    # "commonmark" with html off: raw HTML in a story is shown as text, never as markup.
    return MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("strikethrough")


def sanitise(html: str) -> str:
    """HTML restricted to the allow-list (nh3)."""
    return nh3.clean(html, tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES, url_schemes=URL_SCHEMES, link_rel=LINK_REL)


# A paragraph of words, spaces and prose punctuation that starts with a letter and ends
# with no space: nothing in it is Markdown, nothing to escape or sanitise, so its HTML is
# one <p> of the text as it is (tests/public/test_sanitising.py: the same HTML as the
# renderer and the sanitiser give, for every such text). Most story paragraphs are.
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9 .,;:?'%/()$+=@’‘“”—–-]*")


def to_html(markdown: str) -> SafeString:
    """Markdown as sanitised HTML, safe to put in a template."""
    if markdown and _PLAIN.fullmatch(markdown) and not markdown.endswith(" "):
        return mark_safe(f"<p>{markdown}</p>\n")
    return mark_safe(sanitise(_md().render(markdown or "")))


def to_inline_html(markdown: str) -> SafeString:
    """One line of Markdown (no block elements) as sanitised HTML."""
    return mark_safe(sanitise(_md().renderInline(markdown or "")))


def _inline_text(children) -> str:
    out = []
    for tok in children or ():
        if tok.type in ("text", "code_inline", "html_inline"):
            out.append(tok.content)
        elif tok.type == "softbreak":
            out.append(" ")
        elif tok.type == "hardbreak":
            out.append("\n")
        # An image's text is left out: the page shows no image (the sanitiser drops it), so
        # no reader reads it there, and the checks do not read it either.
    return "".join(out)


def to_text(markdown: str) -> str:
    """Markdown as plain text, from markdown-it's tokens: the words a reader sees, with
    blocks separated by a blank line."""
    blocks = []
    for tok in _md().parse(markdown or ""):
        if tok.type == "inline":
            blocks.append(_inline_text(tok.children))
        elif tok.type in ("code_block", "fence"):
            blocks.append(tok.content.rstrip("\n"))
    return "\n\n".join(b for b in blocks if b)
