"""The story page and every rendering of it: content, headers, conditional GET, 404s."""

import json
import re
from html import unescape
from html.parser import HTMLParser

import pytest
from django.core.management import call_command

from stories import actions, desk
from stories.actions import record_correction
from stories.models import Story
from tests.public.helpers import import_seed_story
from tests.seed import SEED_JSON, SEED_TXT

pytestmark = pytest.mark.django_db

URL = "/stories/2026-10-16/agent-training-stack/"


def test_index_txt_is_the_seed_text(client, demo):
    response = client.get(URL + "index.txt")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response.content.decode("utf-8") == SEED_TXT.read_text(encoding="utf-8")


def test_index_json_is_the_seed_json_and_what_export_writes(client, demo, tmp_path):
    response = client.get(URL + "index.json")
    assert response["Content-Type"] == "application/json; charset=utf-8"
    body = response.content.decode("utf-8")
    assert body == SEED_JSON.read_text(encoding="utf-8")
    out = tmp_path / "out.jsonl"
    call_command("export_stories", "81", "--out", str(out))
    assert json.loads(body) == json.loads(out.read_text(encoding="utf-8"))


def test_index_md_has_headline_dek_sections_and_numbered_cites(client, demo, seed_doc):
    response = client.get(URL + "index.md")
    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    text = response.content.decode("utf-8")
    assert text.startswith("# Agent training gets practical")
    assert seed_doc["dek"] in text
    for section in seed_doc["sections"]:
        assert f"## {section['heading']}" in text
    # the second manifest cited is source 2, and its marker links to the manifest page
    assert "[\\[2\\]](https://hangingcontext.com/manifests/1792043738156041460/)" in text
    assert "## Sources" in text and "2. [Long-Horizon RL Needs Muon](https://huggingface.co/papers/2610.20256)" in text


@pytest.mark.parametrize("suffix", ["", "index.json", "index.md", "index.txt"])
def test_every_rendering_has_validators_canonical_link_and_cdn_headers(client, demo, suffix):
    response = client.get(URL + suffix)
    assert response.status_code == 200
    assert "charset=utf-8" in response["Content-Type"]
    assert response["ETag"].startswith('"')
    assert response["Last-Modified"].endswith("GMT")
    assert response["Link"] == '<https://hangingcontext.com/stories/2026-10-16/agent-training-stack/>; rel="canonical"'
    cache_control = response["Cache-Control"]
    assert (
        "public" in cache_control and "s-maxage=300" in cache_control and "stale-while-revalidate=600" in cache_control
    )


@pytest.mark.parametrize("suffix", ["", "index.json", "index.md", "index.txt"])
def test_matching_etag_gets_304(client, demo, suffix):
    first = client.get(URL + suffix)
    again = client.get(URL + suffix, headers={"If-None-Match": first["ETag"]})
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == first["ETag"]
    assert 'rel="canonical"' in again["Link"]
    assert client.get(URL + suffix, headers={"If-None-Match": '"something-else"'}).status_code == 200


def test_if_modified_since_gets_304(client, demo):
    first = client.get(URL + "index.txt")
    again = client.get(URL + "index.txt", headers={"If-Modified-Since": first["Last-Modified"]})
    assert again.status_code == 304


def test_renderings_have_distinct_etags(client, demo):
    etags = {client.get(URL + s)["ETag"] for s in ["", "index.json", "index.md", "index.txt"]}
    assert len(etags) == 4


def test_correction_changes_etag_and_shows_at_once(client, demo):
    before = client.get(URL)
    assert b"Corrections and updates" not in before.content
    record_correction(story=demo, text="An earlier version misnamed the optimizer.", kind="correction")
    after = client.get(URL, headers={"If-None-Match": before["ETag"]})
    assert after.status_code == 200
    assert after["ETag"] != before["ETag"]
    html = after.content.decode()
    assert "Corrections and updates" in html and "An earlier version misnamed the optimizer." in html
    assert json.loads(client.get(URL + "index.json").content)["corrections"][0]["kind"] == "correction"


def test_site_profile_change_changes_etag(client, demo):
    from newsroom.models import SiteProfile

    before = client.get(URL + "index.json")
    profile = SiteProfile.load()
    profile.disclosure = "A new disclosure."
    profile.save()
    after = client.get(URL + "index.json", headers={"If-None-Match": before["ETag"]})
    assert after.status_code == 200
    assert json.loads(after.content)["disclosure"] == "A new disclosure."


@pytest.mark.parametrize("status", ["draft", "scheduled"])
@pytest.mark.parametrize("suffix", ["", "index.json", "index.md", "index.txt"])
def test_unpublished_story_is_not_found(client, demo, status, suffix):
    import datetime as dt

    Story.objects.filter(pk=demo.pk).update(
        status=status, published_at=None, scheduled_for=dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
    )
    assert client.get(URL + suffix).status_code == 404


