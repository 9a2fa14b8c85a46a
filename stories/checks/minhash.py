"""MinHash signatures of story text, small enough that a check can compare thousands.

One-permutation MinHash (Li, Owen & Zhang 2012) with rotation densification (Shrivastava &
Li 2014): each word 3-shingle is hashed once (blake2b, stable across processes), falls into
one of ``BINS`` bins, and each bin keeps its smallest hash. The signature stores the low 16
bits of each bin's minimum, so it is 256 bytes, kept as base64 text (344 characters) in
``StoryFingerprint.minhash``. The share of equal bins estimates the Jaccard similarity of
the two shingle sets (standard error about 0.04 at 128 bins); comparing two signatures is a
few C-level operations (an XOR of two integers and a count of zero lanes).
"""

from __future__ import annotations

import base64
import hashlib
from array import array

BINS = 128
SHINGLE = 3
_MASK16 = 0xFFFF
_ROTATION_STEP = 0x9E37  # offset added per hop when an empty bin borrows a neighbour's value
_EMPTY = object()


def _hash64(shingle: str) -> int:
    return int.from_bytes(hashlib.blake2b(shingle.encode(), digest_size=8).digest(), "little")


def shingles(words: list[str], size: int = SHINGLE) -> set[str]:
    if len(words) < size:
        return {" ".join(words)} if words else set()
    return {" ".join(words[i : i + size]) for i in range(len(words) - size + 1)}


def signature(words: list[str]) -> str:
    """The base64 signature of a text's words (see ``stories.checks.text.words``)."""
    mins: list = [_EMPTY] * BINS
    for sh in shingles(words):
        h = _hash64(sh)
        b, v = h % BINS, h // BINS
        if mins[b] is _EMPTY or v < mins[b]:
            mins[b] = v
    values = array("H", [0] * BINS)
    if all(m is _EMPTY for m in mins):
        return base64.b64encode(values.tobytes()).decode("ascii")
    for b in range(BINS):
        hop = 0
        while mins[(b + hop) % BINS] is _EMPTY:
            hop += 1
        values[b] = (mins[(b + hop) % BINS] + hop * _ROTATION_STEP) & _MASK16
    if array("H", [1]).tobytes() != b"\x01\x00":  # keep the stored bytes little-endian everywhere
        values.byteswap()
    return base64.b64encode(values.tobytes()).decode("ascii")


def decode(sig: str) -> int:
    """A signature as one integer, ready for ``similarity_decoded``."""
    return int.from_bytes(base64.b64decode(sig), "little")


def similarity_decoded(a: int, b: int) -> float:
    """Estimated Jaccard similarity of two decoded signatures: the share of equal 16-bit bins."""
    lanes = array("H", (a ^ b).to_bytes(BINS * 2, "little"))
    return lanes.count(0) / BINS


def similarity(a: str, b: str) -> float:
    return similarity_decoded(decode(a), decode(b))
