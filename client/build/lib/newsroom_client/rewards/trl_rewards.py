"""TRL reward functions: ``f(prompts, completions, **kwargs) -> list[float]``, one per
criterion and one for the overall score (``GRPOTrainer(reward_funcs=[...])``; weights come
from the trainer's ``reward_weights``, ``CRITERIA_WEIGHTS`` gives the rubric's own).

Batched: all the functions share one ``RewardCore``, so a batch of completions costs at most
one check per distinct completion, run concurrently; the functions after the first read
the kept results. TRL itself is not needed to build or call them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .core import RewardCore
from .reward import CRITERIA, OVERALL

RewardFunction = Callable[..., list[float | None]]


def reward_function(core: RewardCore, name: str = OVERALL) -> RewardFunction:
    """One TRL reward function: the overall score (``"score"``) or one criterion's. Named
    ``checks_<name>`` (TRL logs rewards under the function's ``__name__``)."""

    def reward(
        prompts: list[Any] | None = None, completions: list[Any] | None = None, **kwargs: Any
    ) -> list[float | None]:
        rewards = core.score_many(completions or [])
        return [r.value(name) for r in rewards]

    reward.__name__ = reward.__qualname__ = f"checks_{name}"
    reward.__doc__ = (
        f"The publish checks' {'overall score' if name == OVERALL else name + ' score'} of each completion."
    )
    return reward


def reward_functions(core: RewardCore, criteria: tuple[str, ...] = CRITERIA) -> list[RewardFunction]:
    """One function per criterion, then the overall score's."""
    return [reward_function(core, name) for name in (*criteria, OVERALL)]


def criteria_weights(criteria: tuple[str, ...] = CRITERIA) -> list[float]:
    """Weights matching ``reward_functions`` under which the weighted sum is the rubric's
    overall score (the mean of the criteria): ``1/n`` each, and 0 for the overall function
    (logged, not counted twice)."""
    return [1 / len(criteria)] * len(criteria) + [0.0]
