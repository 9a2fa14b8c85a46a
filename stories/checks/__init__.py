"""The publish checks (``docs/checks.md``): seven criteria, one module each, and a runner.

- ``run_checks(doc, exclude_story_id=None) -> dict``: the rubric of a validated desk/1 doc.
- ``check_and_record(story) -> CheckResult``: check a stored story and save its rubric;
  ``rubric_of(story)``: the same rubric, recorded by the caller.
"""

from .runner import CRITERIA, CRITERIA_NAMES, check_and_record, rubric_of, run_checks

__all__ = ["CRITERIA", "CRITERIA_NAMES", "check_and_record", "rubric_of", "run_checks"]
