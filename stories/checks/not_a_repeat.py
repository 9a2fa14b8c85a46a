"""``not_a_repeat``: no other published story of the same newsroom, in the repeat window,
is a near-duplicate.

The window is the ``CHECKS_REPEAT_WINDOW_HOURS`` before the story's edition, up to and
including the edition itself; later editions are not looked at (a later story repeating
this one is *its* problem, not this one's). Candidates are compared through their stored
``StoryFingerprint`` only (one query, no other story's text): the estimated Jaccard
similarity of their text shingles (MinHash) and the exact Jaccard similarity of their cited
claim ids. Either at or above ``CHECKS_REPEAT_SIMILARITY`` makes a repeat. The story
itself (by id) never counts.
"""

import datetime as dt

from django.conf import settings
from django.db.models import TextField
from django.db.models.functions import Cast

from . import minhash
from .base import ERROR, Criterion, CriterionResult, finding
from .fingerprint import fingerprint_of

EDITION_FORMAT = "%Y-%m-%dT%H"


def candidates(ctx):
    """(id, headline, edition, signature, raw claim ids JSON) of the published stories the
    story may repeat. Edition ids sort as their hours, so the window is a string range."""
    from stories.models import Story

    start = (ctx.edition_start - dt.timedelta(hours=settings.CHECKS_REPEAT_WINDOW_HOURS)).strftime(EDITION_FORMAT)
    qs = (
        Story.objects.published()
        .filter(newsroom__slug=ctx.doc["newsroom"], edition_id__gte=start, edition_id__lte=ctx.doc["edition"])
        .exclude(id__in=ctx.excluded_ids)
        .filter(fingerprint__isnull=False)
        # raw text: decoding thousands of JSON lists is the slow part, and most are not needed
        .values_list("id", "headline", "edition_id", Cast("fingerprint__minhash", TextField()), Cast("fingerprint__claim_ids", TextField()))
    )
    return qs


def _claim_ids(raw: str) -> set[str]:
    # the stored JSON is a list of id strings; ids never contain quotes (see ID_REGEX)
    return set(raw.split('"')[1::2])


class NotARepeat(Criterion):
    name = "not_a_repeat"

    def run(self, ctx) -> CriterionResult:
        threshold = settings.CHECKS_REPEAT_SIMILARITY
        sig, claim_ids = fingerprint_of(ctx.doc)
        own = minhash.decode(sig)
        ours = set(claim_ids)
        findings, worst = [], 0.0
        for story_id, headline, edition, cand_sig, cand_claims in candidates(ctx):
            text_sim = minhash.similarity_decoded(own, minhash.decode(cand_sig[1:-1])) if cand_sig.startswith('"') else 0.0
            claim_sim = 0.0
            if ours and cand_claims and cand_claims != "[]":
                theirs = _claim_ids(cand_claims)
                if not ours.isdisjoint(theirs):
                    claim_sim = len(ours & theirs) / len(ours | theirs)
            similarity = max(text_sim, claim_sim)
            worst = max(worst, similarity)
            if similarity >= threshold:
                findings.append(
                    finding(
                        ERROR, "$",
                        f"story {story_id} ({headline!r}, edition {edition}) is a near-duplicate: "
                        f"text similarity {text_sim:.2f}, cited-claim overlap {claim_sim:.2f} "
                        f"(the limit is {threshold:.2f})",
                        story_id=story_id, headline=headline, edition=edition, similarity=round(similarity, 3),
                        text_similarity=round(text_sim, 3), claim_similarity=round(claim_sim, 3),
                    )
                )  # fmt: skip
        findings.sort(key=lambda f: -f["similarity"])
        return CriterionResult(self.name, 1.0 if not findings else 1.0 - worst, findings)
