"""``not_a_repeat``: near-duplicates among recent published stories of the same newsroom,
found through stored fingerprints."""

import pytest

from stories import actions, desk, minhash
from stories.models import Story, StoryFingerprint
from tests.stories.helpers import errors, failing, para, rubric_of

pytestmark = pytest.mark.django_db


def near_duplicate(
    story_doc,
    *,
    id="1792200000000000001",
    slug="agent-training-earlier",
    edition="2026-10-15T12",
    published=True,
    **overrides,
):
    doc = story_doc(
        id=id, slug=slug, edition=edition, published_at=f"{edition}:30:00Z" if published else None, **overrides
    )
    doc["headline"] = "Agent training turns practical: environments, optimizers and programmatic tools"
    doc["sections"] = doc["sections"][:3]  # a lightly cut copy
    return doc


def store(doc):
    return actions.import_story(desk.validate(doc), restore=True).story


def test_saving_a_story_stores_its_fingerprint(manifests_loaded, story_doc):
    story = store(near_duplicate(story_doc))
    fp = StoryFingerprint.objects.get(story=story)
    assert len(fp.minhash) == 256  # 128 one-byte bins, in hex
    assert "1792066472590940172" in fp.claim_ids and fp.claim_ids == sorted(fp.claim_ids)


def test_editing_the_text_refreshes_the_fingerprint(manifests_loaded, story_doc):
    doc = near_duplicate(story_doc)
    story = store(doc)
    before = StoryFingerprint.objects.get(story=story).minhash
    doc["sections"] = doc["sections"][:1]
    doc["key_facts"] = doc["key_facts"][:1]
    store(doc)
    after = StoryFingerprint.objects.get(story=story)
    assert after.minhash != before and minhash.similarity(after.minhash, before) < 0.6
    assert len(after.claim_ids) == 7  # key fact 0 and section 0 cite seven distinct claims


def test_near_duplicate_published_earlier_in_the_newsroom_fails(manifests_loaded, story_doc, seed_doc):
    store(near_duplicate(story_doc))
    rubric = rubric_of(seed_doc)
    assert failing(rubric) == ["not_a_repeat"]
    [f] = errors(rubric, "not_a_repeat")
    assert f["path"] == "$"
    assert f["story_id"] == "1792200000000000001" and f["edition"] == "2026-10-15T12"
    assert f["similarity"] >= 0.6 and f["text_similarity"] >= 0.6
    assert "1792200000000000001" in f["message"]


def test_same_cites_with_rewritten_text_is_a_repeat_by_claims(manifests_loaded, story_doc, seed_doc):
    doc = story_doc(
        id="1792200000000000001", slug="rewritten", edition="2026-10-15T12", published_at="2026-10-15T12:30:00Z"
    )
    doc["headline"], doc["dek"] = "Something else entirely", ""
    for i, fact in enumerate(doc["key_facts"]):
        fact["text"] = f"Fact {i} in other words."
    for s in doc["sections"]:
        for p in s["paragraphs"]:
            p["markdown"] = "Different wording altogether, sentence by sentence."
    store(doc)
    [f] = errors(rubric_of(seed_doc), "not_a_repeat")
    assert f["claim_similarity"] == 1.0 and f["text_similarity"] < 0.6


def test_the_story_itself_is_never_its_own_repeat(demo, seed_doc):
    assert failing(rubric_of(seed_doc)) == []
    assert failing(rubric_of(seed_doc, exclude_story_id="81")) == []


def test_exclude_story_id_leaves_out_a_stored_copy(manifests_loaded, story_doc, seed_doc):
    store(near_duplicate(story_doc))
    seed_doc["id"] = None
    assert failing(rubric_of(seed_doc, exclude_story_id="1792200000000000001")) == []


@pytest.mark.parametrize(
    "overrides",
    [
        {"newsroom": "climate", "newsroom_title": "Climate"},  # another newsroom
        {"edition": "2026-10-12T23"},  # 73 hours before the edition: outside the window
        {"edition": "2026-10-16T05", "slug": "agent-training-later"},  # a later edition
        {"published": False},  # a draft
    ],
    ids=["other-newsroom", "outside-window", "later-edition", "draft"],
)
def test_near_duplicates_that_do_not_count(manifests_loaded, story_doc, seed_doc, overrides):
    doc = near_duplicate(story_doc, **overrides)
    if "newsroom_title" in overrides:
        doc["labels"]["newsroom"] = "Climate"
    store(doc)
    assert failing(rubric_of(seed_doc)) == []


def test_window_edge_is_inside(manifests_loaded, story_doc, seed_doc, settings):
    store(near_duplicate(story_doc, edition="2026-10-13T00"))  # exactly 72 hours before
    assert failing(rubric_of(seed_doc)) == ["not_a_repeat"]
    settings.CHECKS_REPEAT_WINDOW_HOURS = 71
    assert failing(rubric_of(seed_doc)) == []


def test_different_story_on_a_shared_source_passes(manifests_loaded, story_doc, seed_doc):
    doc = story_doc(
        id="1792200000000000002",
        slug="progagent-explained",
        edition="2026-10-15T20",
        published_at="2026-10-15T20:05:00Z",
    )
    doc["headline"] = "Why programmatic tool calling matters for long tasks"
    doc["dek"] = "A close reading of one preprint."
    doc["key_facts"] = [doc["key_facts"][3]]
    doc["sections"] = [{"heading": "Programmatic tool calling", "paragraphs": [para(story_doc(), 2, 0)]}]
    doc["sections"][0]["paragraphs"][0]["markdown"] = (
        "ProgAgent changes how tools are called: the model writes executable code that invokes them and keeps "
        "intermediate results in runtime variables."
    )
    store(doc)
    assert failing(rubric_of(seed_doc)) == []
    assert Story.objects.published().count() == 1


def test_bulk_similarities_equal_pairwise_ones():
    texts = [f"word{i} " * 3 + " ".join(f"w{j}" for j in range(i, i + 40)) for i in range(0, 60, 7)]
    sigs = [minhash.signature(t.split()) for t in texts]
    assert minhash.similarities(sigs[0], sigs) == [minhash.similarity(sigs[0], s) for s in sigs]
    assert minhash.similarities(sigs[0], sigs)[0] == 1.0
    assert 0.0 < minhash.similarities(sigs[0], sigs)[1] < 1.0
    assert minhash.similarities(sigs[0], ["", "zz" * 128]) == [0.0, 0.0]
