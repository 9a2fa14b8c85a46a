"""The ``hangingcontext.desk/1`` story format: the one package that reads and writes it.

- ``parse(text)`` / ``validate(data)`` (``validate``): a JSON document to a validated desk/1
  dict, or a ``DeskError`` naming the JSON path of the first problem.
- ``render(stored, ...)`` (``derive``): the stored fields plus every derived field, in
  desk/1's key order.
- ``export_story(story)`` (``export``): a loaded ``Story`` as a desk/1 dict; ``dumps`` its JSON.
- ``store``: what a writer asks before writing a document (its references resolve, it
  changes the stored story, it keeps the recorded corrections).
- ``working``: the editing screen's working document and its three-way merge.

The desk writes no rows: ``stories.actions`` (``import_story``, ``import_batch``,
``save_document``) does, through the gate.

See ``docs/desk-1.md`` for each field.
"""

from newsroom.infra.jsondoc import FormatError as DeskError

from .derive import (
    DECISION_CARD_KEYS,
    DERIVED_KEYS,
    FAILED_CRITERIA,
    SCHEMA,
    ManifestInfo,
    Responsibility,
    all_cites,
    cited_manifest_ids,
    format_time,
    iter_cites,
    key_fact_self_reported,
    named_editor,
    render,
    story_url,
    trust_text,
    with_publication,
)
from .export import (
    correction_fields,
    dumps,
    export_story,
    in_stored_order,
    render_document,
    responsibility_from,
    responsibility_of,
    stored_fields,
    story_fields,
)
from .store import (
    ImportResult,
    VersionConflict,
    check_append_only,
    resolve_batch_references,
    resolve_references,
    same_stored_fields,
    set_text_fields,
)
from .validate import CORRECTION_KINDS, MAX_STORY_TEXT, parse, validate

__all__ = [
    "CORRECTION_KINDS",
    "DECISION_CARD_KEYS",
    "DERIVED_KEYS",
    "FAILED_CRITERIA",
    "MAX_STORY_TEXT",
    "SCHEMA",
    "DeskError",
    "ImportResult",
    "ManifestInfo",
    "Responsibility",
    "VersionConflict",
    "all_cites",
    "check_append_only",
    "cited_manifest_ids",
    "correction_fields",
    "dumps",
    "export_story",
    "format_time",
    "in_stored_order",
    "iter_cites",
    "key_fact_self_reported",
    "named_editor",
    "parse",
    "render",
    "render_document",
    "resolve_batch_references",
    "resolve_references",
    "responsibility_from",
    "responsibility_of",
    "same_stored_fields",
    "set_text_fields",
    "stored_fields",
    "story_fields",
    "story_url",
    "trust_text",
    "validate",
    "with_publication",
]
