"""The publish checks (docs/checks.md): the seed passes; each planted fault fails exactly
its criterion, at the right path; clean variants pass."""

import datetime as dt
import json

import pytest

from manifests.models import Manifest
from stories import actions
from stories.checks import CRITERIA_NAMES
from tests.factories import ClaimFactory, ManifestFactory, PublisherFactory
from tests.stories.helpers import criterion, errors, failing, para, rederive, rubric_of

pytestmark = pytest.mark.django_db

PROGAGENT = "1792066118701135431"
COSIR = "1792095901600389209"
MUON = "1792043738156041460"
COSIR_CLAIM = "1792109021319135527"


# --------------------------------------------------------------------------- the seed


def test_seed_passes_every_criterion(manifests_loaded, seed_doc):
    rubric = rubric_of(seed_doc)
    assert failing(rubric) == []
    assert rubric["passed"] is True
    assert rubric["score"] == 1.0


def test_seed_analysis_sentences_are_info_findings(manifests_loaded, seed_doc):
    findings = criterion(rubric_of(seed_doc), "claims_support")["findings"]
    assert {f["severity"] for f in findings} == {"info"}
    assert any(f["sentence"] == "The post makes two practical claims." for f in findings)


def test_rubric_shape_matches_checks_md(manifests_loaded, seed_doc):
    seed_doc["sections"][2]["paragraphs"][1]["markdown"] = para(seed_doc, 2, 1)["markdown"].replace("30.7%", "37.0%")
    rubric = json.loads(json.dumps(rubric_of(seed_doc)))
    assert list(rubric) == ["passed", "score", "criteria"]
    assert (
        [c["name"] for c in rubric["criteria"]]
        == list(CRITERIA_NAMES)
        == [
            "manifests_exist",
            "manifests_recent",
            "claims_belong",
            "paragraphs_cited",
            "claims_support",
            "not_a_repeat",
            "metadata_consistent",
        ]
    )
    for c in rubric["criteria"]:
        assert list(c) == ["name", "passed", "score", "findings"]
        assert 0.0 <= c["score"] <= 1.0
        for f in c["findings"]:
            assert list(f)[:3] == ["severity", "path", "message"]
            assert f["severity"] in ("error", "warning", "info")
    assert rubric["passed"] is False
    assert 0.0 < rubric["score"] < 1.0
    assert criterion(rubric, "claims_support")["score"] < 1.0


# --------------------------------------------------------------------------- manifests


def test_unknown_manifest_fails_manifests_exist(manifests_loaded, seed_doc):
    para(seed_doc, 1, 0)["cites"].append({"manifest_id": "1799999999999999999", "claim_ids": []})
    rubric = rubric_of(rederive(seed_doc))
    assert failing(rubric) == ["manifests_exist"]
    [f] = errors(rubric, "manifests_exist")
    assert f["path"] == "sections[1].paragraphs[0].cites[1].manifest_id"
    assert "1799999999999999999" in f["message"]


def test_unknown_manifest_listed_in_the_story_fails_only_manifests_exist(manifests_loaded, seed_doc):
    para(seed_doc, 1, 0)["cites"].append({"manifest_id": "1799999999999999999", "claim_ids": []})
    doc = rederive(seed_doc)  # counts it (source_count 5) but has no record to list
    assert doc["source_count"] == 5 and doc["cited_manifest_ids"][-1] == "1799999999999999999"
    doc["manifests"].append(dict(doc["manifests"][1], manifest_id="1799999999999999999", source_name="made-up-blog"))
    doc["publishers"] = sorted(doc["publishers"] + ["made-up-blog"])
    rubric = rubric_of(doc)
    assert failing(rubric) == ["manifests_exist"]


def test_the_storys_own_manifests_list_proves_nothing(db, seed_doc):
    # no manifests in the database: the story's own list must not make them exist
    rubric = rubric_of(seed_doc)
    assert "manifests_exist" in failing(rubric)
    assert len(errors(rubric, "manifests_exist")) == sum(len(f["cites"]) for f in seed_doc["key_facts"]) + sum(
        len(p["cites"]) for s in seed_doc["sections"] for p in s["paragraphs"]
    )