def test_bad_date_or_slug_is_not_found(client, demo):
    assert client.get("/stories/2026-13-45/agent-training-stack/").status_code == 404
    assert client.get("/stories/nonsense/agent-training-stack/").status_code == 404
    assert client.get("/stories/2026-10-16/no-such-story/index.txt").status_code == 404


def test_post_is_not_allowed(client, demo):
    assert client.post(URL).status_code == 405


class _Outline(HTMLParser):
    """Headings, landmarks, images and scripts of a page."""

    def __init__(self):
        super().__init__()
        self.headings, self.landmarks, self.imgs, self.scripts, self.ids = [], [], [], [], []
        self._script = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if re.fullmatch(r"h[1-6]", tag):
            self.headings.append(int(tag[1]))
        if tag in ("main", "header", "footer", "nav", "aside") or a.get("role"):
            self.landmarks.append(a.get("role") or tag)
        if tag == "img":
            self.imgs.append(a)
        if tag == "script":
            self._script = a
            self.scripts.append([a, ""])

    def handle_data(self, data):
        if self._script is not None:
            self.scripts[-1][1] += data

    def handle_endtag(self, tag):
        if tag == "script":
            self._script = None


def outline(html: str) -> _Outline:
    parser = _Outline()
    parser.feed(html)
    return parser


def test_story_page_shows_provenance(client, demo, seed_doc):
    html = client.get(URL).content.decode()
    assert "Reported · 4 sources" in html
    assert '<time datetime="2026-10-16T00:39:10Z">16 October 2026, 00:39 UTC</time>' in html
    for fact in seed_doc["key_facts"]:
        assert fact["text"] in html.replace("&#x27;", "'")
    assert "Self-reported" in html
    for u in seed_doc["unresolved"]:
        assert u.replace("'", "&#x27;") in html
    assert "Decision card" in html and "Compare against" in html
    for i, m in enumerate(seed_doc["manifests"], start=1):
        assert f'id="source-{i}"' in html and m["title"] in html
    assert "curl -s -H" in html and "Run these Manifests yourself" in html
    assert seed_doc["disclosure"] in html
    assert 'href="https://hangingcontext.com/terms/reuse/"' in html
    assert "The KV cache goes on a diet" in html
    assert "Ask what Synorb covers" in html and 'aria-label="House ad"' in html


def test_cite_markers_are_numbered_by_manifest_order_and_link_to_sources(client, demo):
    html = client.get(URL).content.decode()
    markers = re.findall(r'<sup class="cite"><a href="#source-(\d)" data-claims="([\d ]+)"', html)
    # 5 key facts + 8 paragraphs, one cite each
    assert len(markers) == 13
    # the first paragraph of the "Sharper recipes" section cites manifest 2 (…1460)
    body = html[html.index("Sharper recipes for long horizons</h2>") :]
    assert re.search(r'href="#source-2" data-claims="1792043990912557690 ', body)
    # the claim texts are in the page for every marker, without JavaScript
    for _, claims in markers:
        for cid in claims.split():
            assert f'id="claim-{cid}"' in html


def test_cited_claim_texts_are_in_the_sources_list(client, demo, seed_manifests_doc):
    html = client.get(URL).content.decode()
    texts = {c["claim_id"]: c["text"] for m in seed_manifests_doc["manifests"] for c in m["claims"]}
    claim = re.search(r'<li id="claim-1792067413462310158">([^<]+)', html).group(1)
    assert unescape(claim).strip() == texts["1792067413462310158"]


def test_story_page_is_accessible_shaped(client, demo):
    html = client.get(URL).content.decode()
    o = outline(html)
    assert html.count("<h1") == 1 and o.headings[0] == 1
    # headings never skip a level on the way down
    assert all(b - a <= 1 for a, b in zip(o.headings, o.headings[1:]))
    assert {"banner", "main", "contentinfo"} <= set(o.landmarks) | {"main"}
    assert 'class="skip-link" href="#main"' in html and "main" in o.ids
    assert '<html lang="en">' in html
    # no inline script: only the JSON-LD data block and an external file
    for attrs, text in o.scripts:
        assert attrs.get("type") == "application/ld+json" or (attrs.get("src") and not text.strip())


