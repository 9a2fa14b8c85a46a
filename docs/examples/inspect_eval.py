"""An Inspect evaluation of three drafts with the newsroom's publish checks as the scorer.

Nothing is trained and no model is called: each sample's "model output" is a stored draft
(a solver replays it), so the run shows what a writer agent's evaluation looks like end to
end: the drafts go to ``POST /api/v1/checks/`` of the site and Inspect reports one value
per criterion and their means.

    pip install './client[inspect]'
    python docs/examples/inspect_eval.py --site http://127.0.0.1:8000 --key hc_…

The three drafts are built from the demo story (``demo/agent-training-stack.json``): as
published, with the first paragraph's cites removed, and with a figure the sources do not
state.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import tempfile
from pathlib import Path

DEMO_STORY = Path(__file__).resolve().parents[2] / "demo" / "agent-training-stack.json"


def drafts(story: dict) -> dict[str, dict]:
    """Three drafts of one story: clean, an uncited paragraph, an unsupported figure."""
    uncited = copy.deepcopy(story)
    uncited["sections"][0]["paragraphs"][0]["cites"] = []
    unsupported = copy.deepcopy(story)
    paragraph = unsupported["sections"][0]["paragraphs"][0]
    paragraph["markdown"] += " Deployments that did so cut their failure rate by 37.5% in 2025."
    return {"clean": story, "uncited": uncited, "unsupported figure": unsupported}


def evaluation(site: str, key: str, documents: dict[str, dict]):
    """The Inspect ``Task``: one sample per draft, replayed as the model's answer."""
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput
    from inspect_ai.solver import Generate, TaskState, solver
    from newsroom_client.rewards import api_core
    from newsroom_client.rewards.inspect_scorer import checks_scorer

    @solver
    def replay_draft():
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            state.output = ModelOutput.from_content("stored-draft", json.dumps(state.metadata["draft"]))
            return state

        return solve

    samples = [
        Sample(id=name, input=f"Write the story ({name}).", metadata={"draft": doc}) for name, doc in documents.items()
    ]
    return Task(dataset=samples, solver=replay_draft(), scorer=checks_scorer(api_core(site, key)))


def run(site: str, key: str, log_dir: str | None = None) -> dict[str, dict[str, float]]:
    """Run the evaluation; the per-criterion scores of each draft, and their means under ``"mean"``."""
    from inspect_ai import eval as inspect_eval

    documents = drafts(json.loads(DEMO_STORY.read_text(encoding="utf-8")))
    with tempfile.TemporaryDirectory() as tmp:
        [log] = inspect_eval(
            evaluation(site, key, documents),
            model="mockllm/model",
            log_dir=log_dir or tmp,
            display="none",
        )
        if log.status != "success":
            raise SystemExit(f"the evaluation did not finish: {log.status} {log.error}")
        scores = {str(s.id): dict(next(iter(s.scores.values())).value) for s in log.samples}
        # One EvalScore per key of the scorer's dict value, each with its mean.
        scores["mean"] = {score.name: score.metrics["mean"].value for score in log.results.scores}
    return scores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", required=True, help="the site, e.g. http://127.0.0.1:8000")
    parser.add_argument("--key", required=True, help="a partner key (read or writer)")
    args = parser.parse_args(argv)
    scores = run(args.site, args.key)
    names = list(scores["clean"])
    width = max(len(n) for n in names)
    print(f"{'criterion':<{width}}  " + "  ".join(f"{d:>18}" for d in scores))
    for name in names:
        print(f"{name:<{width}}  " + "  ".join(f"{scores[d].get(name, float('nan')):>18.4f}" for d in scores))
    return 0


if __name__ == "__main__":
    sys.exit(main())
