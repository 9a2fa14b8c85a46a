"""desk/1's derived fields, one by one: what the export computes from the stored story, the
manifest records and the site profile (docs/desk-1.md, "stored or derived")."""

import pytest

from manifests.formats import import_manifests_document
from newsroom.models import Newsroom, SiteProfile
from stories import actions, desk
from stories.models import Story

pytestmark = pytest.mark.django_db

ZETA_1, ALPHA, ZETA_2 = "1000000000000000001", "1000000000000000002", "1000000000000000003"
SOURCES = {
    # manifest id: (source_name, title, [(claim id, self_reported)])
    ZETA_1: ("zeta-news", "Zeta reports one", [("2000000000000000011", True), ("2000000000000000012", True)]),
    ALPHA: ("alpha-blog", "Alpha on its own work", [("2000000000000000021", False)]),
    ZETA_2: ("zeta-news", "Zeta reports two", [("2000000000000000031", True)]),
}


def manifests_document(sources=SOURCES) -> dict:
    return {
        "schema": "hangingcontext.manifests/1",
        "manifests": [
            {
                "manifest_id": mid,
                "title": title,
                "source_name": source,
                "source_url": f"https://example.org/{mid}",
                "published_date": "2026-10-15",
                "claims": [
                    {"claim_id": cid, "text": f"Claim {cid} says so.", "self_reported": flag} for cid, flag in claims
                ],
            }
            for mid, (source, title, claims) in sources.items()
        ],
    }


def story_listing(mid: str) -> dict:
    source, title, _ = SOURCES[mid]
    return {
        "manifest_id": mid,
        "title": title,
        "source_name": source,
        "source_url": f"https://example.org/{mid}",
        "published_date": "2026-10-15",
    }


@pytest.fixture
def sources(db):
    import_manifests_document(manifests_document())


def cite(mid, *claim_ids):
    return {"manifest_id": mid, "claim_ids": list(claim_ids)}


def para(*cites, text="A paragraph."):
    return {"markdown": text, "cites": list(cites)}


def fact(*cites, text="A fact.", self_reported=None):
    out = {"text": text, "cites": list(cites)}
    if self_reported is not None:
        out["self_reported"] = self_reported
    return out


ONE_CITED_PARAGRAPH = (para(cite(ZETA_1, "2000000000000000011")),)


def make_doc(*, key_facts=(), paragraphs=ONE_CITED_PARAGRAPH, **fields) -> dict:
    doc = {
        "schema": "hangingcontext.desk/1",
        "type": "story",
        "id": "500",
        "slug": "derived-test",
        "edition": "2026-10-16T09",
        "newsroom": "artificial-intelligence",
        "beat": "research",
        "newsroom_title": "Artificial Intelligence",
        "headline": "A story to derive from",
        "published_at": "2026-10-16T09:30:00Z",
        "key_facts": list(key_facts),
        "sections": [{"heading": "Only section", "paragraphs": list(paragraphs)}],
        "manifests": [story_listing(mid) for mid in SOURCES],
    }
    doc.update(fields)
    return doc


def exported(doc: dict) -> dict:
    """Import ``doc`` and export it back out of the database."""
    actions.import_story(desk.validate(doc), restore=True)
    return desk.export_story(Story.objects.with_everything().get(id=doc["id"]))


# --------------------------------------------------------------------------- url, links, reuse


def test_url_is_site_url_stories_edition_date_slug(sources):
    out = exported(make_doc())
    assert out["url"] == "https://hangingcontext.com/stories/2026-10-16/derived-test/"


def test_links_are_built_from_url_newsroom_and_edition(sources):
    out = exported(make_doc())
    url = "https://hangingcontext.com/stories/2026-10-16/derived-test/"
    assert out["links"] == {
        "html": url,
        "json": url + "index.json",
        "markdown": url + "index.md",
        "newsroom": "https://hangingcontext.com/n/artificial-intelligence/",
        "edition": "https://hangingcontext.com/editions/2026-10-16T09/",
    }


def test_reuse_canonical_url_is_the_story_url(sources):
    out = exported(make_doc())
    assert out["reuse"]["canonical_url"] == out["url"]
    assert out["reuse"]["license_url"] == "https://hangingcontext.com/terms/reuse/"
    assert list(out["reuse"])[-1] == "canonical_url"


