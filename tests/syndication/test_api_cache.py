"""The story endpoints serve cached representations (stories.cache, shared with the story
pages): byte for byte what they rendered before, in a fixed and small number of queries,
and never stale."""

import datetime as dt

import pytest
from django.core.cache import cache
from rest_framework.renderers import JSONRenderer

from manifests.models import Claim, Manifest, Publisher
from newsroom.infra.pagecache import bump
from newsroom.models import Newsroom, SiteProfile
from stories import actions, desk
from stories.models import Story
from syndication.ninjs import to_ninjs
from syndication.renderers import policy_links, writer_of

pytestmark = pytest.mark.django_db

LIST = "/api/v1/stories/"


def reference(data) -> bytes:
    """What the endpoints answered before the cache: DRF's JSON renderer on the dicts."""
    return JSONRenderer().render(data, None, {})


def loaded(story_id) -> Story:
    return Story.objects.published().with_everything().get(pk=story_id)


def reference_list(body: dict) -> bytes:
    profile = SiteProfile.load()
    items = []
    for item in body["results"]:
        story = loaded(item["id"])
        items.append(
            {
                "id": story.id,
                "version": story.version,
                "updated_at": desk.format_time(story.updated_at),
                "story": desk.export_story(story, profile=profile),
            }
        )
    return reference({"next": body["next"], "next_cursor": body["next_cursor"], "results": items})


@pytest.fixture
def stories(demo, make_story):
    """The demo story (cites, manifests) and bare ones, one with characters JSON treats
    specially (U+2028 is escaped by DRF's renderer, é is written as UTF-8)."""
    make_story(headline='Line\u2028separator, paragraph\u2029separator, café, "quoted" \\ slash', dek="</script>")
    for _ in range(4):
        make_story()
    return demo


@pytest.mark.parametrize("query", ["", "?page_size=2", "?newsroom=desk-news&page_size=3", "?updated_since=2020-01-01"])
def test_list_is_byte_identical_cold_and_warm(api, stories, query):
    cold = api.get(LIST + query)
    warm = api.get(LIST + query)
    assert cold.status_code == warm.status_code == 200
    assert cold.content == warm.content == reference_list(cold.json())
    assert cold["ETag"] == warm["ETag"] and cold["Last-Modified"] == warm["Last-Modified"]
    assert cold["Content-Type"] == "application/json"
    assert "\\u2028" in cold.content.decode() or query  # the escaped story is on the default page


def test_following_next_walks_every_story_byte_identically(api, stories):
    url, seen = LIST + "?page_size=2", []
    api.get(LIST)  # warm some entries, not all pages' ones in the same way
    while url:
        response = api.get(url)
        assert response.content == reference_list(response.json())
        seen += [item["id"] for item in response.json()["results"]]
        url = response.json()["next"]
    assert len(seen) == len(set(seen)) == Story.objects.published().count()


def test_detail_and_ninjs_are_byte_identical_cold_and_warm(api, stories):
    for story in Story.objects.published():
        full = loaded(story.pk)
        doc = desk.export_story(full)
        ninjs = to_ninjs(
            doc,
            version=story.version,
            writer=writer_of(full),
            policies=policy_links(SiteProfile.load()),
        )
        for url, expected in (
            (f"/api/v1/stories/{story.pk}/", reference(doc)),
            (f"/api/v1/stories/{story.pk}/ninjs", reference(ninjs)),
        ):
            cold, warm = api.get(url), api.get(url)
            assert cold.content == warm.content == expected, url
            assert cold["ETag"] == warm["ETag"]


def test_an_uncached_server_answers_the_same_bytes(api, stories, settings):
    warm = [api.get(url).content for url in (LIST, LIST, "/api/v1/stories/81/", "/api/v1/stories/81/ninjs")]
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    uncached = [api.get(url).content for url in (LIST, LIST, "/api/v1/stories/81/", "/api/v1/stories/81/ninjs")]
    assert warm == uncached


def test_indented_json_is_still_given_when_asked_for(api, stories):
    api.get("/api/v1/stories/81/")
    response = api.get("/api/v1/stories/81/", HTTP_ACCEPT="application/json; indent=2")
    doc = desk.export_story(loaded("81"))
    assert response.content == JSONRenderer().render(doc, "application/json; indent=2", {})
    assert response.content.startswith(b'{\n  "schema"')


# --------------------------------------------------------------------------- queries


def warm_up(api, *urls):
    for url in urls:
        # The first records the key's last use (not again for a minute), the second caches the key.
        assert api.get(url).status_code == 200
        assert api.get(url).status_code == 200


def test_a_warm_list_costs_no_query(api, stories, django_assert_num_queries):
    warm_up(api, LIST)
    with django_assert_num_queries(0):  # the stored answer (syndication.fastpath): no page query
        response = api.get(LIST)
    assert len(response.json()["results"]) == 6


