"""Signals the story actions send *inside* their transaction, so that receivers (the
syndication outbox) write their rows atomically with the event. Receivers must not do
network I/O here; queue it (``transaction.on_commit`` or an outbox row).

Every signal is sent with ``story`` (the Story, at its new version) and ``user``;
``story_corrected`` also sends ``correction``.
"""

from django.dispatch import Signal

story_published = Signal()
story_unpublished = Signal()
story_corrected = Signal()
story_updated = Signal()