def test_jsonld_is_a_reportage_news_article_with_citations(client, demo, seed_doc):
    o = outline(client.get(URL).content.decode())
    [data] = [json.loads(text) for attrs, text in o.scripts if attrs.get("type") == "application/ld+json"]
    assert data["@context"] == "https://schema.org"
    assert data["@type"] == "ReportageNewsArticle"
    assert data["headline"] == seed_doc["headline"]
    assert data["description"] == seed_doc["dek"]
    assert data["datePublished"] == data["dateModified"] == "2026-10-16T00:39:10Z"
    assert data["publisher"]["name"] == "Hanging Context"
    assert data["author"]["@type"] == "Organization"
    assert [c["url"] for c in data["citation"]] == [m["source_url"] for m in seed_doc["manifests"]]
    assert all(c["@type"] == "CreativeWork" for c in data["citation"])
    assert data["license"] == "https://hangingcontext.com/terms/reuse/"
    assert "correction" not in data  # no empty arrays
    assert data["image"] == ["https://hangingcontext.com/static/site/default-image.png"]  # the site default


def test_jsonld_of_analysis_is_news_article_with_corrections(client, demo, story_doc):
    doc = story_doc(id="900", slug="analysis-piece", edition="2026-10-17T01", published_at="2026-10-17T01:00:00Z")
    doc["labels"]["trust"] = "analysis"
    doc["images"] = [
        {
            "url": "https://example.org/chart.png",
            "alt": "A chart",
            "caption": "",
            "credit": "",
            "width": 800,
            "height": 600,
        }
    ]
    doc["corrections"] = [
        {"corrected_at": "2026-10-17T05:00:00Z", "kind": "clarification", "text": "Clarified the baseline."}
    ]
    actions.import_story(desk.validate(doc), restore=True)
    html = client.get("/stories/2026-10-17/analysis-piece/").content.decode()
    [data] = [json.loads(t) for a, t in outline(html).scripts if a.get("type") == "application/ld+json"]
    assert data["@type"] == "NewsArticle"
    assert data["dateModified"] == "2026-10-17T05:00:00Z"
    assert data["correction"] == [
        {
            "@type": "CorrectionComment",
            "text": "Clarified the baseline.",
            "datePublished": "2026-10-17T05:00:00Z",
            "name": "Clarification",
        }
    ]
    assert data["image"] == ["https://example.org/chart.png"]
    assert '<meta property="og:image" content="https://example.org/chart.png">' in html
    assert '<meta name="twitter:card" content="summary_large_image">' in html
    assert 'alt="A chart"' in html


def test_open_graph_and_alternate_links(client, demo):
    html = client.get(URL).content.decode()
    assert '<meta property="og:title" content="Agent training gets practical' in html
    assert '<meta name="twitter:card" content="summary_large_image">' in html
    assert '<link rel="canonical" href="https://hangingcontext.com/stories/2026-10-16/agent-training-stack/">' in html
    assert 'type="application/atom+xml"' in html and 'href="/n/artificial-intelligence/feed.atom"' in html
    assert 'type="application/feed+json"' in html
    # the renderings, relative to the page so that they work on any host
    for name in ("index.json", "index.md", "index.txt"):
        assert f'href="{name}"' in html
        assert client.get(URL + name).status_code == 200


@pytest.mark.parametrize("suffix", ["", "index.json", "index.md", "index.txt"])
def test_query_count_is_fixed_whatever_the_story_size(
    client, demo, seed_doc, suffix, django_assert_num_queries, django_assert_max_num_queries
):
    from django.core.cache import cache

    counts = []
    for n, slug in ((2, "small-story"), (30, "large-story")):
        import_seed_story(seed_doc, id=f"9{n}", slug=slug, paragraphs=n)
        cache.clear()
        url = f"/stories/2026-10-16/{slug}/{suffix}"
        # the story row and the site profile, then Story.objects.loaded(): the story with its
        # newsroom and beat, key facts, sections, paragraphs, all cites, all their claims,
        # images, related links, corrections, the audit rows of its publication
        with django_assert_max_num_queries(13) as ctx:
            assert client.get(url).status_code == 200
        counts.append(len(ctx.captured_queries))
        # a cached rendering costs only the lookup of the story row and the site profile
        with django_assert_max_num_queries(2):
            assert client.get(url).status_code == 200
    assert counts[0] == counts[1]


def test_rendered_page_is_cached_by_version(client, demo):
    """Changing a paragraph behind the page's back (no version bump) is not seen; a
    version bump (a save of the story, as every action makes) is."""
    from stories.models import Paragraph

    client.get(URL + "index.txt")
    Paragraph.objects.filter(section__story=demo).update(markdown="Changed text.")
    assert b"Changed text." not in client.get(URL + "index.txt").content
    demo.version += 1
    demo.save(update_fields=["version"])
    assert b"Changed text." in client.get(URL + "index.txt").content


