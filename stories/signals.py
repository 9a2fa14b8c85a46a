"""Signals the story actions send *inside* their transaction, so that receivers (the
syndication outbox) write their rows atomically with the event. Receivers must not do
network I/O here; queue it (``transaction.on_commit`` or an outbox row).

Every signal is sent with ``story`` (the Story, at its new version) and ``user``;
``story_corrected`` also sends ``correction``; ``story_updated`` of a restore written over
a stored story sends ``was_public`` (readers saw the story until then) and ``uncited`` (the
manifests it no longer cites).

An action that changes many stories at once (the import's batch) sends their signals
within ``sent_together()``: there ``batch_memo()`` is a dict that receivers may keep what
they read in for the next stories of the block (what they read cannot change meanwhile but
through this transaction). Elsewhere it is None.
"""

import contextlib
from contextvars import ContextVar

from django.dispatch import Signal

story_published = Signal()
story_unpublished = Signal()
story_corrected = Signal()
story_updated = Signal()

_MEMO: ContextVar[dict | None] = ContextVar("story_signals_memo", default=None)


@contextlib.contextmanager
def sent_together():
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def batch_memo() -> dict | None:
    return _MEMO.get()
