"""The read endpoints: published content only, desk/1 documents, filters and their 400s."""

import datetime as dt

import pytest
from django.utils import timezone

from stories import actions
from stories.models import Story
from tests.factories import BeatFactory, NewsroomFactory

pytestmark = pytest.mark.django_db

# Query budgets: 3 for the key (look-up, last use, day count; +3 the first time a day, to
# create the count row), then what the endpoint reads, independent of the page size.


def test_story_list_gives_published_desk_documents(api, demo, make_story, django_assert_max_num_queries):
    make_story(status=Story.Status.DRAFT, slug="a-draft")
    with django_assert_max_num_queries(18):
        response = api.get("/api/v1/stories/")
    assert response.status_code == 200
    body = response.json()
    assert [item["id"] for item in body["results"]] == ["81"]
    item = body["results"][0]
    assert item["version"] == demo.version
    assert item["story"]["schema"] == "hangingcontext.desk/1"
    assert item["story"]["headline"] == demo.headline
    assert item["story"]["cited_manifest_ids"]
    assert body["next"] is None and body["next_cursor"]


def test_story_list_query_count_does_not_grow_with_the_page(api, demo, make_story, django_assert_max_num_queries):
    for _ in range(30):
        make_story()
    # 13 for the stories read from their revisions, 6 more for the factory's stories, which
    # have none and are loaded with everything
    with django_assert_max_num_queries(19):
        assert len(api.get("/api/v1/stories/").json()["results"]) == 31


def test_story_detail_is_the_desk_document(api, demo, django_assert_max_num_queries):
    with django_assert_max_num_queries(18):
        response = api.get("/api/v1/stories/81/")
    assert response.status_code == 200
    assert response.json()["id"] == "81"
    assert response.json()["url"].endswith("/stories/2026-10-16/agent-training-stack/")


def test_unpublished_and_unknown_stories_are_404(api, make_story):
    draft = make_story(status=Story.Status.DRAFT)
    for url in (f"/api/v1/stories/{draft.pk}/", "/api/v1/stories/999/", f"/api/v1/stories/{draft.pk}/ninjs"):
        response = api.get(url)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"


def test_story_ninjs(api, demo, django_assert_max_num_queries):
    with django_assert_max_num_queries(18):
        response = api.get("/api/v1/stories/81/ninjs")
    assert response.status_code == 200
    ninjs = response.json()
    assert ninjs["uri"] == demo.url
    assert ninjs["headlines"][0] == {"role": "main", "value": demo.headline}
    assert ninjs["version"] == str(demo.version)


def test_newsrooms_list_with_counts_and_beats(api, demo, make_story, django_assert_max_num_queries):
    make_story(status=Story.Status.DRAFT)
    with django_assert_max_num_queries(8):
        response = api.get("/api/v1/newsrooms/")
    rooms = {n["slug"]: n for n in response.json()}
    assert rooms["artificial-intelligence"]["published_stories"] == 1
    assert [b["slug"] for b in rooms["artificial-intelligence"]["beats"]] == ["research"]
    assert "desk-news" not in rooms  # only a draft uses it: not public yet


def test_editions_list_only_editions_with_published_stories_newest_first(
    api, make_story, django_assert_max_num_queries
):
    from tests.factories import EditionFactory

    make_story(edition=EditionFactory(id="2026-10-16T00"))
    make_story(edition=EditionFactory(id="2026-10-16T05"))
    make_story(edition=EditionFactory(id="2026-10-16T07"), status=Story.Status.DRAFT)
    with django_assert_max_num_queries(8):
        response = api.get("/api/v1/editions/")
    assert [e["id"] for e in response.json()["results"]] == ["2026-10-16T05", "2026-10-16T00"]
    assert response.json()["results"][0]["published_stories"] == 1


