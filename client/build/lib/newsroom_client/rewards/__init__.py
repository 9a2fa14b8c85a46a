"""The publish checks as rewards: ``RewardCore.score(completion) -> Reward``, through the API
(``api_core``) or in-process (``local_core``), and thin adapters for verifiers
(``newsroom_client.rewards.verifiers_rubric``), Inspect (``…rewards.inspect_scorer``)
and TRL (``…rewards.trl_rewards``)."""

from .core import ApiBackend, DocumentRefused, LocalBackend, RewardCore, api_core, local_core
from .document import NoDocument, completion_text, extract_document
from .reward import CRITERIA, OVERALL, Reward, feedback_text, from_rubric, invalid

__all__ = [
    "CRITERIA",
    "OVERALL",
    "ApiBackend",
    "DocumentRefused",
    "LocalBackend",
    "NoDocument",
    "Reward",
    "RewardCore",
    "api_core",
    "completion_text",
    "extract_document",
    "feedback_text",
    "from_rubric",
    "invalid",
    "local_core",
]
