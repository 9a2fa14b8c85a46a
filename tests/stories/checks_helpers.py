"""Helpers shared by the checks tests: build variants of the seed and read rubrics."""

import copy

from stories import desk
from stories.checks import run_checks


def rederive(doc: dict) -> dict:
    """The document with its derived fields recomputed from the database, as the CMS would
    export it: so a planted fault touches only the criterion it is meant for."""
    return desk.render_document(desk.validate(copy.deepcopy(doc)))


def rubric_of(doc: dict, **kwargs) -> dict:
    return run_checks(desk.validate(doc), **kwargs)


def criterion(rubric: dict, name: str) -> dict:
    return next(c for c in rubric["criteria"] if c["name"] == name)


def failing(rubric: dict) -> list[str]:
    return [c["name"] for c in rubric["criteria"] if not c["passed"]]


def errors(rubric: dict, name: str) -> list[dict]:
    return [f for f in criterion(rubric, name)["findings"] if f["severity"] == "error"]


def para(doc: dict, section: int, paragraph: int) -> dict:
    return doc["sections"][section]["paragraphs"][paragraph]
