"""The checks of many new stories, their database reads made once for the batch.

The bulk import publishes the new stories of a batch one after the other, each through the
publish action and its checks. Within ``batch_reads(reads)`` the checks take what they
would read for each story from ``reads``, loaded once for the batch: the cited manifests
(with publishers) and claims (``CheckContext``), and ``not_a_repeat``'s candidates (the
published stories, with fingerprints, of the batch's newsrooms in the union of the
stories' repeat windows, read when the first of them is checked), to which each story of the batch is added as it is published,
so that a later story repeating it is refused as it would be checked alone. What a story
of the batch is checked against is what a query would return at that moment; a read the
batch does not cover (a manifest or claim outside it, a window outside the loaded range,
a story that is not new) falls back to the query
(tests/stories/test_gate_imports_batch.py: the rubrics equal those checked one at a time).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from collections import Counter
from contextvars import ContextVar
from functools import lru_cache
from itertools import chain, repeat

from django.conf import settings
from django.db.models import TextField
from django.db.models.functions import Cast, Substr

from stories import minhash

_CURRENT: ContextVar[BatchReads | None] = ContextVar("check_batch_reads", default=None)
EDITION_FORMAT = "%Y-%m-%dT%H"


def current() -> BatchReads | None:
    return _CURRENT.get()


@contextlib.contextmanager
def batch_reads(reads: BatchReads):
    token = _CURRENT.set(reads)
    try:
        yield reads
    finally:
        _CURRENT.reset(token)


def _window_start(edition: str) -> str:
    from newsroom.models import parse_edition

    start = parse_edition(edition) - dt.timedelta(hours=settings.CHECKS_REPEAT_WINDOW_HOURS)
    return start.strftime(EDITION_FORMAT)


@lru_cache(maxsize=256)
def _hours(start: str, end: str) -> tuple[str, ...]:
    """The edition hours from ``start`` to ``end``, both included (edition ids, which sort
    as their hours)."""
    from newsroom.models import parse_edition

    hour, last, out = parse_edition(start), parse_edition(end), []
    while hour <= last:
        out.append(hour.strftime(EDITION_FORMAT))
        hour += dt.timedelta(hours=1)
    return tuple(out)


def _claim_set(claims: str) -> frozenset[str]:
    """The claim ids of a fingerprint's ``claim_ids`` as JSON text (a list of strings)."""
    return frozenset(claims.split('"')[1::2])


