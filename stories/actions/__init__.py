"""The side-effecting verbs on stories, and the only writers of story rows. Admin, API and
commands all call these.

Each action is atomic, keyword-only, checks the user's permissions (``user=None`` means
the system itself: a command or a scheduled job), and ends in the commit step
(``commit.commit``): the version bumped, a ``Revision`` kept, one typed ``AuditEntry``, the
fingerprint refreshed and its signal sent inside the transaction (see ``stories.signals``),
so that receivers (the syndication outbox) commit or roll back with it.

- ``verbs``: ``save_story``, ``publish_story``, ``unpublish_story``, ``schedule_story``,
  ``cancel_schedule``, ``record_correction``; ``publish_written``, the import's publish of
  the new stories of a batch (``commit.commit_written``: each its own version, revision,
  audit row and signal, their rows written together);
- ``imports``: desk/1 documents in (``import_story``, ``import_batch``, and ``Importer``
  for a file's batches), through the gate,
  or as exported (``restore=True``); ``rows`` and ``bulk`` write their rows;
- ``forms``: the admin's forms and inlines saved inside ``save_story``;
- ``review``: ``submit_for_review``, ``send_back`` (the review flow between writer and editor);
- ``screen``: the editing screen's save (three-way merged) and restore, through ``save_story``.
"""

from stories.desk import VersionConflict

from .base import ActionError, ChecksFailed, can_edit
from .commit import commit, record_revision
from .forms import delete_part, save_forms
from .imports import Importer, ImportResult, Refused, import_batch, import_story, save_document
from .review import send_back, submit_for_review
from .verbs import (
    _bump,
    cancel_schedule,
    publish_story,
    record_correction,
    save_story,
    schedule_story,
    unpublish_story,
)

__all__ = [
    "ActionError",
    "ChecksFailed",
    "ImportResult",
    "Importer",
    "Refused",
    "VersionConflict",
    "_bump",
    "can_edit",
    "cancel_schedule",
    "commit",
    "delete_part",
    "import_batch",
    "import_story",
    "publish_story",
    "record_correction",
    "record_revision",
    "save_document",
    "save_forms",
    "save_story",
    "schedule_story",
    "send_back",
    "submit_for_review",
    "unpublish_story",
]
