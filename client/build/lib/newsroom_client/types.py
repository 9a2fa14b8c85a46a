"""Typed shapes of what the API returns (``TypedDict``: the JSON as received, with names)."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

Severity = Literal["error", "warning", "info"]


class Finding(TypedDict):
    """One place that lost points: ``path`` is a desk/1 JSON path (``sections[2].paragraphs[1]``)."""

    severity: Severity
    path: str
    message: str
    sentence: NotRequired[str]


class CriterionResult(TypedDict):
    name: str
    passed: bool
    score: float
    findings: list[Finding]


class Rubric(TypedDict):
    """The checks' answer (docs/checks.md): ``score`` is the mean of the criteria's scores."""

    passed: bool
    score: float
    criteria: list[CriterionResult]


class StoryItem(TypedDict):
    """One entry of ``GET stories/``: the story's desk/1 document and where it is in the order."""

    id: str
    version: int
    updated_at: str
    story: dict[str, Any]


class Submission(TypedDict):
    """The answer to ``POST submissions/``."""

    id: str
    status: str
    version: int
    rubric: Rubric
    failed_criteria: list[str]


class Publication(TypedDict):
    action: str | None
    version: int | None
    recorded_at: str | None
    checks_passed: bool | None
    score: float | None
    overridden: bool
    failed_criteria: list[str]
    reason: str
    editor: str | None


class ChecksRecord(TypedDict):
    """A published story's ``checks.json``: the rubric recorded at its publication."""

    schema: str
    story: dict[str, str]
    published_at: str | None
    revised_at: str | None
    publication: Publication
    rubric: Rubric | None
    disclosure: Any


class WebhookStory(TypedDict):
    id: str
    url: str
    api_url: str
    version: int
    status: str
    newsroom: str
    edition: str
    headline: str
    published_at: str | None
    updated_at: str


class WebhookEvent(TypedDict):
    """The JSON body of a webhook delivery."""

    event: str
    delivery_id: str
    created_at: str
    story: WebhookStory
    correction: NotRequired[dict[str, str]]
