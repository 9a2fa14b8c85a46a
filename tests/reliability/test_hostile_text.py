"""Hostile story text renders inert everywhere: every public page, feed, sitemap and
rendering, and the admin's generic story and manifest pages.

``tests/public/test_sanitising.py`` covers the story page and list pages with a few
payloads; this file puts a whole corpus into every text a story, its manifests and claims
can carry (including URLs the validator lets through) and parses every response as its
consumer would: HTML with ``html.parser``, feeds as XML and the HTML inside them as HTML,
JSON as JSON.
"""

import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from manifests.formats import import_manifests_document
from stories import actions, desk
from stories.actions import record_correction
from stories.models import Story

pytestmark = pytest.mark.django_db

PAYLOADS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    '"><script>alert(3)</script>',
    "'><svg onload=alert(4)>",
    "</script><script>alert(5)</script>",
    "{{ request.user.password }}{% debug %}",
    "[x](javascript:alert(6))",
    "[y](JaVaScRiPt:alert(7))",
    "[z](&#106;avascript:alert(8))",
    "[t](java&#x09;script:alert(9))",
    "![i](javascript:alert(10))",
    "[d](data:text/html;base64,PHNjcmlwdD5hbGVydCgxMSk8L3NjcmlwdD4=)",
    '<a href="javascript:alert(12)">a</a>',
    '<p style="background:url(javascript:alert(13))">css</p>',
    '<iframe src="javascript:alert(14)"></iframe>',
    "[k](<javascript:alert(15)>)",
    "<<script>script>alert(16)<</script>/script>",
    "[r]: javascript:alert(17)\n\n[ref][r]",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(18)>",
    "\u202e<b>rtl</b>",
]
HOSTILE = " ".join(PAYLOADS)
SHORT = '"><script>alert(0)</script><img src=x onerror=alert(0)>{{x}}'  # for 500-character fields
# URLs the desk/1 validator accepts (http(s), no spaces) that would break out of an attribute.
EVIL_URL = 'https://example.org/a.png"onerror="alert(20)"><script>alert(21)</script>'
EVIL_SOURCE_URL = "https://example.org/'onmouseover='alert(22)'"

STORY = "/stories/2026-10-18/hostile/"
MANIFEST = "1792067182956183080"


@pytest.fixture
def hostile(story_doc, seed_manifests_doc):
    """The seed with every text replaced by the corpus, imported with hostile manifests and
    claims, published, and corrected with a hostile correction."""
    manifests = seed_manifests_doc
    for m in manifests["manifests"]:
        m["title"] = ("Title " + SHORT)[:500]
        m["source_name"] = ("Source " + SHORT)[:200]
        m["source_url"] = EVIL_SOURCE_URL
        for claim in m["claims"]:
            claim["text"] = "Claim " + HOSTILE
    import_manifests_document(manifests)

    doc = story_doc(id="666", slug="hostile", edition="2026-10-18T01", published_at="2026-10-18T01:00:00Z")
    doc["newsroom"] = "hostile-desk"
    doc["newsroom_title"] = "Desk " + SHORT
    doc["headline"] = "Headline " + SHORT
    doc["dek"] = "Dek " + HOSTILE
    doc["angle"] = "Angle " + HOSTILE
    doc["writer"] = {"agent": "Agent " + SHORT, "run_id": SHORT}
    for fact in doc["key_facts"]:
        fact["text"] = "Fact " + HOSTILE
    for section in doc["sections"]:
        section["heading"] = "Heading " + SHORT
        for para in section["paragraphs"]:
            para["markdown"] = "Para " + HOSTILE
    doc["images"] = [
        {"url": EVIL_URL, "alt": "Alt " + SHORT, "caption": "Caption " + HOSTILE, "credit": "Credit " + SHORT}
    ]
    doc["unresolved"] = ["Unresolved " + HOSTILE]
    doc["decision_card"] = {k: [k + " " + HOSTILE] for k in ("useful_for", "not_for", "compare_against")}
    doc["related"] = [{"url": EVIL_URL, "headline": "Related " + SHORT, "slug": "hostile"}]
    doc.pop("manifests")  # imported above, with their claims
    story = actions.import_story(desk.validate(json.loads(json.dumps(doc))), restore=True).story
    record_correction(story=story, text="Correction " + HOSTILE, kind="correction")
    return Story.objects.get(pk=story.pk)


# --------------------------------------------------------------------------- inspecting

