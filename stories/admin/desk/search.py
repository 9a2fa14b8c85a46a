"""The claim search of the editing screen: claims of every manifest, by the words of the
claim's text, its manifest's title, its publisher, or an id; recent manifests first.

Each word of the query must appear (case-insensitively, as a substring) in one of those
fields: ``icontains`` compiles to ``LIKE``/``ILIKE`` with the query's ``%`` and ``_``
escaped, so the cost grows with the text searched, never with what the query contains.
The query is cut to ``MAX_QUERY`` characters and ``MAX_WORDS`` words; at most ``limit``
claims come back, in one query.
"""

from __future__ import annotations

from django.db.models import Q

from manifests.models import Claim

MAX_QUERY = 200
MAX_WORDS = 8
LIMIT = 20


def search_claims(query: str, *, limit: int = LIMIT) -> list[dict]:
    """Claims matching every word of ``query``: ``[{"claim_id", "text", "has_text",
    "self_reported", "manifest_id", "title", "publisher", "published_date"}]``."""
    words = (query or "")[:MAX_QUERY].split()[:MAX_WORDS]
    if not words:
        return []
    match = Q()
    for word in words:
        match &= (
            Q(text__icontains=word)
            | Q(manifest__title__icontains=word)
            | Q(manifest__publisher__name__icontains=word)
            | Q(id=word)
            | Q(manifest_id=word)
        )
    rows = (
        Claim.objects.filter(match)
        .order_by("-manifest__published_date", "manifest_id", "position", "id")
        .values(*_FIELDS)[: max(1, min(limit, LIMIT))]
    )
    return [_info(row) for row in rows]


_FIELDS = (
    "id",
    "text",
    "has_text",
    "self_reported",
    "manifest_id",
    "manifest__title",
    "manifest__publisher__name",
    "manifest__published_date",
)


def _info(row: dict) -> dict:
    return {
        "claim_id": row["id"],
        "text": row["text"],
        "has_text": row["has_text"],
        "self_reported": row["self_reported"] if row["has_text"] else None,
        "manifest_id": row["manifest_id"],
        "title": row["manifest__title"],
        "publisher": row["manifest__publisher__name"],
        "published_date": row["manifest__published_date"].isoformat(),
    }


def claims_info(claim_ids) -> dict[str, dict]:
    """What the screen shows of cited claims, by id (one query)."""
    return {row["id"]: _info(row) for row in Claim.objects.filter(id__in=list(claim_ids)).values(*_FIELDS)}
