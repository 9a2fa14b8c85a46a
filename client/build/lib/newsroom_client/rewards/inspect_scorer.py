"""An Inspect scorer of the publish checks: ``Score.value`` is a dict with one value per
criterion and the overall ``score``; ``explanation`` is the findings as text; the rubric is
in ``metadata``. Needs ``pip install 'newsroom-client[inspect]'``."""

from __future__ import annotations

from typing import Any

from .core import RewardCore
from .reward import CRITERIA, OVERALL


def checks_scorer(core: RewardCore, criteria: tuple[str, ...] = CRITERIA):
    """An Inspect ``Scorer`` (for ``Task(scorer=...)``) that checks the model's output
    (``state.output.completion``): the mean of each value over the samples is reported."""
    from inspect_ai.scorer import Score, Target, mean, scorer
    from inspect_ai.solver import TaskState

    @scorer(metrics={name: [mean()] for name in (*criteria, OVERALL)}, name="newsroom_checks")
    def newsroom_checks():
        async def score(state: TaskState, target: Target) -> Score:
            reward = await core.ascore(state.output.completion)
            metadata: dict[str, Any] = {"passed": reward.passed, "valid": reward.valid}
            if reward.rubric is not None:
                metadata["rubric"] = reward.rubric
            if reward.error:
                metadata["error"] = reward.error
            return Score(
                value={name: reward.value(name) for name in (*criteria, OVERALL)},
                answer="passed" if reward.passed else "failed",
                explanation=reward.feedback,
                metadata=metadata,
            )

        return score

    return newsroom_checks()