@pytest.mark.parametrize(
    "published, word",
    [(dt.date(2026, 10, 1), "days before"), (dt.date(2026, 10, 17), "after the edition")],
    ids=["stale", "future"],
)
def test_stale_or_future_manifest_fails_manifests_recent(manifests_loaded, seed_doc, published, word):
    Manifest.objects.filter(id=MUON).update(published_date=published)
    rubric = rubric_of(rederive(seed_doc))
    assert failing(rubric) == ["manifests_recent"]
    [f] = errors(rubric, "manifests_recent")
    assert f["path"] == "key_facts[2].cites[0].manifest_id"  # where it is first cited
    assert f["manifest_id"] == MUON and word in f["message"]


def test_manifest_exactly_at_the_freshness_limit_passes(manifests_loaded, seed_doc, settings):
    settings.CHECKS_FRESHNESS_DAYS = 1
    assert failing(rubric_of(seed_doc)) == []  # published 2026-10-15, edition 2026-10-16T00
    settings.CHECKS_FRESHNESS_DAYS = 0
    assert failing(rubric_of(seed_doc)) == ["manifests_recent"]


# --------------------------------------------------------------------------- claims


def test_stray_claim_id_fails_claims_belong_naming_its_real_manifest(manifests_loaded, seed_doc):
    para(seed_doc, 2, 1)["cites"][0]["claim_ids"].append(COSIR_CLAIM)
    rubric = rubric_of(seed_doc)
    assert failing(rubric) == ["claims_belong"]
    [f] = errors(rubric, "claims_belong")
    assert f["path"] == "sections[2].paragraphs[1].cites[0].claim_ids[3]"
    assert f["belongs_to"] == COSIR and f["cited_under"] == PROGAGENT
    assert COSIR in f["message"]


def test_unknown_claim_id_fails_claims_belong(manifests_loaded, seed_doc):
    seed_doc["key_facts"][3]["cites"][0]["claim_ids"].append("1792066472599999999")
    rubric = rubric_of(seed_doc)
    assert failing(rubric) == ["claims_belong"]
    [f] = errors(rubric, "claims_belong")
    assert f["path"] == "key_facts[3].cites[0].claim_ids[4]"
    assert "not in the database" in f["message"]


@pytest.mark.parametrize(
    "where, path",
    [(("sections", 0, 1), "sections[0].paragraphs[1]"), (("key_facts", 1), "key_facts[1]")],
    ids=["paragraph", "key-fact"],
)
def test_uncited_paragraph_or_key_fact_fails_paragraphs_cited(manifests_loaded, seed_doc, where, path):
    if where[0] == "sections":
        para(seed_doc, where[1], where[2])["cites"] = []
    else:
        seed_doc["key_facts"][where[1]]["cites"] = []
    rubric = rubric_of(rederive(seed_doc))
    assert failing(rubric) == ["paragraphs_cited"]
    [f] = errors(rubric, "paragraphs_cited")
    assert f["path"] == path


def test_cite_with_no_claim_ids_counts_as_uncited(manifests_loaded, seed_doc):
    para(seed_doc, 0, 0)["cites"][0]["claim_ids"] = []
    rubric = rubric_of(seed_doc)
    assert failing(rubric) == ["paragraphs_cited"]
    assert errors(rubric, "paragraphs_cited")[0]["path"] == "sections[0].paragraphs[0]"


# --------------------------------------------------------------------------- support


def test_changed_figure_fails_claims_support(manifests_loaded, seed_doc):
    p = para(seed_doc, 2, 1)
    p["markdown"] = p["markdown"].replace("30.7%", "37.0%")
    rubric = rubric_of(seed_doc)
    assert failing(rubric) == ["claims_support"]
    [f] = errors(rubric, "claims_support")
    assert f["path"] == "sections[2].paragraphs[1]"
    assert f["figure"] == "37.0%"
    assert f["message"] == "37.0% is not stated by any cited claim"
    assert "ProgAgent-14B reached a 37.0% pass rate" in f["sentence"]


@pytest.mark.parametrize(
    "old, new", [("31.85", "38.15"), ("74.3%", "84.3%"), ("64k-token", "128k-token"), ("215 tasks", "2,150 tasks")]
)
def test_changed_figures_of_every_kind_are_caught(manifests_loaded, seed_doc, old, new):
    for p in (para(seed_doc, 2, 1), para(seed_doc, 3, 1)):
        p["markdown"] = p["markdown"].replace(old, new)
    rubric = rubric_of(seed_doc)
    assert failing(rubric) == ["claims_support"]
    assert any(new.split("-")[0].split(" ")[0] == f.get("figure") for f in errors(rubric, "claims_support"))


