"""Story fingerprints: what ``not_a_repeat`` compares instead of other stories' text.

A fingerprint is kept with each story whenever it is written (``stories.desk``), and the
publish checks compare a draft's fingerprint with those of recent stories. It is part of
neither: it reads only a document's wording and cites.
"""

from __future__ import annotations

import hashlib

from stories import minhash
from stories.readable import plain, visible
from stories.text import words

MEMO_SIZE = 2048  # signatures kept by text digest: more than a bulk import's batch of stories
_memo: dict[bytes, str] = {}


def story_text(doc: dict) -> str:
    """The words a repeat would share, as readers read them: headline, dek, every paragraph
    and key fact."""
    parts = [doc.get("headline") or "", doc.get("dek") or ""]
    parts += [fact["text"] for fact in doc["key_facts"]]
    parts = [visible("\n".join(parts))]
    parts += [plain(p["markdown"]) for s in doc["sections"] for p in s["paragraphs"]]
    return "\n".join(parts)


def cited_claim_ids(doc: dict) -> list[str]:
    """Distinct cited claim ids, sorted (a set, stored as a list): those of the key facts'
    cites and of the paragraphs'."""
    owners = doc["key_facts"] + [p for s in doc["sections"] for p in s["paragraphs"]]
    return sorted({cid for owner in owners for cite in owner["cites"] for cid in cite["claim_ids"]})


def fingerprint_of(doc: dict) -> tuple[str, list[str]]:
    """(MinHash signature, cited claim ids) of a validated desk/1 document."""
    return text_signature(story_text(doc)), cited_claim_ids(doc)


def text_signature(text: str) -> str:
    """``minhash.signature`` of the text's words, computed once for the same text: a commit
    fingerprints the story it writes, and the publish's ``not_a_repeat`` that follows
    fingerprints the same text (a bulk import passes the written fingerprint to the check
    instead). Kept by the text's digest, at most ``MEMO_SIZE`` of them (then the memo starts
    over), so memory stays flat."""
    key = hashlib.blake2b(text.encode(), digest_size=16).digest()
    sig = _memo.get(key)
    if sig is None:
        sig = minhash.signature(words(text))
        if len(_memo) >= MEMO_SIZE:
            _memo.clear()
        _memo[key] = sig
    return sig


def refresh_fingerprint(story, doc: dict):
    """Store the fingerprint of ``story`` from its document (its stored fields)."""
    from stories.models import StoryFingerprint

    sig, claim_ids = fingerprint_of(doc)
    fp, _ = StoryFingerprint.objects.update_or_create(story=story, defaults={"minhash": sig, "claim_ids": claim_ids})
    return fp
