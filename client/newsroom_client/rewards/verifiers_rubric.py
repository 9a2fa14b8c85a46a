"""A verifiers ``Rubric`` of the publish checks: one reward function per criterion (weight
``1/n`` each, so the rubric's reward is the checks' overall score, the mean of the
criteria), plus ``checks_score`` (weight 0: the overall score, logged as a metric).

Needs ``pip install 'newsroom-client[verifiers]'``. The functions share one ``RewardCore``:
a rollout costs one check, however many functions read it."""

from __future__ import annotations

from typing import Any

from .core import RewardCore
from .reward import CRITERIA, OVERALL


def rubric_functions(core: RewardCore, criteria: tuple[str, ...] = CRITERIA) -> tuple[list[Any], list[float]]:
    """``(funcs, weights)`` for ``vf.Rubric``: async reward functions taking ``completion``
    (text or chat messages), named ``checks_<criterion>`` and ``checks_score``."""

    def make(name: str):
        async def reward(completion: Any, **kwargs: Any) -> float:
            return (await core.ascore(completion)).value(name)

        reward.__name__ = reward.__qualname__ = f"checks_{name}"
        return reward

    funcs = [make(name) for name in (*criteria, OVERALL)]
    weights = [1 / len(criteria)] * len(criteria) + [0.0]
    return funcs, weights


def checks_rubric(core: RewardCore, criteria: tuple[str, ...] = CRITERIA, **rubric_options: Any):
    """A ``verifiers.Rubric`` scoring completions with the publish checks."""
    import verifiers as vf

    funcs, weights = rubric_functions(core, criteria)
    return vf.Rubric(funcs=funcs, weights=weights, **rubric_options)
