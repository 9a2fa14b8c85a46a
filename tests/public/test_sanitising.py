"""No script, event handler or javascript: link from story text ever reaches a page."""

import json
import re
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from manifests.models import Manifest
from public import markup
from stories import actions, desk
from stories.actions import record_correction

pytestmark = pytest.mark.django_db

EVIL = '<script>alert(1)</script><img src=x onerror="alert(2)"></p><svg onload=alert(3)>'
URL = "/stories/2026-10-18/evil-story/"


@pytest.fixture
def evil_story(story_doc, manifests_loaded):
    doc = story_doc(id="666", slug="evil-story", edition="2026-10-18T01", published_at="2026-10-18T01:00:00Z")
    doc["headline"] = "Headline " + EVIL
    doc["dek"] = "Dek </script><script>alert('dek')</script>"
    doc["key_facts"][0]["text"] = "Fact " + EVIL
    doc["sections"][0]["heading"] = "Heading " + EVIL
    doc["sections"][0]["paragraphs"][0]["markdown"] = (
        "Para " + EVIL + " [click](javascript:alert(4)) [data](data:text/html,<script>alert(5)</script>) "
        '<a href="javascript:alert(6)" onclick="alert(7)">raw</a> [ok](https://example.org/x "t")'
    )
    doc["sections"][0]["paragraphs"][1]["markdown"] = (
        '![alt text <script>alert(8)</script>" onerror="alert(9)](https://example.org/i.png)'
    )
    doc["images"] = [
        {"url": "https://example.org/a.png", "alt": 'Alt "><script>alert(10)</script>', "caption": EVIL, "credit": EVIL}
    ]
    doc["unresolved"] = ["Unresolved " + EVIL]
    doc["decision_card"] = {"useful_for": [EVIL], "not_for": [], "compare_against": []}
    story = actions.import_story(desk.validate(doc), restore=True).story
    record_correction(story=story, text="Correction " + EVIL, kind="correction")
    Manifest.objects.filter(id="1792067182956183080").update(title="Title " + EVIL)
    return story


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))


def assert_clean(html: str):
    """Parse the page as a browser would: no handler attribute, no script but ours, no
    link or source with a scripting scheme. (The same words may appear as escaped text.)"""
    parser = _Tags()
    parser.feed(html)
    for tag, attrs in parser.tags:
        a = dict(attrs)
        assert not any(name.startswith("on") for name, _ in attrs), (tag, attrs)
        for name in ("href", "src", "action", "content"):
            value = (a.get(name) or "").strip().lower()
            assert not value.startswith(("javascript:", "data:", "vbscript:")), (tag, attrs)
        if tag == "script":
            assert a.get("type") == "application/ld+json" or a.get("src", "").startswith("/static/"), attrs
        assert tag not in ("svg", "iframe", "object", "embed"), tag
        if tag == "img":
            assert a["src"].startswith("https://"), attrs


def test_story_page_escapes_and_sanitises_every_text(client, evil_story):
    html = client.get(URL).content.decode()
    assert_clean(html)
    # the text is still there, shown as text
    assert "Headline &lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "Correction &lt;script&gt;" in html
    assert "Title &lt;script&gt;" in html
    # a safe link survives, with the house rel
    assert '<a href="https://example.org/x" title="t" rel="nofollow noopener">ok</a>' in html


def test_jsonld_cannot_be_closed_by_story_text(client, evil_story):
    html = client.get(URL).content.decode()
    block = re.search(r'<script type="application/ld\+json">(.*?)</script>', html, re.S).group(1)
    assert "<" not in block and ">" not in block
    assert json.loads(block)["description"] == "Dek </script><script>alert('dek')</script>"


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/n/artificial-intelligence/",
        "/editions/2026-10-18T01/",
        "/corrections/",
        "/search/?q=headline",
        "/manifests/1792067182956183080/",
    ],
)
def test_list_pages_escape_story_text(client, evil_story, path):
    response = client.get(path)
    assert response.status_code == 200
    assert_clean(response.content.decode())


def test_markdown_rendering_drops_raw_html_and_bad_schemes():
    html = str(
        markup.to_html('Hi <b onclick="x()">there</b> [a](javascript:void(0)) [b](vbscript:x) [c](mailto:a@b.c)')
    )
    assert "<b" not in html and "&lt;b onclick" in html
    assert 'href="javascript' not in html and 'href="vbscript' not in html
    assert_clean(html)
    assert '<a href="mailto:a@b.c" rel="nofollow noopener">c</a>' in html


def test_sanitiser_strips_what_markdown_might_let_through():
    assert (
        markup.sanitise('<p><a href="javascript:alert(1)" onmouseover="x">a</a><script>bad()</script></p>')
        == '<p><a rel="nofollow noopener">a</a></p>'
    )


def test_markdown_to_text_keeps_words_only():
    # no image is shown (the sanitiser drops it), so its text is not either
    assert markup.to_text("A *b* `c` [d](https://e.org) ![f](https://g.org/h.png)\nnext") == "A b c d  next"
    assert markup.to_text("one\n\ntwo") == "one\n\ntwo"


PROSE = "abcXYZ019 .,;:?'%/()$+=@’‘“”—–-"


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="abcXYZ", min_size=1, max_size=1), st.text(alphabet=PROSE, max_size=60))
def test_plain_prose_is_rendered_as_the_renderer_and_sanitiser_render_it(first, rest):
    """A paragraph of nothing but prose takes a shortcut to its one <p>: the same HTML."""
    from stories.markup import _md, sanitise, to_html

    text = first + rest
    assert to_html(text) == sanitise(_md().render(text))


@pytest.mark.parametrize(
    "text",
    [
        "Plain words, then more: 30.7% of 64k (as stated).",
        "Trailing space ",
        "1. a list",
        "- a list",
        "A <b>tag</b>",
        "A & B",
        'A "quote"',
        "Two\nlines",
        "    code",
        "*emphasis*",
        "[a link](https://example.org)",
        "~~struck~~",
        "Ünïcode words",
        "x\u00a0y",
    ],
)
def test_markdown_and_prose_render_the_same_through_either_path(text):
    from stories.markup import _md, sanitise, to_html

    assert to_html(text) == sanitise(_md().render(text))