def test_manifest_with_claims(api, demo, django_assert_max_num_queries):
    with django_assert_max_num_queries(8):
        response = api.get("/api/v1/manifests/1792066118701135431/")
    assert response.status_code == 200
    manifest = response.json()
    assert manifest["manifest_id"] == "1792066118701135431"
    assert manifest["claims"] and all(c["text"] for c in manifest["claims"])
    assert "1792066472527654939" in [c["claim_id"] for c in manifest["claims"]]
    assert api.get("/api/v1/manifests/nope/").status_code == 404


def test_corrections_newest_first_published_only(api, make_story, django_assert_max_num_queries):
    first, second = make_story(), make_story()
    actions.record_correction(story=first, text="Fixed a date.", kind="correction")
    actions.record_correction(story=second, text="Clarified a name.", kind="clarification")
    actions.record_correction(story=first, text="Added a source.", kind="update")
    hidden = make_story()
    actions.record_correction(story=hidden, text="Hidden later.", kind="update")
    actions.unpublish_story(story=hidden)
    with django_assert_max_num_queries(8):
        response = api.get("/api/v1/corrections/")
    texts = [c["text"] for c in response.json()["results"]]
    assert texts == ["Added a source.", "Clarified a name.", "Fixed a date."]
    assert response.json()["results"][0]["story_id"] == first.pk


def test_filters(api, make_story):
    ai = NewsroomFactory(slug="ai")
    research = BeatFactory(newsroom=ai, slug="research")
    from tests.factories import EditionFactory

    old = make_story(newsroom=ai, beat=research, published_at=timezone.now() - dt.timedelta(days=3))
    new = make_story(newsroom=ai, edition=EditionFactory(id="2026-10-17T09"))
    other = make_story()

    def ids(**params):
        response = api.get("/api/v1/stories/", params)
        assert response.status_code == 200, response.content
        return {item["id"] for item in response.json()["results"]}

    assert ids(newsroom="ai") == {old.pk, new.pk}
    assert ids(newsroom="ai", beat="research") == {old.pk}
    assert ids(edition="2026-10-17T09") == {new.pk}
    assert ids(edition="2026-10-17") == {new.pk}
    assert ids(published_after=(timezone.now() - dt.timedelta(days=1)).isoformat()) == {new.pk, other.pk}
    Story.objects.filter(pk=old.pk).update(updated_at=timezone.now() - dt.timedelta(days=2))
    since = (timezone.now() - dt.timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert ids(updated_since=since) == {new.pk, other.pk}


@pytest.mark.parametrize(
    "params, parameter",
    [
        ({"newsroom": "no-such-room"}, "newsroom"),
        ({"newsroom": "Not A Slug"}, "newsroom"),
        ({"beat": "nobeat"}, "beat"),
        ({"edition": "yesterday"}, "edition"),
        ({"edition": "2026-02-30"}, "edition"),
        ({"published_after": "last week"}, "published_after"),
        ({"updated_since": "2026-10-16T00:00:00"}, "updated_since"),  # no zone
        ({"updated_since": "2026-13-01T00:00:00Z"}, "updated_since"),
        ({"page_size": "101"}, "page_size"),
        ({"page_size": "zero"}, "page_size"),
        ({"cursor": "not-a-cursor"}, "cursor"),
        ({"cursor": ""}, "cursor"),
        ({"newsroom": ""}, "newsroom"),
        ({"updated_since": ""}, "updated_since"),
    ],
)
def test_bad_filter_values_are_400_naming_the_parameter(api, make_story, params, parameter):
    make_story()
    response = api.get("/api/v1/stories/", params)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "bad_parameter"
    assert error["parameter"] == parameter
    assert error["message"].startswith(parameter)


def test_unknown_api_urls_are_json_404s(api):
    for url in ("/api/v1/stories//", "/api/v1/nothing-here/", "/api/v2/stories/"):
        response = api.get(url)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"


def test_missing_trailing_slash_redirects_keeping_the_method(api):
    response = api.get("/api/v1/newsrooms?x=1")
    assert response.status_code == 308
    assert response["Location"] == "/api/v1/newsrooms/?x=1"