def test_reversed_range_fails_claims_support(manifests_loaded, seed_doc):
    p = para(seed_doc, 3, 1)
    p["markdown"] = p["markdown"].replace("rose from 68.5% to 74.3%", "fell from 74.3% to 68.5%")
    rubric = rubric_of(seed_doc)
    assert failing(rubric) == ["claims_support"]
    [f] = errors(rubric, "claims_support")
    assert f["figure"] == "from 74.3% to 68.5%" and "reverses" in f["message"]


def test_figure_in_a_key_fact_is_checked_too(manifests_loaded, seed_doc):
    seed_doc["key_facts"][3]["text"] = seed_doc["key_facts"][3]["text"].replace("215 tasks", "251 tasks")
    rubric = rubric_of(seed_doc)
    assert failing(rubric) == ["claims_support"]
    [f] = errors(rubric, "claims_support")
    assert (f["path"], f["figure"]) == ("key_facts[3]", "251")


def test_swapped_model_name_fails_claims_support(manifests_loaded, seed_doc):
    p = para(seed_doc, 3, 1)
    p["markdown"] = p["markdown"].replace("Qwen3-8B", "Llama3-8B")
    rubric = rubric_of(seed_doc)
    assert failing(rubric) == ["claims_support"]
    [f] = errors(rubric, "claims_support")
    assert (f["path"], f["name"]) == ("sections[3].paragraphs[1]", "Llama3-8B")
    assert "Llama3-8B improving 31.85 points" in f["sentence"]


def test_swapped_benchmark_name_fails_claims_support(manifests_loaded, seed_doc):
    p = para(seed_doc, 2, 1)
    p["markdown"] = p["markdown"].replace("LOCA-bench", "SWE-bench")
    [f] = errors(rubric_of(seed_doc), "claims_support")
    assert f["name"] == "SWE-bench"


def test_misattributed_paragraph_citing_another_storys_claims_fails(manifests_loaded, seed_doc):
    other = ManifestFactory(
        id="1792100000000000001",
        title="INT2 KV cache quantization nears lossless",
        publisher=PublisherFactory(name="arxiv"),
        published_date=dt.date(2026, 10, 15),
    )
    claims = [
        ClaimFactory(
            id="1792100000000000011",
            manifest=other,
            text="Quantizing the KV cache to INT2 loses less than 1% accuracy.",
        ),
        ClaimFactory(
            id="1792100000000000012",
            manifest=other,
            text="The method needs no calibration data and runs on stock kernels.",
        ),
    ]
    para(seed_doc, 2, 1)["cites"] = [{"manifest_id": other.id, "claim_ids": [c.id for c in claims]}]
    rubric = rubric_of(rederive(seed_doc))
    assert failing(rubric) == ["claims_support"]
    found = errors(rubric, "claims_support")
    assert {f["path"] for f in found} == {"sections[2].paragraphs[1]"}
    assert {f.get("figure") for f in found} >= {"215", "30.7%", "64k"}
    assert {f.get("name") for f in found} >= {"ProgAgent-14B", "LOCA-bench"}
    assert any("sentences are backed" in f["message"] for f in found)


def test_paragraph_without_figures_citing_unrelated_claims_fails_on_wording(manifests_loaded, seed_doc):
    # section 1's second paragraph has no figure; give it the Invisible Technologies claims
    para(seed_doc, 1, 1)["cites"] = [{"manifest_id": "1792067182956183080", "claim_ids": ["1792067413472298657"]}]
    rubric = rubric_of(rederive(seed_doc))
    assert failing(rubric) == ["claims_support"]
    [f] = errors(rubric, "claims_support")
    assert f["path"] == "sections[1].paragraphs[1]" and "0 of 3 sentences" in f["message"]


