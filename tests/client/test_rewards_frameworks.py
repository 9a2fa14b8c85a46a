"""The adapters with the real frameworks: a verifiers 0.4 task's rewards, an Inspect scorer
in an Inspect evaluation, and the example evaluation run end to end against a live server.
Skipped where the frameworks are not installed (``make test-client`` installs them)."""

import asyncio
import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from newsroom_client.rewards import CRITERIA, local_core

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


async def closing(core, awaitable):
    """Await in this event loop, then close the core's connections of the loop."""
    try:
        return await awaitable
    finally:
        await core.backend.aclose()


def faulty(doc: dict) -> dict:
    doc = copy.deepcopy(doc)
    doc["sections"][0]["paragraphs"][0]["cites"] = []
    return doc


def test_verifiers_task_rewards_sum_to_the_checks_score(site, keys, remote_core, seed_doc):
    vf = pytest.importorskip("verifiers.v1", reason="needs the [verifiers] extra: make test-client")
    from newsroom_client.rewards.verifiers_rubric import checks_rewards
    from verifiers.v1.trace import AgentInfo, Trace, TraceTask

    core = remote_core(site, keys[0])

    class DraftTask(checks_rewards(core), vf.Task[vf.TaskData]):
        pass

    task = DraftTask(vf.TaskData(prompt="Write the story."))
    expected = core.score(faulty(seed_doc))
    core.checks_run = 0
    for reply, reward in ((f"```json\n{json.dumps(faulty(seed_doc))}\n```", expected), ("no story", None)):
        trace = Trace(
            task=TraceTask(type="DraftTask", data=task.data), agent=AgentInfo(config=vf.AgentConfig()), root_reply=reply
        )
        asyncio.run(closing(core, task.score(trace)))
        assert set(trace.rewards) == {f"checks_{n}" for n in CRITERIA}
        assert all(r.weight == pytest.approx(1 / 7) for r in trace.rewards.values())
        if reward is None:
            assert trace.reward == 0 and trace.metrics["checks_score"] == 0
        else:
            assert trace.reward == pytest.approx(reward.score, abs=1e-3)  # the mean of the criteria, rounded
            assert trace.metrics["checks_score"] == reward.score
            assert trace.rewards["checks_paragraphs_cited"].score == reward.criteria["paragraphs_cited"] < 1
    assert core.checks_run == 0  # the scored document was already checked: eight functions, no new request


def test_rubric_functions_take_completion_by_name_with_the_rubrics_weights(site, keys, seed_doc):
    from newsroom_client.rewards.verifiers_rubric import rubric_functions

    core = local_core()
    funcs, weights = rubric_functions(core)
    assert [f.__name__ for f in funcs][-1] == "checks_score" and weights[-1] == 0 and sum(weights) == pytest.approx(1)
    completion = [{"role": "assistant", "content": json.dumps(faulty(seed_doc))}]

    async def all_of_them():
        return await asyncio.gather(
            *(f(prompt="p", completion=completion, answer="", state={}, info={}) for f in funcs)
        )

    values = asyncio.run(all_of_them())
    assert sum(w * v for w, v in zip(weights, values)) == pytest.approx(values[-1], abs=1e-3)
    assert core.checks_run == 1


def test_inspect_scorer_gives_a_value_per_criterion_and_the_findings_as_explanation(site, keys):
    pytest.importorskip("inspect_ai", reason="needs the [inspect] extra: make test-client")
    sys.path.insert(0, str(ROOT / "docs" / "examples"))
    try:
        import inspect_eval
    finally:
        sys.path.pop(0)
    scores = inspect_eval.run(site, keys[0])
    assert set(scores) == {"clean", "uncited", "unsupported figure", "mean"}
    assert set(scores["clean"]) == {*CRITERIA, "score"}
    assert scores["clean"]["score"] == 1.0
    assert scores["uncited"]["paragraphs_cited"] < 1 and scores["unsupported figure"]["claims_support"] < 1
    assert scores["mean"]["score"] == pytest.approx(
        sum(scores[d]["score"] for d in ("clean", "uncited", "unsupported figure")) / 3
    )


def test_the_inspect_explanation_is_the_feedback_text(site, keys, remote_core, seed_doc):
    pytest.importorskip("inspect_ai", reason="needs the [inspect] extra: make test-client")
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import Target
    from inspect_ai.solver import TaskState
    from newsroom_client.rewards.inspect_scorer import checks_scorer

    core = remote_core(site, keys[0])
    score = checks_scorer(core)
    state = TaskState(model="m", sample_id=1, epoch=1, input="write", messages=[])
    state.output = ModelOutput.from_content("m", json.dumps(faulty(seed_doc)))
    result = asyncio.run(closing(core, score(state, Target(""))))
    assert result.value["paragraphs_cited"] < 1 and result.explanation == core.score(faulty(seed_doc)).feedback
    assert "paragraphs_cited: error at sections[0].paragraphs[0]" in result.explanation
    state.output = ModelOutput.from_content("m", "I refuse.")
    result = asyncio.run(closing(core, score(state, Target(""))))
    assert result.value["score"] == 0 and result.explanation.startswith("Not a valid")


def test_the_example_runs_end_to_end_and_prints_the_per_criterion_scores(site, keys):
    pytest.importorskip("inspect_ai", reason="needs the [inspect] extra: make test-client")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "client"), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "examples" / "inspect_eval.py"), "--site", site, "--key", keys[0]],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].split()[:5] == ["criterion", "clean", "uncited", "unsupported", "figure"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:]}
    assert set(rows) == {*CRITERIA, "score"} and rows["score"][0] == "1.0000"
