"""MinHash signatures of story text, small enough that a check can compare ten thousand.

One-permutation MinHash (Li, Owen & Zhang 2012) with rotation densification (Shrivastava &
Li 2014): each word 3-shingle is hashed once (blake2b, stable across processes), falls into
one of ``BINS`` bins, and each bin keeps its smallest hash. The signature keeps the lowest
8 bits of each bin's minimum (b-bit MinHash, Li & König 2010): 128 bytes, stored as 256 hex
characters in ``StoryFingerprint.minhash``. The share of equal bins, corrected for the 1/256
chance that two different minima share their low byte, estimates the Jaccard similarity of
the two shingle sets (standard error about 0.045). Comparing ten thousand signatures is a
handful of C-level operations (see ``similarities``).
"""

from __future__ import annotations

import hashlib
import sys
from array import array
from bisect import bisect_left
from collections.abc import Iterable
from operator import add

BINS = 128
SHINGLE = 3
_CHANCE = 1 / 256  # two different minima agree on their low byte this often
_ROTATION_STEP = 0x9E3779B1  # offset added per hop when an empty bin borrows a neighbour's value
_EMPTY = -1
_ABOVE_ALL = 1 << 64  # more than any 64-bit hash
_BIN_BITS = BINS.bit_length() - 1  # BINS is a power of two
_BIN_MASK = BINS - 1


def _hash64(shingle: str) -> int:
    return int.from_bytes(hashlib.blake2b(shingle.encode(), digest_size=8).digest(), "little")


def each_shingle(words: list[str], size: int = SHINGLE) -> Iterable[str]:
    """The text's shingles in order, a repeated one each time it occurs, joined in C without
    slicing: a signature keeps each bin's smallest hash, which a shingle hashed twice leaves
    as it is, so it needs no set of them first."""
    if len(words) < size:
        return [" ".join(words)] if words else []
    return map(" ".join, zip(*(words[i:] for i in range(size))))


def shingles(words: list[str], size: int = SHINGLE) -> set[str]:
    """The set of the text's shingles."""
    return set(each_shingle(words, size))


_BLANK = hashlib.blake2b(digest_size=8)  # copied for each shingle: no parameters parsed again


def signature(words: list[str]) -> str:
    """The hex signature of a text's words (see ``stories.text.words``)."""
    # Every shingle's blake2b digest in one buffer, read back as little-endian 64-bit
    # integers in C (as ``_hash64`` reads one): bulk imports fingerprint every story.
    copy, digests = _BLANK.copy, []
    append = digests.append
    for sh in each_shingle(words):
        h = copy()
        h.update(sh.encode())
        append(h.digest())
    hashes = array("Q", b"".join(digests))
    if sys.byteorder != "little":
        hashes.byteswap()
    # Each bin's smallest hash, in one pass (sorting them all first took twice as long).
    # Within a bin, the smallest hash has the smallest h // BINS.
    lowest: dict[int, int] = {}
    least = lowest.get
    for h in hashes:
        if h < least(b := h & _BIN_MASK, _ABOVE_ALL):
            lowest[b] = h
    if len(lowest) == BINS:  # no bin empty (most texts): no value borrowed
        return bytes([(lowest[b] >> _BIN_BITS) & 0xFF for b in range(BINS)]).hex()
    if not lowest:
        return "00" * BINS
    mins = [_EMPTY] * BINS
    for b, h in lowest.items():
        mins[b] = h >> _BIN_BITS
    values = bytearray(BINS)
    for b in range(BINS):
        hop = 0
        while mins[(b + hop) % BINS] == _EMPTY:
            hop += 1
        values[b] = (mins[(b + hop) % BINS] + hop * _ROTATION_STEP) & 0xFF
    return values.hex()


def _estimate(equal_bins: int) -> float:
    return max(0.0, (equal_bins / BINS - _CHANCE) / (1 - _CHANCE))


_ESTIMATES = [_estimate(n) for n in range(BINS + 1)]
# _EQUALS[v] maps byte v to 1 and every other byte to 0 (for bytes.translate)
_EQUALS = [bytes(1 if i == v else 0 for i in range(256)) for v in range(256)]


def similarities(own: str, others: list[str]) -> list[float]:
    """Estimated Jaccard similarity of ``own`` with each of ``others``, in bulk and in C.

    The signatures are decoded into one buffer; for each bin, a strided slice takes that bin
    of every signature, ``translate`` turns it into 1 where it equals ours and 0 elsewhere,
    and the 128 such byte strings are added as integers: each byte of the sum is one
    signature's count of equal bins (at most 128, so no byte carries into the next). Ten
    thousand signatures cost a few milliseconds. A malformed signature compares as 0.
    """
    if not others:
        return []
    width = BINS * 2
    if len(own) != width or set(map(len, others)) != {width}:
        return [similarities(own, [sig])[0] if len(sig) == width == len(own) else 0.0 for sig in others]
    try:
        blob = bytes.fromhex("".join(others))
        mine = bytes.fromhex(own)
    except ValueError:
        return [similarities(own, [sig])[0] if _is_hex(sig) else 0.0 for sig in others] if len(others) > 1 else [0.0]
    total = 0
    for b in range(BINS):
        total += int.from_bytes(blob[b::BINS].translate(_EQUALS[mine[b]]), "little")
    return [_ESTIMATES[n] for n in total.to_bytes(len(others), "little")]


def _is_hex(sig: str) -> bool:
    try:
        bytes.fromhex(sig)
    except ValueError:
        return False
    return True


def similarity(a: str, b: str) -> float:
    return similarities(a, [b])[0]


def equal_bins_needed(threshold: float) -> int | None:
    """The fewest equal bins whose estimate (``similarities``) reaches ``threshold``, or
    None when no count does."""
    needed = bisect_left(_ESTIMATES, threshold)  # the estimates never fall as the count rises
    return needed if needed < len(_ESTIMATES) else None


_BIN_OFFSETS = range(0, BINS * 256, 256)


def bin_keys(signature: str) -> list[int] | None:
    """One key per bin, ``bin * 256 + value``: two signatures share a key for each bin they
    agree on, so an index of keys finds the signatures that agree with one in many bins
    without comparing it with each. None for a malformed signature (``similarities``
    compares it as 0)."""
    if len(signature) != BINS * 2:
        return None
    try:
        values = bytes.fromhex(signature)
    except ValueError:
        return None
    return list(map(add, _BIN_OFFSETS, values)) if len(values) == BINS else None