def test_site_url_setting_changes_every_url(sources, settings):
    settings.SITE_URL = "https://news.example.org"
    out = exported(make_doc())
    url = "https://news.example.org/stories/2026-10-16/derived-test/"
    assert out["url"] == url
    assert out["links"]["json"] == url + "index.json"
    assert out["links"]["newsroom"] == "https://news.example.org/n/artificial-intelligence/"
    assert out["links"]["edition"] == "https://news.example.org/editions/2026-10-16T09/"
    assert out["reuse"]["canonical_url"] == url
    assert out["reuse"]["machine_url"] == "https://news.example.org/.well-known/reuse.json"
    assert "hangingcontext.com" not in desk.dumps(out)


# --------------------------------------------------------------------------- labels, counts, publishers


def test_labels_default_trust_is_reported_and_trust_text_is_singular_for_one_source(sources):
    out = exported(make_doc())
    assert out["labels"] == {
        "trust": "reported",
        "trust_text": "Reported · 1 source",
        "newsroom": "Artificial Intelligence",
    }


def test_trust_text_is_plural_and_uses_the_editorial_label(sources):
    doc = make_doc(
        labels={"trust": "fact-check"},
        paragraphs=[para(cite(ZETA_1, "2000000000000000011")), para(cite(ALPHA, "2000000000000000021"))],
    )
    out = exported(doc)
    assert out["labels"]["trust"] == "fact-check"
    assert out["labels"]["trust_text"] == "Fact-check · 2 sources"


def test_trust_text_with_no_cites_says_zero_sources(sources):
    out = exported(make_doc(labels={"trust": "analysis"}, paragraphs=[para()]))
    assert out["labels"]["trust_text"] == "Analysis · 0 sources"
    assert out["source_count"] == 0
    assert out["publishers"] == [] and out["cited_manifest_ids"] == [] and out["manifests"] == []


def test_source_count_counts_distinct_manifests(sources):
    doc = make_doc(
        key_facts=[fact(cite(ZETA_1, "2000000000000000011"))],
        paragraphs=[
            para(cite(ZETA_1, "2000000000000000012")),
            para(cite(ZETA_1, "2000000000000000011"), cite(ZETA_2, "2000000000000000031")),
        ],
    )
    out = exported(doc)
    assert out["source_count"] == 2
    assert out["labels"]["trust_text"] == "Reported · 2 sources"


def test_publishers_are_distinct_source_names_sorted(sources):
    doc = make_doc(
        paragraphs=[
            para(cite(ZETA_1, "2000000000000000011")),
            para(cite(ZETA_2, "2000000000000000031")),
            para(cite(ALPHA, "2000000000000000021")),
        ]
    )
    assert exported(doc)["publishers"] == ["alpha-blog", "zeta-news"]


def test_labels_newsroom_and_newsroom_title_come_from_the_newsroom_record(sources):
    Newsroom.objects.create(slug="climate", title="Climate Desk")
    out = exported(make_doc(newsroom="climate", newsroom_title="Something Else"))
    assert out["newsroom_title"] == "Climate Desk"
    assert out["labels"]["newsroom"] == "Climate Desk"
    Newsroom.objects.filter(slug="climate").update(title="Climate and Energy")
    again = desk.export_story(Story.objects.with_everything().get(id="500"))
    assert again["newsroom_title"] == again["labels"]["newsroom"] == "Climate and Energy"


# --------------------------------------------------------------------------- cited manifests


def test_cited_manifest_ids_in_first_appearance_order_key_facts_first(sources):
    doc = make_doc(
        key_facts=[fact(cite(ZETA_2, "2000000000000000031"))],
        paragraphs=[
            para(cite(ALPHA, "2000000000000000021")),
            para(cite(ZETA_1, "2000000000000000011"), cite(ALPHA, "2000000000000000021")),
            para(cite(ZETA_2, "2000000000000000031")),
        ],
    )
    out = exported(doc)
    assert out["cited_manifest_ids"] == [ZETA_2, ALPHA, ZETA_1]
    assert all(isinstance(mid, str) for mid in out["cited_manifest_ids"])


