"""When to retry and how long to wait: 429 and 5xx answers and connection failures, with
exponential backoff and jitter, honouring ``Retry-After`` up to a cap."""

from __future__ import annotations

import email.utils
import random
import time
from collections import OrderedDict
from dataclasses import dataclass, field

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """``attempts`` in all (the first included). Without ``Retry-After`` the n-th wait is
    ``backoff * 2**(n-1)``, at most ``backoff_max``; a ``Retry-After`` is waited as given when
    it is at most ``retry_after_max`` (a longer one is not waited out: ``RateLimited`` at once).
    Each wait gets up to ``jitter`` of itself added at random, so many clients refused at once
    do not all come back in the same instant."""

    attempts: int = 4
    backoff: float = 0.5
    backoff_max: float = 8.0
    retry_after_max: float = 60.0
    jitter: float = 0.25
    rng: random.Random = field(default_factory=random.Random, compare=False, repr=False)

    def delay(self, attempt: int, retry_after: float | None) -> float | None:
        """Seconds to wait before attempt ``attempt + 1``; None when the wait is past the cap."""
        if retry_after is not None:
            if retry_after > self.retry_after_max:
                return None
            base = retry_after
        else:
            base = min(self.backoff * 2 ** (attempt - 1), self.backoff_max)
        return base + self.rng.uniform(0, self.jitter * base)


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """``Retry-After`` in seconds: a number of seconds or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(when.timestamp() - (now if now is not None else time.time()), 0.0)


class ETagCache:
    """The last ``ETag`` and body of each URL fetched, least recently used dropped first,
    so a repeated GET sends ``If-None-Match`` and a ``304`` costs no body."""

    def __init__(self, max_entries: int = 256):
        self.max_entries = max_entries
        self._entries: OrderedDict[str, tuple[str, bytes]] = OrderedDict()

    def get(self, url: str) -> tuple[str, bytes] | None:
        entry = self._entries.get(url)
        if entry is not None:
            self._entries.move_to_end(url)
        return entry

    def put(self, url: str, etag: str, body: bytes) -> None:
        self._entries[url] = (etag, body)
        self._entries.move_to_end(url)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)
