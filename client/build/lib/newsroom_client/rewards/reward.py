"""``Reward``: the checks' rubric as a model reads it (a score, one per criterion, feedback)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..types import Rubric

# The criteria of docs/checks.md, in the rubric's order (their names are part of the API).
CRITERIA: tuple[str, ...] = (
    "manifests_exist",
    "manifests_recent",
    "claims_belong",
    "paragraphs_cited",
    "claims_support",
    "not_a_repeat",
    "metadata_consistent",
)
OVERALL = "score"


@dataclass(frozen=True)
class Reward:
    """``score`` (0 to 1) is the rubric's overall score, the mean of ``criteria`` (one value
    per criterion). ``feedback`` is the findings as text for the model; ``passed`` whether
    every check passed; ``valid`` False (and every value 0) when the completion held no
    well-formed desk/1 document, with ``error`` saying why."""

    score: float
    criteria: dict[str, float]
    feedback: str
    passed: bool = False
    valid: bool = True
    error: str | None = None
    rubric: Rubric | None = field(default=None, compare=False)

    def value(self, name: str) -> float:
        """The overall score (``"score"``) or one criterion's."""
        return self.score if name == OVERALL else self.criteria.get(name, 0.0)

    def as_dict(self) -> dict[str, float]:
        """Every criterion's value and the overall ``score``: one mapping of floats."""
        return {**self.criteria, OVERALL: self.score}


def _finding_line(name: str, f: dict[str, Any]) -> str:
    line = f"- {name}: {f.get('severity', 'error')} at {f.get('path') or '$'}: {f.get('message', '')}"
    if f.get("sentence"):
        line += f' (sentence: "{f["sentence"]}")'
    return line


def feedback_text(rubric: Rubric) -> str:
    """The rubric as text a model can act on: the overall result, then every error and
    warning with its criterion, path and message (info findings are counted, not listed)."""
    failing = [c["name"] for c in rubric["criteria"] if not c["passed"]]
    head = f"Checks {'passed' if rubric['passed'] else 'failed'}: score {rubric['score']:.4f} of 1."
    if failing:
        head += " Failing: " + ", ".join(failing) + "."
    lines = [head]
    info = 0
    for criterion in rubric["criteria"]:
        for f in criterion["findings"]:
            if f.get("severity") == "info":
                info += 1
            else:
                lines.append(_finding_line(criterion["name"], f))
    if info:
        lines.append(f"({info} info finding{'s' if info != 1 else ''} not listed: editorial sentences, allowed.)")
    return "\n".join(lines)


def from_rubric(rubric: Rubric) -> Reward:
    """The ``Reward`` of a rubric (``POST checks/`` or the in-process checks)."""
    criteria = {c["name"]: float(c["score"]) for c in rubric["criteria"]}
    return Reward(
        score=float(rubric["score"]),
        criteria=criteria,
        feedback=feedback_text(rubric),
        passed=bool(rubric["passed"]),
        rubric=rubric,
    )


def invalid(path: str, message: str, criteria: tuple[str, ...] = CRITERIA) -> Reward:
    """Score 0 for a completion that is not a well-formed desk/1 document, with the validation error."""
    error = f"{path}: {message}"
    return Reward(
        score=0.0,
        criteria=dict.fromkeys(criteria, 0.0),
        feedback=f"Not a valid hangingcontext.desk/1 document (score 0): {error}",
        valid=False,
        error=error,
    )