SCHEMES = ("javascript:", "vbscript:", "data:")
URL_ATTRS = ("href", "src", "action", "formaction", "xlink:href", "poster", "background", "srcset", "content", "data")
FORBIDDEN_TAGS = ("svg", "math", "iframe", "object", "embed", "base", "frame", "frameset", "applet")


class Page(HTMLParser):
    """Start tags with attributes, and the text of each <script>."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.scripts, self._in_script = [], [], None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))
        if tag == "script":
            self._in_script = [dict(attrs), ""]

    def handle_data(self, data):
        if self._in_script is not None:
            self._in_script[1] += data

    def handle_endtag(self, tag):
        if tag == "script" and self._in_script is not None:
            self.scripts.append(tuple(self._in_script))
            self._in_script = None


def scheme_of(value: str) -> str:
    # Browsers drop ASCII whitespace and control characters inside a scheme.
    return re.sub(r"[\x00-\x20]", "", value).lower()


def assert_inert_html(html: str, *, where: str, admin: bool = False):
    """No script but JSON-LD (or, in the admin, its own static files and JSON data), no
    event handler, no style from text, no scripting URL, none of the tags that smuggle them."""
    page = Page()
    page.feed(html)
    page.close()
    for tag, attrs in page.tags:
        # The admin draws its own icons as inline SVG; story text never reaches one (no handlers).
        assert tag not in FORBIDDEN_TAGS or (admin and tag == "svg"), (where, tag, attrs)
        for name, value in attrs:
            assert not name.startswith("on"), (where, tag, attrs)
            value = value or ""
            if name in URL_ATTRS:
                assert not scheme_of(value).startswith(SCHEMES), (where, tag, attrs)
                assert not any(scheme_of(part).startswith(SCHEMES) for part in value.split(",")), (where, tag, attrs)
            if name == "style":
                assert "url(" not in value and "expression" not in value, (where, tag, attrs)
        if tag == "img" and not admin:
            assert dict(attrs).get("src", "").startswith(("https://", "/static/")), (where, attrs)
    for attrs, text in page.scripts:
        kind = attrs.get("type", "")
        if kind == "application/ld+json":
            assert "</script" not in text.lower() and "<!--" not in text, where
            json.loads(text)
        elif admin and kind == "application/json":
            json.loads(text)  # json_script: Django escapes <, > and & inside it
        else:
            own = ("/static/", "/admin/jsi18n/") if admin else ("/static/",)  # same-origin script files only
            assert attrs.get("src", "").startswith(own) and not text.strip(), (where, attrs, text[:80])


def assert_no_raw_payload(body: str, *, where: str):
    """The markup of a payload never appears as markup (as escaped text it may)."""
    for raw in ("<script>alert", "<img src=x", "<svg onload", "<iframe", '<a href="javascript', "<p style="):
        assert raw not in body, (where, raw)


def html_inside_feed(root) -> list[str]:
    """The texts a feed reader renders as HTML: Atom ``type="html"`` elements, RSS descriptions."""
    atom = "{http://www.w3.org/2005/Atom}"
    texts = [el.text or "" for el in root.iter() if el.get("type") in ("html", "xhtml") and el.tag.startswith(atom)]
    texts += [el.text or "" for el in root.iter("description")]
    return texts


# --------------------------------------------------------------------------- the site


HTML_PAGES = [
    STORY,
    "/",
    "/n/hostile-desk/",
    "/editions/2026-10-18T01/",
    "/corrections/",
    "/search/?q=headline",
    "/search/?q=" + "%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E",
    f"/manifests/{MANIFEST}/",
    "/terms/reuse/",
    "/manifests/%3Cscript%3Ealert(1)%3C%2Fscript%3E/",  # a 404 that echoes nothing
]


@pytest.mark.parametrize("path", HTML_PAGES)
def test_every_html_page_renders_the_corpus_inert(client, hostile, path, django_assert_max_num_queries):
    with django_assert_max_num_queries(30):
        response = client.get(path)
    assert response.status_code in (200, 404), path
    assert response["Content-Type"].startswith("text/html")
    body = response.content.decode()
    assert_inert_html(body, where=path)
    assert_no_raw_payload(body, where=path)


def test_the_story_page_shows_the_payloads_as_text(client, hostile):
    body = client.get(STORY).content.decode()
    assert "Headline &quot;&gt;&lt;script&gt;" in body
    assert "{{x}}" in body  # template syntax in text stays text: never evaluated
    assert "Correction &lt;script&gt;" in body
    for shown in (
        "Claim &lt;script&gt;",
        "Title &quot;&gt;&lt;script&gt;",
        "Source &quot;&gt;",
        "Alt &quot;&gt;&lt;script&gt;",
    ):
        assert shown in body, shown


RENDERINGS = {"index.json": "application/json", "index.md": "text/markdown", "index.txt": "text/plain"}


@pytest.mark.parametrize("name", RENDERINGS)
def test_renderings_are_served_as_data_never_as_html(client, hostile, name):
    response = client.get(STORY + name)
    assert response.status_code == 200
    # The text is kept verbatim here (it is the data); what keeps it inert is the type.
    assert response["Content-Type"].startswith(RENDERINGS[name])
    assert response.get("X-Content-Type-Options") == "nosniff"
    if name == "index.json":
        data = json.loads(response.content)
        assert data["headline"] == "Headline " + SHORT
        assert data["corrections"][-1]["text"] == "Correction " + HOSTILE


@pytest.mark.parametrize("path", ["/feed.atom", "/feed.rss", "/n/hostile-desk/feed.atom", "/n/hostile-desk/feed.rss"])
def test_xml_feeds_parse_and_carry_no_live_html(client, hostile, path):
    response = client.get(path)
    assert response.status_code == 200
    root = ET.fromstring(response.content)
    titles = [el.text for el in root.iter() if el.tag.endswith("title")]
    assert "Headline " + SHORT in titles  # as text: the XML parser unescaped it once
    embedded = html_inside_feed(root)
    assert embedded, "the feed carries no description to check"
    for html in embedded:
        assert_inert_html(html, where=path)
        assert_no_raw_payload(html, where=path)


@pytest.mark.parametrize("path", ["/feed.json", "/n/hostile-desk/feed.json"])
def test_json_feeds_parse_and_carry_text_not_html(client, hostile, path):
    data = json.loads(client.get(path).content)
    item = next(i for i in data["items"] if i["title"].startswith("Headline"))
    assert "content_html" not in item  # only content_text: readers never render it as HTML
    assert item["summary"] == "Dek " + HOSTILE


@pytest.mark.parametrize("path", ["/sitemap.xml", "/sitemap-news.xml"])
def test_sitemaps_parse_and_list_only_our_urls(client, hostile, path):
    root = ET.fromstring(client.get(path).content)
    locs = [el.text for el in root.iter() if el.tag.endswith("}loc")]
    assert all(loc.startswith("https://") for loc in locs)
    if path == "/sitemap.xml":  # an index: the story is in its month's sitemap (the news
        # sitemap lists only the last two days' stories)
        assert "https://hangingcontext.com/sitemaps/2026-10.xml" in locs
        month = ET.fromstring(client.get("/sitemaps/2026-10.xml").content)
        story_locs = [el.text for el in month.iter() if el.tag.endswith("}loc")]
        assert all(loc.startswith("https://") for loc in story_locs)
        assert any("/stories/2026-10-18/hostile/" in loc for loc in story_locs)


def test_reuse_json_and_robots_parse(client, hostile):
    json.loads(client.get("/.well-known/reuse.json").content)
    assert client.get("/robots.txt")["Content-Type"].startswith("text/plain")


# --------------------------------------------------------------------------- the admin


@pytest.fixture
def superuser_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.com", "pw-long-enough-123"))
    return client


@pytest.mark.parametrize(
    "path",
    ["/admin/stories/story/", "/admin/stories/story/666/change/", f"/admin/manifests/manifest/{MANIFEST}/change/"],
)
def test_admin_pages_escape_the_corpus(superuser_client, hostile, path):
    response = superuser_client.get(path)
    assert response.status_code == 200, path
    body = response.content.decode()
    assert_no_raw_payload(body, where=path)
    assert_inert_html(body, where=path, admin=True)


def test_news_sitemap_carries_a_hostile_headline_as_text(client, hostile):
    from django.utils import timezone

    Story.objects.filter(pk=hostile.pk).update(published_at=timezone.now())
    root = ET.fromstring(client.get("/sitemap-news.xml").content)
    assert "Headline " + SHORT in [el.text for el in root.iter()]


def test_feed_summary_is_the_dek_escaped_once(client, hostile):
    """Regression: the dek went into Atom's <summary type="html"> unescaped, so a reader
    ran "<script>" from a dek as HTML. Now the reader shows the dek's text, as written."""
    root = ET.fromstring(client.get("/feed.atom").content)
    summary = next(el for el in root.iter("{http://www.w3.org/2005/Atom}summary"))
    assert summary.get("type") == "html"
    assert summary.text.startswith("Dek &lt;script&gt;alert(1)&lt;/script&gt;")
