"""Figures in stories' prose and claims: each number as written and in one canonical form,
so that "30.70 %", "30.7%" and "307‰" are one figure, and the "from X to Y" ranges they make.

Pure functions of strings, used by the publish checks (``claims_support`` and the reading of
meaning). Nothing here touches the database.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

# A number not glued to a word before it ("Qwen3", "GSM8K" and "ProgAgent-14B" are names,
# not figures), with an optional unit: % (or ‰, ‱), or a magnitude suffix (64k, 14B, 2.5M,
# 3bn, 10x). A decimal may start with its point (".99%" is 0.99%), and the number after a
# slash is a figure too ("215/999": readers read both). Linear time: the figure must not run
# on into a letter, nor into more digits through word characters or points; the letter test
# comes first (one character), and the digit test is lazy, so that each step of backtracking
# through a run of digits ("1111...1a") stops at the next digit instead of rescanning the
# rest of the run.
#
# A hyphen or minus sign right before the digits glues them to the word before it only when
# one is there ("ProgAgent-14B"); after a space, an opening mark or the start it is the
# figure's sign ("-99.9%", "−30.7%": signed figures, which an unsigned claim does not
# state), and after a figure it joins a range ("30.7%-99.9%": both ends are figures).
#
# Every figure starts with a digit or a point: the look-ahead that says so first fails at
# once at every other character, before the look-behinds are tried.
_FIGURE = re.compile(
    r"(?=[\d.])(?<![\w.])(?<![\w.\-/][-\u2212])(?:(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?|(\.\d+))"
    r"(?:\s?(%|\u2030|\u2031|percent\b|per cent\b|per mille\b|permille\b)|(k|K|M|B|bn|x|X)(?![A-Za-z0-9]))?"
    r"(?![A-Za-z])(?![\w.]*?\d)"
)
_DIGIT = re.compile(r"\d")
# Per mille and per ten thousand, read as the percentage they are: 307‰ is 30.7%.
_PER = {"\u2030": 1, "per mille": 1, "permille": 1, "\u2031": 2}


_EXACT_DIGITS = 28  # the decimal module's default precision: longer numbers are rounded by it


def _canonical_number(integer: str, fraction: str | None) -> str:
    if not fraction:  # a whole number: its digits without leading zeros (no Decimal needed)
        return integer.replace(",", "").lstrip("0") or "0"
    digits = integer.replace(",", "")
    whole, decimals = digits.lstrip("0"), fraction[1:].rstrip("0")
    # As Decimal's normalize writes it, without one; Decimal also reads other scripts' digits.
    if len(whole) + len(decimals) <= _EXACT_DIGITS and whole.isascii() and decimals.isascii():
        return f"{whole or '0'}.{decimals}" if decimals else whole or "0"
    raw = digits + fraction
    try:
        value = Decimal(raw)
    except InvalidOperation:
        return raw
    text = format(value.normalize(), "f")
    return text


def _shifted(number: str, places: int) -> tuple[str, str]:
    """A canonical number divided by ten ``places`` times, as (integer, fraction) digits."""
    whole, _, fraction = number.partition(".")
    whole = whole.rjust(places + 1, "0")
    return whole[:-places], "." + whole[-places:] + fraction


# Each ASCII byte as what starts a figure cares about: "0" for a digit, "a" for a word
# character or a point (after which no figure starts), a space for any other.
_SCAN_BYTES = (
    bytes(
        ord("0") if chr(c).isdigit() else ord("a") if chr(c).isalnum() or chr(c) in "_." else 0x20 for c in range(128)
    )
    + b" " * 128
)


def _figure_matches(text: str):
    """``_FIGURE``'s matches in ``text``, as ``finditer`` finds them. In ASCII text a figure
    starts at a digit, or at a point right before one, that follows no word character or
    point: the text is read once as a byte mask (``_SCAN_BYTES``), ``find`` goes from digit
    to digit in C, and the pattern is tried only there, where ``finditer`` tried it at every
    character. After a failed try, the rest of the word is skipped: no figure starts in it."""
    if not text.isascii():  # other scripts' digits are digits too: the pattern reads them
        digit = _DIGIT.search(text)  # a figure has one, and starts at most one character before it
        return () if digit is None else _FIGURE.finditer(text, max(0, digit.start() - 1))
    mask = text.encode("ascii").translate(_SCAN_BYTES)
    digit = mask.find(b"0")
    if digit < 0:
        return ()
    found, pos, match, find = [], 0, _FIGURE.match, mask.find
    while digit >= 0:
        start = digit - 1 if digit > pos and text[digit - 1] == "." else digit
        m = match(text, start) or (match(text, digit) if start != digit else None)
        if m is not None:
            found.append(m)
            pos = m.end()
        else:  # the rest of this run of word characters and points starts no figure
            gap = find(b" ", digit)
            if gap < 0:
                break
            pos = gap + 1
        digit = find(b"0", pos)
    return found


def figures(text: str) -> list[tuple[str, str]]:
    """[(as written, canonical)] for each figure: '30.70 %' -> '30.7%', '64k-token' -> '64k',
    '1,000' -> '1000', '.5%' -> '0.5%', '307‰' -> '30.7%'. Years and plain integers count
    too: the source must state them."""
    out = []
    for m in _figure_matches(text):
        integer, fraction, point, pct, mag = m.groups()
        unit = "%" if pct else (mag.lower() if mag else "")
        if unit == "bn":
            unit = "b"
        number = _canonical_number(integer, fraction) if integer else _canonical_number("0", point)
        if pct in _PER:
            number = _canonical_number(*_shifted(number, _PER[pct]))
        written, canonical = m.group(0).strip(), number + unit
        start = m.start()
        if start and text[start - 1] in _SIGNS and (start == 1 or text[start - 2] in _BEFORE_SIGN):
            written, canonical = text[start - 1] + written, "-" + canonical
        out.append((written, canonical))
    return out


_SIGNS = "-\u2212"  # hyphen-minus and the minus sign
_BEFORE_SIGN = frozenset(" \t\n\r\xa0([{\"'“‘")  # where a hyphen is a sign, not a joining hyphen or a range


_RANGE = re.compile(r"\bfrom\s+(\S+)\s+to\s+(\S+)", re.IGNORECASE)


def ranges(text: str) -> list[tuple[str, str, str]]:
    """[(as written, from, to)] for each "from X to Y" whose ends are figures, canonical."""
    out = []
    if "from" not in text.lower():  # no character but f, r, o and m lowers to them
        return out
    for m in _RANGE.finditer(text):
        low, high = figures(m.group(1)), figures(m.group(2))
        if len(low) == 1 and len(high) == 1:
            out.append((f"from {low[0][0]} to {high[0][0]}", low[0][1], high[0][1]))
    return out