def test_manifests_follow_cited_order_with_fields_from_the_manifest_records(sources):
    doc = make_doc(
        key_facts=[fact(cite(ALPHA, "2000000000000000021"))],
        paragraphs=[para(cite(ZETA_1, "2000000000000000011"))],
    )
    out = exported(doc)
    assert out["manifests"] == [
        {
            "manifest_id": ALPHA,
            "title": "Alpha on its own work",
            "source_name": "alpha-blog",
            "source_url": f"https://example.org/{ALPHA}",
            "published_date": "2026-10-15",
        },
        {
            "manifest_id": ZETA_1,
            "title": "Zeta reports one",
            "source_name": "zeta-news",
            "source_url": f"https://example.org/{ZETA_1}",
            "published_date": "2026-10-15",
        },
    ]
    assert [list(m) for m in out["manifests"]] == [
        ["manifest_id", "title", "source_name", "source_url", "published_date"]
    ] * 2


def test_manifests_list_of_the_document_does_not_override_the_database(sources):
    doc = make_doc()
    doc["manifests"][0]["title"] = "A stale title"
    assert exported(doc)["manifests"][0]["title"] == "Zeta reports one"


def test_run_these_manifests_lists_cited_ids_and_builds_both_commands(sources, seed_doc):
    doc = make_doc(
        key_facts=[fact(cite(ALPHA, "2000000000000000021"))],
        paragraphs=[para(cite(ZETA_1, "2000000000000000011"))],
    )
    run = exported(doc)["run_these_manifests"]
    assert list(run) == list(seed_doc["run_these_manifests"])
    assert run["manifest_ids"] == [ALPHA, ZETA_1]
    assert run["commands"]["one"] == (
        f'curl -s -H "Authorization: Bearer $SYNORB_KEY" https://api.synorb.com/manifests/by-id/{ALPHA}'
    )
    assert run["commands"]["all"] == (
        f"for id in {ALPHA} {ZETA_1}; do\n"
        '  curl -s -H "Authorization: Bearer $SYNORB_KEY" "https://api.synorb.com/manifests/by-id/$id"\n'
        "done"
    )
    for key in ("title", "summary", "steps", "mcp_url", "connect_url", "request"):
        assert run[key] == seed_doc["run_these_manifests"][key]


def test_run_these_manifests_texts_come_from_the_site_profile(sources):
    profile = SiteProfile.load()
    profile.run_these_manifests = {**profile.run_these_manifests, "title": "Check the sources"}
    profile.command_one = "fetch {url}"
    profile.save()
    run = exported(make_doc())["run_these_manifests"]
    assert run["title"] == "Check the sources"
    assert run["commands"]["one"] == f"fetch https://api.synorb.com/manifests/by-id/{ZETA_1}"


# --------------------------------------------------------------------------- site-level texts


def test_sponsor_disclosure_and_reuse_default_to_the_seeds(sources, seed_doc):
    out = exported(make_doc(writer={"agent": "muse", "run_id": "r1"}))
    assert out["sponsor"] == seed_doc["sponsor"]
    assert out["disclosure"] == seed_doc["disclosure"]
    assert {k: v for k, v in out["reuse"].items() if k != "canonical_url"} == {
        k: v for k, v in seed_doc["reuse"].items() if k != "canonical_url"
    }
    assert list(out)[-4:] == ["related", "sponsor", "disclosure", "reuse"]


@pytest.mark.parametrize("empty", [None, {}])
def test_sponsor_is_absent_when_the_profile_has_none(sources, empty):
    SiteProfile.objects.update_or_create(singleton=True, defaults={"sponsor": empty})
    out = exported(make_doc())
    assert "sponsor" not in out
    assert list(out)[-3:] == ["related", "disclosure", "reuse"]


def test_disclosure_and_reuse_overrides_reflect_in_export(sources):
    profile = SiteProfile.load()
    profile.disclosure = "Written by people, checked by machines."
    profile.reuse = {"version": "2", "summary": "All rights reserved.", "license_url": "{site_url}/licence/"}
    profile.sponsor = {"label": "Ad", "title": "Buy", "text": "Now"}
    profile.save()
    out = exported(make_doc(writer={"agent": "muse", "run_id": "r1"}))
    assert out["disclosure"] == "Written by people, checked by machines."
    assert out["reuse"] == {
        "version": "2",
        "summary": "All rights reserved.",
        "license_url": "https://hangingcontext.com/licence/",
        "canonical_url": out["url"],
    }
    assert out["sponsor"] == {"label": "Ad", "title": "Buy", "text": "Now"}


