"""What a sentence means against its claims: number words, negation, opposed terms and
role frames (``judge.DeterministicJudge``), and the optional chat-model judge
(``chat.ChatJudge``). ``CHECKS_JUDGE`` chooses the judge."""

from .judge import CONTRADICTED, NOT_ENOUGH, SUPPORTED, DeterministicJudge, Verdict, load_judge
from .numbers import word_figures

__all__ = ["CONTRADICTED", "NOT_ENOUGH", "SUPPORTED", "DeterministicJudge", "Verdict", "load_judge", "word_figures"]