def test_public_pages_set_no_cookie_and_do_not_vary_on_it(client, demo):
    """A CDN may share one copy among all readers only if the page never depends on a cookie."""
    client.cookies["sessionid"] = "whatever"
    for url in (URL, URL + "index.json", "/", "/feed.atom", "/n/artificial-intelligence/"):
        response = client.get(url)
        assert "Cookie" not in response.get("Vary", ""), url
        assert not response.cookies, url


def test_manifest_change_refreshes_the_story_page(client, demo):
    from manifests.models import Manifest

    before = client.get(URL)
    manifest = Manifest.objects.get(id="1792043738156041460")
    manifest.title = "Long-Horizon RL Needs Muon (v2)"
    manifest.save()
    after = client.get(URL, headers={"If-None-Match": before["ETag"]})
    assert after.status_code == 200
    assert "Long-Horizon RL Needs Muon (v2)" in after.content.decode()


def test_no_house_ad_when_the_site_has_none(client, demo):
    from newsroom.models import SiteProfile

    profile = SiteProfile.load()
    profile.sponsor = None
    profile.save()
    html = client.get(URL).content.decode()
    assert 'aria-label="House ad"' not in html and "Ask what Synorb covers" not in html


def test_not_found_page_is_a_site_page(client, db):
    response = client.get("/stories/2026-10-16/nothing-here/")
    assert response.status_code == 404
    assert "There is no published page at this address." in response.content.decode()


def test_only_stories_citing_a_changed_source_are_refreshed(client, demo, seed_doc):
    from manifests.models import Claim, Manifest
    from tests.factories import ManifestFactory

    other = ManifestFactory()
    before = client.get(URL)["ETag"]
    other.title = "Unrelated change"
    other.save()
    assert client.get(URL)["ETag"] == before
    Manifest.objects.get(id="1792043738156041460").save(update_fields=["fetched_at"])
    assert client.get(URL)["ETag"] == before  # bookkeeping only
    claim = Claim.objects.get(id="1792067413462310158")
    claim.text = "A corrected claim text."
    claim.save()
    after = client.get(URL)
    assert after["ETag"] != before
    assert "A corrected claim text." in after.content.decode()


def test_a_cited_claim_moved_to_another_manifest_refreshes_the_stories_citing_it(client, demo):
    """They cite it under its old manifest, which did not change: its own stories follow it."""
    from manifests.models import Claim
    from tests.factories import ManifestFactory

    before = client.get(URL)["ETag"]
    claim = Claim.objects.get(id="1792067413462310158")
    claim.manifest = ManifestFactory()
    claim.text = "A claim moved and reworded."
    claim.save()
    after = client.get(URL)
    assert after["ETag"] != before
    assert "A claim moved and reworded." in after.content.decode()


@pytest.mark.parametrize(
    "url",
    [
        URL,
        "/",
        "/n/artificial-intelligence/",
        "/editions/2026-10-16T00/",
        "/manifests/1792067182956183080/",
        "/corrections/",
        "/search/?q=agent",
        "/terms/reuse/",
        "/stories/2026-10-16/missing/",
    ],
)
def test_every_page_has_one_h1_ordered_headings_landmarks_and_unique_ids(client, demo, url):
    html = client.get(url).content.decode()
    o = outline(html)
    assert o.headings.count(1) == 1 and o.headings[0] == 1, url
    assert all(b - a <= 1 for a, b in zip(o.headings, o.headings[1:])), (url, o.headings)
    assert {"banner", "contentinfo", "main", "search"} <= set(o.landmarks), url
    assert len(o.ids) == len(set(o.ids)), url
    assert all(img.get("alt") for img in o.imgs), url


def test_conditional_get_works_with_a_cache_that_keeps_nothing(client, demo, settings):
    # Django's setting_changed receiver rebuilds the cache handler for the new CACHES.
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    first = client.get(URL)
    assert first.status_code == 200
    assert client.get(URL, headers={"If-None-Match": first["ETag"]}).status_code == 304
    assert client.get(URL + "index.txt").content.decode() == SEED_TXT.read_text(encoding="utf-8")


def test_loaded_reads_what_with_everything_reads_in_fewer_queries(demo, seed_doc, django_assert_num_queries):
    from newsroom.models import SiteProfile
    from stories import desk
    from stories.models import Story

    import_seed_story(seed_doc, id="930", slug="loaded-story", paragraphs=12)
    profile = SiteProfile.load()
    for pk in ("81", "930"):
        expected = desk.export_story(Story.objects.with_everything().get(pk=pk), profile=profile)
        with django_assert_num_queries(11):
            story = Story.objects.published().loaded(pk)
        with django_assert_num_queries(0):
            assert desk.export_story(story, profile=profile) == expected
            assert desk.stored_fields(story)["key_facts"][0]["cites"]  # the key facts' cites are there too
    assert Story.objects.published().loaded("no-such-story") is None
