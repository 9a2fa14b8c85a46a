"""``not_a_repeat``: no other published story of the same newsroom, in the repeat window,
is a near-duplicate.

The window is the ``CHECKS_REPEAT_WINDOW_HOURS`` before the story's edition, up to and
including the edition itself; later editions are not looked at (a later story repeating
this one is *its* problem, not this one's). Candidates are compared through their stored
``StoryFingerprint`` (one query, no other story's text; a second one fetches the
headlines of the repeats, only when there are some): the estimated Jaccard similarity
of their text shingles (MinHash) and the exact Jaccard similarity of their cited claim ids.
Either at or above ``CHECKS_REPEAT_SIMILARITY`` makes a repeat. The story itself (by id)
never counts, nor, for pending changes, the live story they will replace.

To stay fast with thousands of candidates, the same query asks the (indexed) cite tables
which candidates share at least one claim with the story, and returns the claim ids only
for those; the MinHash signatures are compared in bulk (``minhash.similarities``). Within a
bulk import (``checks.batch``), the candidates are found by the bins their signatures share
with the story's, and only those that can be a repeat are compared.
"""

import datetime as dt
from operator import itemgetter

from django.conf import settings
from django.db import connections
from django.db.models import Case, Q, Subquery, TextField, Value, When
from django.db.models.functions import Cast, Substr

from stories import minhash
from stories.fingerprints import fingerprint_of

from .base import ERROR, Criterion, CriterionResult, finding
from .batch import current

EDITION_FORMAT = "%Y-%m-%dT%H"


def candidates(ctx, claim_ids: list[str]):
    """(id, signature JSON, claim ids JSON or "") of the published stories the story may
    repeat. Edition ids sort as their hours, so the window is a string range. The rows are
    kept narrow (no headline): with ten thousand candidates, width is time."""
    from newsroom.models import Newsroom
    from stories.models import CiteClaim, Story

    start = (ctx.edition_start - dt.timedelta(hours=settings.CHECKS_REPEAT_WINDOW_HOURS)).strftime(EDITION_FORMAT)
    shared = CiteClaim.objects.filter(claim_id__in=claim_ids)
    sharing = Q(id__in=shared.filter(cite__paragraph__isnull=False).values("cite__paragraph__section__story_id")) | Q(
        id__in=shared.filter(cite__key_fact__isnull=False).values("cite__key_fact__story_id")
    )
    return (
        Story.objects.published()
        .filter(newsroom=Subquery(Newsroom.objects.filter(slug=ctx.doc["newsroom"]).order_by().values("id")[:1]))
        .filter(edition_id__gte=start, edition_id__lte=ctx.doc["edition"])
        .exclude(id__in=ctx.excluded_ids)
        # pending changes of a live story are never a repeat of the story they will replace
        .exclude(id__in=Story.objects.filter(id__in=ctx.excluded_ids, draft_of__isnull=False).values("draft_of_id"))
        .filter(fingerprint__isnull=False)
        .order_by()  # the model's default ordering would make the database sort every candidate
        .values_list(
            "id",
            # raw text: decoding thousands of JSON values is the slow part; the signature
            # is a JSON string of 256 hex digits, taken without its quotes
            Substr(Cast("fingerprint__minhash", TextField()), 2, minhash.BINS * 2),
            Case(
                When(sharing, then=Cast("fingerprint__claim_ids", TextField())),
                default=Value(""),
                output_field=TextField(),
            )
            if claim_ids
            else Value("", output_field=TextField()),
        )
    )


def _fetch(queryset) -> list[tuple]:
    """The queryset's rows straight from the cursor: the same SQL, without the ORM's
    per-row work, which is most of the Python time with ten thousand candidates."""
    sql, params = queryset.query.sql_with_params()
    with connections[queryset.db].cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _claim_ids(raw: str) -> set[str]:
    # the stored JSON is a list of id strings; ids never contain quotes (see ID_REGEX)
    return set(raw.split('"')[1::2])


class NotARepeat(Criterion):
    name = "not_a_repeat"

    def run(self, ctx) -> CriterionResult:
        threshold = settings.CHECKS_REPEAT_SIMILARITY
        sig, claim_ids = ctx.fingerprint or fingerprint_of(ctx.doc)
        ours = set(claim_ids)
        batch = current()
        rows = batch.repeat_candidates(ctx, claim_ids, sig) if batch is not None else None
        if rows is None:
            rows = _fetch(candidates(ctx, claim_ids))
        if batch is not None and ctx.doc.get("id"):
            batch.checked(ctx.doc["id"], sig, claim_ids)
        text_sims = minhash.similarities(sig, list(map(itemgetter(1), rows)))
        # claim overlap only for the few candidates the cite tables say share a claim
        sharing = [i for i, raw in enumerate(map(itemgetter(2), rows)) if raw]
        claim_sims = {i: len(ours & (theirs := _claim_ids(rows[i][2]))) / len(ours | theirs) for i in sharing}
        similar = {i for i, sim in enumerate(text_sims) if sim >= threshold}
        similar |= {i for i, sim in claim_sims.items() if sim >= threshold}
        repeats = [
            (rows[i][0], max(text_sims[i], claim_sims.get(i, 0.0)), text_sims[i], claim_sims.get(i, 0.0))
            for i in sorted(similar)  # in the candidates' order
        ]
        worst = max((r[1] for r in repeats), default=0.0)
        findings = self.describe(repeats, threshold)
        return CriterionResult(self.name, 1.0 if not findings else 1.0 - worst, findings)

    @staticmethod
    def describe(repeats, threshold: float) -> list[dict]:
        """Findings for the repeats, with their headlines (one more query, only when the
        check has already failed)."""
        from stories.models import Story

        if not repeats:
            return []
        known = {
            sid: (h, e)
            for sid, h, e in Story.objects.filter(id__in=[r[0] for r in repeats]).values_list(
                "id", "headline", "edition_id"
            )
        }
        findings = []
        for story_id, similarity, text_sim, claim_sim in sorted(repeats, key=lambda r: -r[1]):
            headline, edition = known.get(story_id, ("", ""))
            findings.append(
                finding(
                    ERROR,
                    "$",
                    f"story {story_id} ({headline!r}, edition {edition}) is a near-duplicate: "
                    f"text similarity {text_sim:.2f}, cited-claim overlap {claim_sim:.2f} "
                    f"(the limit is {threshold:.2f})",
                    story_id=story_id,
                    headline=headline,
                    edition=edition,
                    similarity=round(similarity, 3),
                    text_similarity=round(text_sim, 3),
                    claim_similarity=round(claim_sim, 3),
                )
            )
        return findings
