"""The reward core: documents found in completions, rewards and feedback, the same numbers
through the API and in-process, and a completion that is not a document scoring 0."""

import copy
import json

import pytest
from newsroom_client.rewards import CRITERIA, NoDocument, extract_document, local_core

pytestmark = pytest.mark.slow


def test_a_document_is_found_in_text_a_fence_inline_and_chat_messages(seed_doc):
    text = json.dumps(seed_doc)
    assert extract_document(seed_doc) == seed_doc
    assert extract_document(text) == seed_doc
    assert extract_document(f"Here is my draft:\n```json\n{text}\n```\nThanks.") == seed_doc
    assert extract_document(f'Notes {{"a": 1}} then the story {text} done') == seed_doc  # the desk/1 one wins
    messages = [{"role": "user", "content": "write"}, {"role": "assistant", "content": text}]
    assert extract_document(messages) == seed_doc
    with pytest.raises(NoDocument):
        extract_document("I could not write the story.")


def variants(doc: dict) -> dict[str, object]:
    """A clean story, planted faults, and completions that hold no valid document."""
    uncited = copy.deepcopy(doc)
    uncited["sections"][0]["paragraphs"][0]["cites"] = []
    stray_claim = copy.deepcopy(doc)
    stray_claim["sections"][0]["paragraphs"][0]["cites"][0]["claim_ids"][0] = "999999999"
    invalid = copy.deepcopy(doc)
    invalid["edition"] = "yesterday"
    return {
        "clean": doc,
        "uncited": f"```json\n{json.dumps(uncited)}\n```",
        "stray claim": json.dumps(stray_claim),
        "invalid": json.dumps(invalid),
        "no json": "Sorry, no story today.",
        "not an object": "[1, 2, 3]",
    }


def test_the_api_and_the_in_process_checks_give_the_same_rewards(site, keys, remote_core, seed_doc):
    over_api = remote_core(site, keys[0])
    in_process = local_core()
    for name, completion in variants(seed_doc).items():
        remote, local = over_api.score(completion), in_process.score(completion)
        assert remote.as_dict() == local.as_dict(), name
        assert (remote.feedback, remote.valid, remote.passed) == (local.feedback, local.valid, local.passed), name


def test_rewards_carry_a_score_per_criterion_and_findings_a_model_can_read(site, keys, remote_core, seed_doc):
    core = remote_core(site, keys[0])
    rewards = {name: core.score(c) for name, c in variants(seed_doc).items()}
    assert rewards["clean"].score == 1.0 and rewards["clean"].passed
    assert set(rewards["clean"].criteria) == set(CRITERIA)
    uncited = rewards["uncited"]
    assert uncited.criteria["paragraphs_cited"] < 1 and 0 < uncited.score < 1
    assert "paragraphs_cited: error at sections[0].paragraphs[0]" in uncited.feedback
    assert rewards["stray claim"].criteria["claims_belong"] < 1


def test_a_completion_without_a_valid_document_scores_zero_with_the_error_as_feedback(
    site, keys, remote_core, seed_doc
):
    core = remote_core(site, keys[0])
    rewards = {name: core.score(c) for name, c in variants(seed_doc).items()}
    for name in ("invalid", "no json", "not an object"):
        reward = rewards[name]
        assert reward.score == 0 and not reward.valid and set(reward.as_dict().values()) == {0.0}, name
        assert reward.feedback.startswith("Not a valid hangingcontext.desk/1 document (score 0): "), name
    assert "edition" in rewards["invalid"].error
    assert rewards["no json"].error.startswith("$: no JSON object found")


def test_equal_documents_are_checked_once(site, keys, remote_core, seed_doc):
    core = remote_core(site, keys[0])
    core.score(seed_doc)
    core.score(json.dumps(seed_doc))
    core.score(f"```json\n{json.dumps(seed_doc, indent=2)}\n```")
    assert core.checks_run == 1 and core.backend.client.stats.requests == 1
