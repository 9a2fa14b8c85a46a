"""/corrections/ and /search/."""

import re
from html import unescape

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from stories.actions import record_correction
from stories.models import Story
from tests.public.helpers import import_seed_story

pytestmark = pytest.mark.django_db


def test_corrections_page_lists_all_corrections_newest_first(client, demo, seed_doc):
    other = import_seed_story(
        seed_doc, id="940", slug="other-story", published_at="2026-10-17T01:00:00Z", edition="2026-10-17T01"
    )
    record_correction(story=demo, text="First fix.", kind="correction")
    record_correction(story=other, text="Second fix.", kind="clarification")
    record_correction(story=demo, text="Third fix.", kind="update")
    html = client.get("/corrections/").content.decode()
    assert html.index("Third fix.") < html.index("Second fix.") < html.index("First fix.")
    assert "Clarification," in html and 'href="/stories/2026-10-17/other-story/"' in html


def test_corrections_of_unpublished_stories_are_not_listed(client, demo):
    record_correction(story=demo, text="Hidden fix.", kind="correction")
    Story.objects.filter(pk=demo.pk).update(status="draft", published_at=None)
    assert "Hidden fix." not in client.get("/corrections/").content.decode()


def test_corrections_query_count(client, demo, django_assert_max_num_queries):
    for i in range(5):
        record_correction(story=demo, text=f"Fix {i}.", kind="correction")
    with django_assert_max_num_queries(2):
        assert client.get("/corrections/").status_code == 200


def next_link(html: str) -> str | None:
    found = re.search(r'<a rel="next" href="([^"]*)"', html)
    return unescape(found.group(1)) if found else None


def test_corrections_are_paginated_by_cursor_without_a_total(client, demo, monkeypatch):
    monkeypatch.setattr("public.views.story.CORRECTIONS_PAGE_SIZE", 2)
    for i in range(5):
        record_correction(story=demo, text=f"Fix {i}.", kind="correction")
    seen, url, pages = [], "/corrections/", 0
    while url:
        with CaptureQueriesContext(connection) as ctx:
            html = client.get(url).content.decode()
        assert len(ctx.captured_queries) <= 2 and "COUNT(" not in ctx.captured_queries[0]["sql"].upper()
        seen += re.findall(r"<p>(Fix \d\.)</p>", html)
        url, pages = next_link(html), pages + 1
        assert url is None or url.startswith("/corrections/?before=")
    assert seen == ["Fix 4.", "Fix 3.", "Fix 2.", "Fix 1.", "Fix 0."]
    assert pages == 3
    assert client.get("/corrections/?page=1")["Location"] == "/corrections/"
    assert client.get("/corrections/?page=2").status_code == 302
    assert client.get("/corrections/?page=4").status_code == 404


@pytest.mark.parametrize("page", ["501", "999999", "+0999999", "1000000"])
def test_an_old_page_link_too_deep_is_not_found_without_an_offset(client, demo, page):
    """An OFFSET of millions of rows on every request (the 404 is not cached) is not
    anyone's to ask for."""
    for url in ("/corrections/", "/n/artificial-intelligence/"):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url, {"page": page}).status_code == 404
        assert not [q["sql"] for q in queries.captured_queries if "OFFSET" in q["sql"].upper()]
    with CaptureQueriesContext(connection) as queries:  # an old link within reach still looks its page up
        client.get("/corrections/", {"page": "500"})
    assert [q["sql"] for q in queries.captured_queries if "OFFSET" in q["sql"].upper()]


@pytest.fixture
def searchable(demo, seed_doc):
    doc_para = [
        {
            "markdown": "Quantum annealers schedule freight trains in Rotterdam.",
            "cites": seed_doc["sections"][0]["paragraphs"][0]["cites"],
        }
    ]
    import_seed_story(
        seed_doc,
        id="950",
        slug="freight-story",
        headline="Trains, scheduled",
        dek="Logistics news.",
        published_at="2026-10-17T01:00:00Z",
        edition="2026-10-17T01",
        sections=[{"heading": "Rail", "paragraphs": doc_para}],
    )
    import_seed_story(
        seed_doc,
        id="951",
        slug="hidden-freight",
        headline="Freight draft",
        published_at=None,
        edition="2026-10-17T02",
        sections=[{"heading": "Rail", "paragraphs": doc_para}],
    )


def results(client, q):
    response = client.get("/search/", {"q": q})
    assert response.status_code == 200
    return response.content.decode()


def test_search_finds_words_in_paragraphs(client, searchable):
    html = results(client, "freight Rotterdam")
    assert "/stories/2026-10-17/freight-story/" in html
    assert "agent-training-stack" not in html
    assert "hidden-freight" not in html  # drafts are never found


def test_search_finds_headline_words(client, searchable):
    assert "agent-training-stack" in results(client, "optimizers")


def test_search_needs_every_word(client, searchable):
    html = results(client, "freight optimizers")
    assert "freight-story" not in html and "agent-training-stack" not in html


def test_search_with_no_match_or_no_query(client, searchable):
    assert "No story matches" in results(client, "zzzyzx")
    assert "Type words to look for" in results(client, "")


def test_search_escapes_the_query(client, searchable):
    html = results(client, "<script>alert(1)</script>")
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)" in html


@pytest.mark.skipif(connection.vendor != "postgresql", reason="ranked search is PostgreSQL's")
def test_postgres_search_ranks_by_weight(client, searchable):
    ids = list(Story.objects.published().search("freight").values_list("id", flat=True))
    assert ids == ["950"]
    story = Story.objects.published().search("Rotterdam").get()
    assert story.search_rank > 0


def test_search_query_count(client, searchable, django_assert_num_queries):
    # a page of results (one row more, to know whether another follows) and no count
    with django_assert_num_queries(1):
        assert "agent-training-stack" in results(client, "agent")


def test_search_pages_have_numbers_and_links_but_no_total(client, searchable, seed_doc, monkeypatch):
    for i in range(2):
        import_seed_story(
            seed_doc,
            id=f"96{i}",
            slug=f"freight-{i}",
            headline=f"Freight & rail {i}",
            published_at=f"2026-10-18T0{i}:00:00Z",
            edition=f"2026-10-18T0{i}",
        )
    monkeypatch.setattr("public.views.story.PAGE_SIZE", 1)
    first = client.get("/search/", {"q": "freight &"}).content.decode()
    assert "<p>Stories for “freight &amp;”.</p>" in first
    assert 'rel="next" href="/search/?q=freight+%26&amp;page=2"' in first  # the query is encoded, then escaped
    assert "<span>Page 1</span>" in first and 'rel="prev"' not in first
    second = client.get(next_link(first)).content.decode()
    assert "<span>Page 2</span>" in second and 'rel="prev" href="/search/?q=freight+%26"' in second
    assert client.get("/search/", {"q": "freight &", "page": "50"}).status_code == 404  # past the last result
    assert client.get("/search/", {"q": "freight &", "page": "51"}).status_code == 404  # past the last page


@pytest.mark.skipif(connection.vendor != "postgresql", reason="ranked search is PostgreSQL's")
def test_postgres_search_puts_headline_matches_above_body_matches(client, searchable, seed_doc):
    # newer, but the word is only in a paragraph (950); older, with the word in the headline (952)
    import_seed_story(
        seed_doc,
        id="952",
        slug="rotterdam-headline",
        headline="Rotterdam port automates",
        published_at="2026-10-16T05:00:00Z",
        edition="2026-10-16T05",
    )
    html = results(client, "Rotterdam")
    assert html.index("rotterdam-headline/") < html.index("freight-story/")