def test_faithful_paraphrase_passes(manifests_loaded, seed_doc):
    para(seed_doc, 1, 0)["markdown"] = (
        "Long-horizon agents have to coordinate reasoning, tool use and feedback from the environment across "
        "extended interactions, and a new preprint goes after their training loop. Its authors study an "
        "asynchronous single-rollout recipe that keeps updating the policy while rollouts are still being "
        "collected, pairing the Muon optimizer with a token-averaged loss, truncated importance sampling and "
        "auxiliary penalties for tool errors and response length."
    )
    para(seed_doc, 2, 1)["markdown"] = (
        "Trained on just 215 tasks at four environment scales, ProgAgent-14B reached a pass rate of 30.7% on "
        "LOCA-bench with a 64k-token environment state, while the direct-tool-calling baselines that were "
        "evaluated scored zero. In cross-harness experiments, programmatic-tool-calling models outperformed "
        "direct-tool-calling models under both evaluation interfaces."
    )
    assert failing(rubric_of(seed_doc)) == []


def test_one_added_analysis_sentence_passes_as_info(manifests_loaded, seed_doc):
    for s, p in ((2, 1), (3, 1), (1, 1)):
        para(seed_doc, s, p)["markdown"] += " Whether that holds up outside the lab is the open question for buyers."
    rubric = rubric_of(seed_doc)
    assert failing(rubric) == []
    infos = [f for f in criterion(rubric, "claims_support")["findings"] if "outside the lab" in f.get("sentence", "")]
    assert len(infos) == 3 and {f["severity"] for f in infos} == {"info"}


def test_analysis_only_paragraph_fails(manifests_loaded, seed_doc):
    para(seed_doc, 0, 0)["markdown"] = "This is a trend worth watching. Nobody can tell where it will lead."
    rubric = rubric_of(seed_doc)
    assert failing(rubric) == ["claims_support"]
    assert "0 of 2 sentences" in errors(rubric, "claims_support")[0]["message"]


def test_stub_claims_support_nothing_and_say_how_to_load_them(db, seed_doc):
    from stories import desk

    actions.import_story(desk.validate(seed_doc), restore=True)  # no manifests file: every claim is a stub
    rubric = rubric_of(seed_doc)
    assert failing(rubric) == ["claims_support"]
    found = errors(rubric, "claims_support")
    assert found[0]["path"] == "key_facts[0]"
    assert "has no text yet" in found[0]["message"] and "import_manifests" in found[0]["message"]
    assert criterion(rubric, "claims_support")["score"] == 0.0


# --------------------------------------------------------------------------- metadata


@pytest.mark.parametrize(
    "mutate, path, expected",
    [
        (lambda d: d.update(source_count=3), "source_count", 4),
        (
            lambda d: d.update(publishers=["huggingface-daily-papers"]),
            "publishers",
            ["huggingface-daily-papers", "invisible-technologies-blog"],
        ),
        (lambda d: d["labels"].update(trust_text="Reported · 3 sources"), "labels.trust_text", "Reported · 4 sources"),
        (lambda d: d["key_facts"][2].update(self_reported=False), "key_facts[2].self_reported", True),
        (lambda d: d["cited_manifest_ids"].reverse(), "cited_manifest_ids", None),
        (lambda d: d["manifests"][1].update(title="Long-Horizon RL Needs Adam"), "manifests", None),
    ],
    ids=["source_count", "publishers", "trust_text", "self_reported", "cited_manifest_ids", "manifests"],
)
def test_wrong_derived_field_fails_metadata_consistent(manifests_loaded, seed_doc, mutate, path, expected):
    mutate(seed_doc)
    rubric = rubric_of(seed_doc)
    assert failing(rubric) == ["metadata_consistent"]
    [f] = errors(rubric, "metadata_consistent")
    assert f["path"] == path
    if expected is not None:
        assert f["expected"] == expected


def test_self_reported_follows_the_claims_in_the_database(manifests_loaded, seed_doc):
    from manifests.models import Claim

    Claim.objects.filter(id="1792066472590940172").update(self_reported=False)
    rubric = rubric_of(seed_doc)  # the document still says true
    assert failing(rubric) == ["metadata_consistent"]
    assert errors(rubric, "metadata_consistent")[0]["path"] == "key_facts[3].self_reported"


def test_derived_fields_left_out_are_not_checked(manifests_loaded, seed_doc):
    for key in ("source_count", "publishers", "labels", "cited_manifest_ids", "manifests"):
        seed_doc.pop(key)
    assert failing(rubric_of(seed_doc)) == []
