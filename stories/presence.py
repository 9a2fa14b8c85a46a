"""Who has a story open in the admin: a lightweight, best-effort record in the cache.

Opening a story's change page notes (story, user, time) under one cache key per story
with a short TTL; the page then lists the others seen recently. Nothing here is a lock:
the version check on save is what prevents lost updates; this only warns early.
"""

from __future__ import annotations

import time

from django.core.cache import cache

TTL_SECONDS = 10 * 60


def _key(story_id: str) -> str:
    return f"desk:presence:{story_id}"


def touch(story_id: str, username: str, *, now: float | None = None) -> None:
    """Note that ``username`` has the story open now (and forget anyone not seen for TTL)."""
    now = time.time() if now is None else now
    seen = {name: at for name, at in (cache.get(_key(story_id)) or {}).items() if now - at < TTL_SECONDS}
    seen[username] = now
    cache.set(_key(story_id), seen, TTL_SECONDS)


def others(story_id: str, username: str, *, now: float | None = None) -> list[dict]:
    """The other users seen on the story within the TTL, most recent first:
    ``[{"username": "alice", "seconds_ago": 120, "ago": "2 min ago"}]``."""
    now = time.time() if now is None else now
    seen = cache.get(_key(story_id)) or {}
    out = [
        {"username": name, "seconds_ago": int(now - at), "ago": _ago(now - at)}
        for name, at in seen.items()
        if name != username and now - at < TTL_SECONDS
    ]
    return sorted(out, key=lambda o: o["seconds_ago"])


def _ago(seconds: float) -> str:
    if seconds < 60:
        return "just now"
    return f"{int(seconds // 60)} min ago"