def test_a_warm_detail_and_ninjs_cost_no_query(api, stories, django_assert_num_queries):
    warm_up(api, "/api/v1/stories/81/", "/api/v1/stories/81/ninjs")
    with django_assert_num_queries(0):  # the stored answer (syndication.fastpath)
        assert api.get("/api/v1/stories/81/").status_code == 200
    with django_assert_num_queries(0):
        assert api.get("/api/v1/stories/81/ninjs").status_code == 200
    with django_assert_num_queries(0):  # and a conditional request as much
        etag = api.get("/api/v1/stories/81/")["ETag"]
    with django_assert_num_queries(0):
        assert api.get("/api/v1/stories/81/", HTTP_IF_NONE_MATCH=etag).status_code == 304


def test_only_the_missing_stories_are_loaded_and_stored(api, stories, make_story, django_assert_num_queries):
    warm_up(api, LIST)
    new = make_story()  # a new story, at the end of the list; the others are stored
    # + the new story alone: read for its revision (6 queries for a story without cites:
    # the row, its publication records, revision, paragraphs, key facts, corrections), and
    # as a factory's story has no revision, then with everything (7), and the profile
    with django_assert_num_queries(1 + 6 + 7 + 1) as captured:
        assert len(api.get(LIST).json()["results"]) == 7
    loads = [q["sql"] for q in captured.captured_queries if '"stories_story"."id" IN (' in q["sql"]]
    assert len(loads) == 2
    assert all(f"IN ('{new.pk}')" in sql for sql in loads)
    with django_assert_num_queries(0):  # then the stored answer (syndication.fastpath)
        api.get(LIST)


@pytest.mark.parametrize("count", [3, 40])
def test_a_cold_list_costs_the_same_whatever_its_length(api, demo, make_story, count, django_assert_num_queries):
    for _ in range(count - 1):
        make_story()
    warm_up(api, "/api/v1/newsrooms/")
    cache.clear()
    # the key, the page, the stories' revisions and rows (6: the factory's stories have no
    # revision, so no claims or manifests), then with everything (9), the profile
    with django_assert_num_queries(2 + 6 + 9 + 1):
        assert len(api.get(LIST).json()["results"]) == count


# --------------------------------------------------------------------------- never stale


def warm(api, *story_ids):
    bodies = {"list": api.get(LIST + "?page_size=100").json()}
    for sid in story_ids:
        bodies[sid] = api.get(f"/api/v1/stories/{sid}/").json()
        bodies[sid + "/ninjs"] = api.get(f"/api/v1/stories/{sid}/ninjs").json()
    return bodies


def listed(api, story_id) -> dict | None:
    items = {item["id"]: item for item in api.get(LIST + "?page_size=100").json()["results"]}
    return items.get(story_id)


def test_a_publication_shows_at_once(api, stories, make_story):
    draft = make_story(status=Story.Status.DRAFT, headline="Now published")
    warm(api, "81")
    assert listed(api, draft.pk) is None
    actions.publish_story(story=draft, override_reason="a bare test story fails the checks")
    assert listed(api, draft.pk)["story"]["headline"] == "Now published"
    assert api.get(f"/api/v1/stories/{draft.pk}/").json()["headline"] == "Now published"


def test_an_unpublication_shows_at_once(api, stories):
    warm(api, "81")
    actions.unpublish_story(story=stories, reason="legal")
    assert listed(api, "81") is None
    assert api.get("/api/v1/stories/81/").status_code == 404
    assert api.get("/api/v1/stories/81/ninjs").status_code == 404


def test_a_correction_shows_at_once_with_a_new_etag(api, stories):
    before = warm(api, "81")
    etag = api.get("/api/v1/stories/81/")["ETag"]
    actions.record_correction(story=stories, text="The date was wrong.", kind="correction")
    assert api.get("/api/v1/stories/81/", HTTP_IF_NONE_MATCH=etag).status_code == 200
    item = listed(api, "81")
    assert item["version"] == Story.objects.get(pk="81").version > before["list"]["results"][0]["version"]
    assert item["story"]["corrections"][-1]["text"] == "The date was wrong."
    assert api.get("/api/v1/stories/81/").json()["corrections"][-1]["text"] == "The date was wrong."
    ninjs = api.get("/api/v1/stories/81/ninjs").json()
    assert any("The date was wrong." in t["title"] for t in ninjs["trustIndicators"])


def test_an_import_that_changes_a_story_shows_at_once(api, stories):
    warm(api, "81")
    doc = desk.export_story(loaded("81"))
    doc["headline"] = "Re-imported headline"
    actions.import_story(desk.validate(doc), restore=True)
    assert listed(api, "81")["story"]["headline"] == "Re-imported headline"
    assert api.get("/api/v1/stories/81/").json()["headline"] == "Re-imported headline"
    assert api.get("/api/v1/stories/81/ninjs").json()["headlines"][0]["value"] == "Re-imported headline"


