"""The publish checks for verifiers: one reward per criterion, weighted ``1/n`` each so the
weighted sum is the checks' overall score (the mean of the criteria, as the rubric
computes it), plus the overall score itself, recorded but not summed (it would count twice).

- verifiers 0.4 (``import verifiers.v1 as vf``): ``checks_rewards(core)`` is a mixin for a
  ``vf.Task`` whose ``@vf.reward(weight=1/n)`` methods ``checks_<criterion>`` and
  ``@vf.metric`` ``checks_score`` read the model's reply (``trace.last_reply``).
- Rubric-style trainers (``Rubric(funcs=[...], weights=[...])``, the shape of verifiers
  before 0.4): ``rubric_functions(core)`` gives the functions and the weights.

Needs ``pip install 'newsroom-client[verifiers]'`` for ``checks_rewards``. The functions share
one ``RewardCore``: a rollout costs one check, however many functions read it."""

from __future__ import annotations

from typing import Any

from .core import RewardCore
from .reward import CRITERIA, OVERALL


def weights_of(criteria: tuple[str, ...] = CRITERIA) -> dict[str, float]:
    """Each criterion's weight in the overall score (equal: the score is their mean), and
    0 for the overall score."""
    return {**{name: 1 / len(criteria) for name in criteria}, OVERALL: 0.0}


def rubric_functions(core: RewardCore, criteria: tuple[str, ...] = CRITERIA) -> tuple[list[Any], list[float]]:
    """``(funcs, weights)``: async reward functions taking ``completion`` (text or chat
    messages) by name, ``checks_<criterion>`` then ``checks_score``, and their weights."""

    def make(name: str):
        async def reward(completion: Any, **kwargs: Any) -> float:
            return (await core.ascore(completion)).value(name)

        reward.__name__ = reward.__qualname__ = f"checks_{name}"
        return reward

    weights = weights_of(criteria)
    names = (*criteria, OVERALL)
    return [make(name) for name in names], [weights[name] for name in names]


def checks_rewards(core: RewardCore, criteria: tuple[str, ...] = CRITERIA) -> type:
    """A mixin for a verifiers 0.4 ``vf.Task``::

        class DraftTask(checks_rewards(core), vf.Task[vf.TaskData]): ...

    Its rewards score ``trace.last_reply`` (the model's final answer, holding a desk/1
    document); ``trace.reward`` is then the checks' overall score."""
    import verifiers.v1 as vf

    weights = weights_of(criteria)

    def criterion_reward(name: str):
        async def reward(self, trace: vf.Trace) -> float:
            return (await core.ascore(trace.last_reply)).value(name)

        reward.__name__ = reward.__qualname__ = f"checks_{name}"
        return vf.reward(reward, weight=weights[name])

    async def checks_score(self, trace: vf.Trace) -> float:
        return (await core.ascore(trace.last_reply)).score

    namespace: dict[str, Any] = {f"checks_{name}": criterion_reward(name) for name in criteria}
    namespace["checks_score"] = vf.metric(checks_score)
    namespace["__doc__"] = "The publish checks as rewards (newsroom_client.rewards.verifiers_rubric)."
    return type("ChecksRewards", (), namespace)
