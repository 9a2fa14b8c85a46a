"""/manifests/<id>/: the source, its claims, and the published stories citing each claim."""

import pytest

from tests.public.helpers import import_seed_story

pytestmark = pytest.mark.django_db

MANIFEST = "1792067182956183080"
CITED_BY_PARAGRAPH_ONLY = "1792067413469324577"


def test_manifest_page_shows_source_claims_and_citing_stories(client, demo, seed_manifests_doc):
    html = client.get(f"/manifests/{MANIFEST}/").content.decode()
    [m] = [m for m in seed_manifests_doc["manifests"] if m["manifest_id"] == MANIFEST]
    assert "What RL environments actually fix in enterprise AI deployments" in html
    assert 'href="https://invisibletech.ai/blog/what-rl-environments-fix-in-enterprise-ai-deployments"' in html
    for claim in m["claims"]:
        assert f'id="claim-{claim["claim_id"]}"' in html
    section = html[html.index(f'id="claim-{CITED_BY_PARAGRAPH_ONLY}"') :]
    section = section[: section.index("</li>\n    \n    <li") if "</li>\n    \n    <li" in section else len(section)]
    assert "Cited by:" in section and "/stories/2026-10-16/agent-training-stack/" in section


def test_each_claim_lists_every_citing_story_and_no_draft(client, demo, seed_doc):
    import_seed_story(
        seed_doc, id="920", slug="second-citer", published_at="2026-10-17T01:00:00Z", edition="2026-10-17T01"
    )
    import_seed_story(seed_doc, id="921", slug="draft-citer", published_at=None, edition="2026-10-17T02")
    html = client.get(f"/manifests/{MANIFEST}/").content.decode()
    block = html[html.index(f'id="claim-{CITED_BY_PARAGRAPH_ONLY}"') :].split('<li id="claim-')[0]
    assert "agent-training-stack/" in block and "second-citer/" in block
    assert "draft-citer" not in html


def test_unknown_manifest_is_not_found(client, db):
    assert client.get("/manifests/123/").status_code == 404


def test_manifest_page_query_count_does_not_grow_with_stories(client, demo, seed_doc, django_assert_max_num_queries):
    for i in range(5):
        import_seed_story(
            seed_doc, id=f"93{i}", slug=f"citer-{i}", published_at=f"2026-10-17T0{i}:00:00Z", edition=f"2026-10-17T0{i}"
        )
    with django_assert_max_num_queries(5):
        assert client.get(f"/manifests/{MANIFEST}/").status_code == 200
