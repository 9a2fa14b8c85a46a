"""The client against a live test server of the project: walking the cursor, conditional
GETs, a story, its ninjs and checks.json, the checks, submissions and the API's errors."""

import datetime as dt

import pytest
from newsroom_client import ApiError, Client, InvalidDocument

pytestmark = pytest.mark.slow


@pytest.fixture
def reader(site, keys):
    with Client(site, keys[0], timeout=10) as client:
        yield client


@pytest.fixture
def writer(site, keys):
    with Client(site, keys[1], timeout=10) as client:
        yield client


@pytest.fixture
def more_stories(site, make_story):
    """Three more published stories besides the demo's."""
    return [make_story(slug=f"walk-{i}").id for i in range(3)]


def test_iter_stories_follows_the_cursor_to_the_end_and_keeps_where_to_resume(reader, more_stories):
    walk = reader.iter_stories(page_size=2)
    ids = [item["id"] for item in walk]
    assert sorted(ids) == sorted(["81", *more_stories]) and len(ids) == len(set(ids))
    assert walk.pages == 2 and walk.cursor
    assert all(isinstance(item["version"], int) and item["story"]["id"] == item["id"] for item in reader.iter_stories())


def test_a_poll_from_the_kept_cursor_costs_a_304_when_nothing_changed_and_finds_what_did(
    reader, more_stories, make_story
):
    walk = reader.iter_stories(page_size=100)
    list(walk)
    again = reader.iter_stories(cursor=walk.cursor)
    assert list(again) == []
    before = reader.stats.not_modified
    third = reader.iter_stories(cursor=walk.cursor)
    assert list(third) == [] and reader.stats.not_modified == before + 1  # unchanged: no body
    new = make_story(slug="fresh").id
    assert [item["id"] for item in reader.iter_stories(cursor=walk.cursor)] == [new]


def test_updated_since_filters_by_the_time_of_change(reader, more_stories):
    future = dt.datetime.now(dt.UTC) + dt.timedelta(days=1)
    assert list(reader.iter_stories(updated_since=future)) == []
    assert len(list(reader.iter_stories(updated_since="2000-01-01T00:00:00Z"))) == 4


def test_a_story_its_ninjs_and_its_checks_record(reader):
    story = reader.get_story("81")
    assert story["id"] == "81" and story["schema"] == "hangingcontext.desk/1"
    assert reader.get_ninjs("81")["uri"] == story["url"]
    record = reader.get_checks_record("81")
    assert record["story"]["id"] == "81" and record["publication"]["checks_passed"] is True
    assert {c["name"] for c in record["rubric"]["criteria"]} >= {"claims_support", "not_a_repeat"}
    requests = reader.stats.requests
    reader.get_story("81")
    assert reader.stats.requests == requests + 1 and reader.stats.not_modified >= 1


def test_an_unpublished_or_unknown_story_is_a_404(reader):
    with pytest.raises(ApiError) as caught:
        reader.get_story("nope")
    assert caught.value.status == 404 and caught.value.code == "not_found"


def test_the_checks_answer_with_the_rubric_and_name_a_planted_fault(reader, seed_doc):
    assert reader.check(seed_doc)["passed"] is True
    seed_doc["sections"][0]["paragraphs"][0]["cites"] = []
    rubric = reader.check(seed_doc)
    failing = {c["name"] for c in rubric["criteria"] if not c["passed"]}
    assert "paragraphs_cited" in failing and rubric["score"] < 1


def test_an_invalid_document_is_an_invalid_document_error_with_its_path(reader, seed_doc):
    del seed_doc["headline"]
    with pytest.raises(InvalidDocument) as caught:
        reader.check(seed_doc)
    assert caught.value.path == "headline"


def test_a_writer_submits_a_draft_and_a_read_key_may_not(reader, writer, story_doc):
    doc = story_doc(id=None, slug="agent-draft", corrections=[])
    done = writer.submit(doc)
    assert done["status"] == "draft" and done["id"] and isinstance(done["failed_criteria"], list)
    with pytest.raises(ApiError) as caught:
        reader.submit(doc)
    assert caught.value.status == 403


def test_a_bad_key_is_refused_with_401(site, keys):
    with Client(site, "hc_nope_nothing") as client, pytest.raises(ApiError) as caught:
        client.get_story("81")
    assert caught.value.status == 401