# --------------------------------------------------------------------------- key facts' self_reported


def test_key_fact_is_self_reported_when_every_cited_claim_is(sources):
    doc = make_doc(
        key_facts=[
            fact(
                cite(ZETA_1, "2000000000000000011", "2000000000000000012"),
                cite(ZETA_2, "2000000000000000031"),
                self_reported=False,
            )
        ]
    )
    assert exported(doc)["key_facts"][0]["self_reported"] is True


def test_key_fact_is_not_self_reported_when_one_cited_claim_is_not(sources):
    doc = make_doc(
        key_facts=[fact(cite(ZETA_1, "2000000000000000011"), cite(ALPHA, "2000000000000000021"), self_reported=True)]
    )
    assert exported(doc)["key_facts"][0]["self_reported"] is False


@pytest.mark.parametrize("declared", [True, False])
def test_key_fact_over_stub_claims_keeps_the_imported_flag(db, declared):
    doc = make_doc(key_facts=[fact(cite(ALPHA, "2000000000000000021"), self_reported=declared)])
    assert exported(doc)["key_facts"][0]["self_reported"] is declared


def test_key_fact_flag_is_recomputed_once_the_claims_are_imported(db):
    doc = make_doc(key_facts=[fact(cite(ALPHA, "2000000000000000021"), self_reported=True)])
    assert exported(doc)["key_facts"][0]["self_reported"] is True
    import_manifests_document(manifests_document())  # the claim says: not self-reported
    out = desk.export_story(Story.objects.with_everything().get(id="500"))
    assert out["key_facts"][0]["self_reported"] is False


def test_key_fact_with_a_stub_among_known_self_reported_claims_keeps_the_imported_flag(db):
    import_manifests_document(manifests_document({ZETA_1: SOURCES[ZETA_1]}))
    doc = make_doc(
        key_facts=[fact(cite(ZETA_1, "2000000000000000011"), cite(ALPHA, "2000000000000000021"), self_reported=False)]
    )
    assert exported(doc)["key_facts"][0]["self_reported"] is False


def test_key_fact_without_cites_or_flag_is_not_self_reported(sources):
    doc = make_doc(key_facts=[fact(), fact(self_reported=True)])
    assert [f["self_reported"] for f in exported(doc)["key_facts"]] == [False, True]


# --------------------------------------------------------------------------- the whole document


def test_export_keys_are_in_the_seed_order(sources, seed_doc):
    assert list(exported(make_doc())) == list(seed_doc)


def test_render_document_before_import_equals_export_after(sources):
    doc = make_doc(
        key_facts=[fact(cite(ALPHA, "2000000000000000021"), self_reported=True)],
        paragraphs=[para(cite(ZETA_1, "2000000000000000011"))],
    )
    preview = desk.render_document(desk.validate(doc))
    assert exported(doc) == preview


def test_render_document_uses_the_storys_manifests_list_for_unknown_manifests(db):
    doc = make_doc()
    preview = desk.render_document(desk.validate(doc))
    assert preview["manifests"] == [story_listing(ZETA_1)]
    assert preview["publishers"] == ["zeta-news"]
    assert exported(doc) == preview


def test_export_story_makes_no_queries_beyond_the_loaded_story(sources, django_assert_num_queries):
    exported(make_doc(key_facts=[fact(cite(ALPHA, "2000000000000000021"))]))
    story = Story.objects.with_everything().get(id="500")
    profile = SiteProfile.load()
    with django_assert_num_queries(0):
        desk.export_story(story, profile=profile)


def test_commands_edited_with_shell_braces_render(sources):
    profile = SiteProfile.load()
    profile.command_one = 'curl -H "Authorization: Bearer ${SYNORB_KEY}" {url}'
    profile.command_all = "for id in {ids}; do curl -s \"{url_var}\" | jq '{claims: .claims}'; done"
    profile.save()
    run = exported(make_doc())["run_these_manifests"]
    assert (
        run["commands"]["one"]
        == f'curl -H "Authorization: Bearer ${{SYNORB_KEY}}" https://api.synorb.com/manifests/by-id/{ZETA_1}'
    )
    assert run["commands"]["all"] == (
        f"for id in {ZETA_1}; do curl -s \"https://api.synorb.com/manifests/by-id/$id\" | jq '{{claims: .claims}}'; done"
    )