def test_a_manifest_edit_shows_at_once(api, stories):
    before = warm(api, "81")
    manifest = Manifest.objects.get(pk=before["81"]["manifests"][0]["manifest_id"])
    manifest.title = "A retitled source"
    manifest.save()
    assert listed(api, "81")["story"]["manifests"][0]["title"] == "A retitled source"
    assert api.get("/api/v1/stories/81/").json()["manifests"][0]["title"] == "A retitled source"
    assert "A retitled source" in {s["name"] for s in api.get("/api/v1/stories/81/ninjs").json()["infoSources"]}


def test_a_claim_edit_shows_at_once(api, stories):
    before = warm(api, "81")
    fact = next(f for f in before["81"]["key_facts"] if f["cites"] and f["cites"][0]["claim_ids"])
    claims = Claim.objects.filter(pk__in=[cid for c in fact["cites"] for cid in c["claim_ids"]])
    for claim in claims:
        claim.self_reported = not fact["self_reported"]
        claim.save()
    index = before["81"]["key_facts"].index(fact)
    assert listed(api, "81")["story"]["key_facts"][index]["self_reported"] is (not fact["self_reported"])
    assert api.get("/api/v1/stories/81/").json()["key_facts"][index]["self_reported"] is (not fact["self_reported"])


def test_site_profile_newsroom_and_publisher_edits_show_at_once(api, stories):
    before = warm(api, "81")
    profile = SiteProfile.load()
    profile.disclosure = (
        {**profile.disclosure, "text": "A new disclosure."}
        if isinstance(profile.disclosure, dict)
        else "A new disclosure."
    )
    profile.save()
    assert listed(api, "81")["story"]["disclosure"] == profile.disclosure
    newsroom = Newsroom.objects.get(slug=before["81"]["newsroom"])
    newsroom.title = "Renamed desk"
    newsroom.save()
    assert listed(api, "81")["story"]["newsroom_title"] == "Renamed desk"
    assert api.get("/api/v1/stories/81/").json()["newsroom_title"] == "Renamed desk"
    publisher = Publisher.objects.get(name=before["81"]["manifests"][0]["source_name"])
    publisher.name = "Renamed Press"
    publisher.save()
    assert "Renamed Press" in listed(api, "81")["story"]["publishers"]
    assert "Renamed Press" in api.get("/api/v1/stories/81/").json()["publishers"]


def test_a_lost_generation_renders_again_rather_than_serving_an_old_entry(api, stories):
    warm(api, "81")
    Story.objects.filter(pk="81").update(headline="Changed behind every signal's back")
    assert api.get("/api/v1/stories/81/").json()["headline"] != "Changed behind every signal's back"  # cached
    # Evicted: new counters, so no entry made under the old ones is used (the stored answer
    # follows ``lists``, the representation ``sources``).
    cache.delete_many(["gen:sources", "gen:lists"])
    assert api.get("/api/v1/stories/81/").json()["headline"] == "Changed behind every signal's back"
    assert listed(api, "81")["story"]["headline"] == "Changed behind every signal's back"


def test_the_list_etag_changes_with_any_story_on_it(api, stories):
    etag = api.get(LIST)["ETag"]
    assert api.get(LIST, HTTP_IF_NONE_MATCH=etag).status_code == 304
    actions.record_correction(story=stories, text="Fixed.", kind="clarification")
    response = api.get(LIST, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200 and response["ETag"] != etag
    assert "Authorization" in response["Vary"]


def test_entries_are_keyed_by_version_so_an_old_one_is_never_served(api, stories):
    warm(api, "81")
    story = Story.objects.get(pk="81")
    story.headline = "Saved with a new version"
    story.version += 1
    story.save()
    assert api.get("/api/v1/stories/81/").json()["headline"] == "Saved with a new version"
    assert listed(api, "81")["version"] == story.version


def test_a_save_without_a_version_bump_also_refreshes(api, stories):
    warm(api, "81")
    story = Story.objects.get(pk="81")
    story.headline = "Saved without a version bump"
    story.save()
    assert listed(api, "81")["story"]["headline"] == "Saved without a version bump"
    assert api.get("/api/v1/stories/81/").json()["headline"] == "Saved without a version bump"


def test_a_raw_update_of_version_and_time_shows_at_once(api, stories):
    """Even one that sends no signal, as the bulk import writes (it moves ``lists`` once for
    the batch, which the stored answers follow): representations are keyed by what the page
    query reads."""
    warm(api, "81")
    Story.objects.filter(pk="81").update(
        headline="Bulk-updated", version=99, updated_at=dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
    )
    bump("lists")
    assert listed(api, "81")["story"]["headline"] == "Bulk-updated"
    assert api.get("/api/v1/stories/81/").json()["headline"] == "Bulk-updated"
    assert api.get("/api/v1/stories/81/ninjs").json()["version"] == "99"