class BatchReads:
    """The reads of the checks of ``docs`` (validated desk/1 documents of the new stories
    ``story_ids``, just written, none of them published), in two queries; their cited
    claims are taken from ``claims`` (claim id -> ``ClaimRow``, read once for the batch's
    writer)."""

    def __init__(self, docs: list[dict], story_ids: set[str], *, claims: dict):
        from manifests.models import Manifest
        from stories.desk import cited_manifest_ids, iter_cites

        self.new_ids = set(story_ids)
        self.manifest_ids = {mid for doc in docs for mid in cited_manifest_ids(doc)}
        self.claim_ids = {cid for doc in docs for _, cite in iter_cites(doc) for cid in cite["claim_ids"]}
        self.manifests = {
            m.id: m for m in Manifest.objects.filter(id__in=self.manifest_ids).select_related("publisher")
        }
        self.claims = {cid: claims[cid] for cid in self.claim_ids if cid in claims}
        self.newsrooms = {doc["newsroom"] for doc in docs}
        self.low = min((_window_start(doc["edition"]) for doc in docs), default="")
        self.high = max((doc["edition"] for doc in docs), default="")
        # (place, id, signature, claim ids as JSON text) by (newsroom, edition hour), and
        # the places of the candidates citing each claim: a story's window is read hour by
        # hour, and the candidates sharing one of its claims are found by its claims. Read
        # when the first story is checked (``_candidates``), not before: the stories of a
        # batch published meanwhile (the one before it, while its rows were written) are
        # candidates too.
        self.by_hour: dict[tuple[str, str], list[tuple[int, str, str, str]]] | None = None
        self.citing: dict[str, tuple[int] | list[int]] = {}
        self.fingerprints: dict[str, tuple[str, list[str]]] = {}
        # Each candidate's row, newsroom and hour by place, and by newsroom the places of
        # the candidates whose signatures hold each bin's value (``minhash.bin_keys``): a
        # story is compared with the candidates that agree with it in enough bins to be a
        # repeat, found by its signature, not with every candidate of its window.
        self.placed: list[tuple[tuple[int, str, str, str], str, str]] = []
        self.agreeing: dict[str, dict[int, list[int]]] = {}

    def _candidates(self) -> dict[tuple[str, str], list[tuple[int, str, str, str]]]:
        """The candidates by (newsroom, edition hour), read once (see ``__init__``)."""
        if self.by_hour is None:
            from stories.models import Story

            self.by_hour = {}
            rows = (
                Story.objects.published()
                .filter(newsroom__slug__in=self.newsrooms, edition_id__gte=self.low, edition_id__lte=self.high)
                .filter(fingerprint__isnull=False)
                .order_by("id")
                .values_list(
                    "id",
                    "newsroom__slug",
                    "edition_id",
                    Substr(Cast("fingerprint__minhash", TextField()), 2, minhash.BINS * 2),
                    Cast("fingerprint__claim_ids", TextField()),
                )
            )
            for sid, room, edition, sig, claims in rows:
                self._add(sid, room, edition, sig, claims)
        return self.by_hour

    def _add(self, sid: str, room: str, edition: str, sig: str, claims: str) -> None:
        place = len(self.placed)
        row = (place, sid, sig, claims)
        self.by_hour.setdefault((room, edition), []).append(row)
        self.placed.append((row, room, edition))
        # The claims no candidate cited before (most) share one tuple of this place, added in
        # C; a claim cited again gets a list of its own, which each later citing appends to.
        citing, cited = self.citing, _claim_set(claims)
        new = cited.difference(citing)  # looked up in the dictionary, element by element
        for cid in cited - new if len(new) < len(cited) else ():
            if type(places := citing[cid]) is tuple:
                citing[cid] = [*places, place]
            else:
                places.append(place)
        citing.update(dict.fromkeys(new, (place,)))
        index = self.agreeing.setdefault(room, {})
        for key in minhash.bin_keys(sig) or ():
            if (places := index.get(key)) is None:
                index[key] = [place]
            else:
                places.append(place)

    def sources(self, manifest_ids, claim_ids) -> tuple[dict, dict] | None:
        """The manifests and claims ``CheckContext`` would read, or None when the batch
        did not load every one of them."""
        if not (self.manifest_ids.issuperset(manifest_ids) and self.claim_ids.issuperset(claim_ids)):
            return None
        manifests = {mid: self.manifests[mid] for mid in manifest_ids if mid in self.manifests}
        claims = {cid: self.claims[cid] for cid in claim_ids if cid in self.claims}
        return manifests, claims

    def repeat_candidates(self, ctx, claim_ids: list[str], signature: str = "") -> list[tuple[str, str, str]] | None:
        """``not_a_repeat.candidates``' rows for ``ctx`` (the claim ids only for candidates
        sharing a claim), or None when the batch's candidates do not cover its window.

        Given the story's ``signature``, only the rows that can be a repeat: those sharing a
        claim, and those whose signatures agree with it in as many bins as a text
        similarity of ``CHECKS_REPEAT_SIMILARITY`` takes (``minhash.equal_bins_needed``),
        counted from the index of bin values. Every other row is below the limit on both
        counts, so the check's result is the same."""
        doc = ctx.doc
        start = _window_start(doc["edition"])
        if doc["newsroom"] not in self.newsrooms or start < self.low or doc["edition"] > self.high:
            return None
        if not ctx.excluded_ids <= self.new_ids:
            return None  # pending changes exclude their live story: the query knows it
        newsroom, excluded, by_hour = doc["newsroom"], ctx.excluded_ids, self._candidates()
        sharing = set().union(*(self.citing.get(cid, ()) for cid in set(claim_ids)))
        end = doc["edition"]
        needed = minhash.equal_bins_needed(settings.CHECKS_REPEAT_SIMILARITY)
        keys = minhash.bin_keys(signature) if needed != 0 else None
        if keys is not None:  # the rows that can be a repeat, by place
            index = self.agreeing.get(newsroom, {})
            agree = Counter(chain.from_iterable(map(index.get, keys, repeat(()))))
            places = sharing.union(place for place, n in agree.items() if n >= needed) if needed else sharing
            found = [
                row
                for row, room, hour in map(self.placed.__getitem__, sorted(places))
                if room == newsroom and start <= hour <= end and row[1] not in excluded
            ]
            return [(sid, sig, claims if place in sharing else "") for place, sid, sig, claims in found]
        if len(by_hour) > settings.CHECKS_REPEAT_WINDOW_HOURS:  # the window's hours, one by one
            buckets = [by_hour.get((newsroom, hour), ()) for hour in _hours(start, end)]
        else:  # a window longer than the candidates' hours: each of those hours, if in the window
            buckets = [rows for (room, hour), rows in by_hour.items() if room == newsroom and start <= hour <= end]
        found = [row for rows in buckets for row in rows if row[1] not in excluded]
        found.sort()  # in the order the candidates were read and published
        return [(sid, sig, claims if place in sharing else "") for place, sid, sig, claims in found]

    def covers(self, story_id: str) -> bool:
        """Every read of this story's checks is answered from the batch (a story of the
        batch: its cites, newsroom and window are among those loaded)."""
        return story_id in self.new_ids

    def checked(self, story_id: str, signature: str, claim_ids: list[str]) -> None:
        """``not_a_repeat`` computed the fingerprint of this story of the batch."""
        if story_id in self.new_ids:
            self.fingerprints[story_id] = (signature, claim_ids)

    def published(self, story) -> None:
        """``story`` of the batch is now published: a candidate for the stories after it."""
        if story.pk in self.fingerprints:
            sig, claim_ids = self.fingerprints.pop(story.pk)
        else:  # not checked within the batch's reads: its stored fingerprint
            from stories.models import StoryFingerprint

            sig, claim_ids = StoryFingerprint.objects.values_list("minhash", "claim_ids").get(story_id=story.pk)
        doc_newsroom = story.newsroom.slug
        if doc_newsroom in self.newsrooms and self.low <= story.edition_id <= self.high:
            self._candidates()
            self._add(story.pk, doc_newsroom, story.edition_id, sig, json.dumps(claim_ids))
