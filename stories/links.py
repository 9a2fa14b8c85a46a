"""Links in a story's Markdown as readers read them: each link's text (and title) where the
page shows a link, its syntax as written where the page may show it so (code, escaped
brackets, a target that makes no link), and no link reference definition, which the page
does not show. What ``stories.readable.plain`` reads of links.

Pure functions of strings; each reads the text once (the text is untrusted).
"""

from __future__ import annotations

import re

# What follows a link's "](" for CommonMark to read a link, up to its ")": a destination, in
# angle brackets or bare (no space, parentheses only balanced, here one deep), then an
# optional title in quotes or parentheses, with at most one line break between the parts.
# With anything else ("[text](see 99% of cases)") there is no link: readers read the
# brackets, the parentheses and all between them as written, and so do the checks. A title
# is shown when the pointer rests on the link, so it is read after the link's text. Every
# repetition is possessive (it gives nothing back), and a bare destination stops at its
# second "(", so a match runs past at most two of the "(" that start the next ones: linear.
_TARGET = re.compile(
    r"[ \t]*+\n?+[ \t]*+"
    r"(?:<(?:[^<>\n\\]|\\.)*+>|(?:[^\s<()\\]|\\\S|\((?:[^\s()\\]|\\\S)*+\))*+)"
    r"""(?:(?:[ \t]++\n?+|\n)[ \t]*+(?:"((?:[^"\\]|\\.)*+)"|'((?:[^'\\]|\\.)*+)'|\(((?:[^()\\]|\\.)*+)\)))?+"""
    r"[ \t]*+\n?+[ \t]*+\)"
)


# A link reference definition on one line, "[label]: destination "title"", which the page
# does not show (it names a link's target). Only one that CommonMark reads as a definition:
# a label with a character other than a space and no bracket that is not escaped, a bare
# destination with no parentheses or one in angle brackets, an optional title, then the
# line's end. Anything else (a definition over several lines, a title with an escaped
# quote) is read as written: more text than readers see, never less. Each part is a class
# the next does not share, and no part runs past the line: linear.
_DEFINITION = re.compile(
    r"^ {0,3}\[([ \t]*(?:[^\s\[\]\\]|\\.)(?:[^\n\[\]\\]|\\.)*)\]:[ \t]*"
    r"(?:<[^<>\n]*>|(?:[^\s<()\\]|\\\S)(?:[^\s()\\]|\\\S)*)"
    r"""(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*(?:\n|\Z)""",
    re.MULTILINE,
)
_FENCES = ("```", "~~~")
MAX_LABEL = 999  # CommonMark: a longer label makes no definition


def undefine(markdown: str) -> str:
    """The text without its link reference definitions, which readers do not see: each
    ``_DEFINITION`` where a block starts (at the start, after a blank line or right after
    another definition; a definition cannot interrupt a paragraph). A text with a code fence
    keeps them all, since a fence may show one as code. Each line is looked at once."""
    if "]:" not in markdown or any(fence in markdown for fence in _FENCES):
        return markdown
    out, copied = [], 0
    for m in _DEFINITION.finditer(markdown):
        start = m.start()
        if len(m[1]) > MAX_LABEL:
            continue
        if start != copied and not markdown[markdown.rfind("\n", 0, start - 1) + 1 : start].isspace():
            continue  # inside a paragraph: shown as written
        out.append(markdown[copied:start])
        copied = m.end()
    if not out:
        return markdown
    out.append(markdown[copied:])
    return "".join(out)


def _escaped(text: str, at: int) -> bool:
    """Whether the character at ``at`` follows an odd run of backslashes (is escaped)."""
    start = at
    while start and text[start - 1] == "\\":
        start -= 1
    return (at - start) % 2 == 1


# Where a page may show Markdown as written, as code, from where it stands to the block's
# end: a fence, or an indented code block (four spaces or a tab, which may follow a list's or
# a quote's marks). A code span shows only what stands between two backticks.
_CODE = ("```", "~~~", "    ", "\t")


def unlink(markdown: str, references: bool = False) -> str:
    r"""Each link, ``[text](target "title")``, replaced by its text (and its title, which
    readers see when they point at it), and each image, ``![text](target)``, by nothing:
    the page shows no image (the sanitiser drops it), so no reader reads its text. Brackets
    and parentheses that make no link stay as written: an escaped bracket, a target that
    ``_TARGET`` does not read as one. Of brackets inside brackets, the innermost make the
    link ("[n[ot](url)" shows "[not"). A link that may be shown as written (in code, or
    after a label's "]") is read both ways (``_both_ways``).

    What ``re.sub(r"!?\[([^\]]*)\]\(([^)]*)\)", ...)`` does, in one pass: that regex
    retries from every ``[`` and rescans the rest of the text each time, so a paragraph of
    ``[`` took quadratic time. Here the text is read once: when no ``]`` (or ``)``) follows,
    no later link can end either, every ``[`` before a ``]`` that is not followed by a link's
    target fails on that same ``]`` (the innermost ``[`` is found by looking back to the
    first), a target is read as ``_TARGET`` says, and the next blank line is found once for
    every link before it. A run of backslashes is counted once, for the bracket it escapes.
    """
    if "](" not in markdown:
        return markdown
    find = markdown.find
    links, copied, pos, paren, blank = [], 0, 0, -1, -1  # links: (start, end, what readers read, either way)
    code = any(mark in markdown for mark in _CODE)
    ticks = (find("`"), markdown.rfind("`"))  # a link between the first and the last may be in a code span
    definitions = references or "]:" in markdown  # labels that make links (their definitions may be gone)
    while (opening := find("[", pos)) >= 0:
        closing = find("]", opening + 1)
        if closing < 0:
            break
        first, opening = opening, markdown.rfind("[", opening, closing)
        while opening > first and _escaped(markdown, opening):
            opening = markdown.rfind("[", first, opening)
        pos = closing + 1
        if not markdown.startswith("(", closing + 1):
            continue
        if paren <= closing + 1:
            paren = find(")", closing + 2)
            if paren < 0:
                break
        if blank < opening:
            found = _BLANK.search(markdown, opening)
            blank = found.start() if found else len(markdown)
        target = _TARGET.match(markdown, closing + 2)
        if target is None:
            continue  # no link: read as written
        if blank < target.end():
            continue  # a blank line ends the paragraph, and with it any link
        if _escaped(markdown, opening) or _escaped(markdown, closing):
            continue  # "\[text](url)" is shown as written
        image = opening > copied and markdown[opening - 1] == "!" and not _escaped(markdown, opening - 1)
        start = opening - 1 if image else opening
        title = target[1] or target[2] or target[3]
        shown = "" if image else markdown[opening + 1 : closing] + (f" {title}" if title else "")
        # "[text][label](url)" may be a link by reference, then "(url)" as written
        either = (
            code
            or ticks[0] < start < target.end() <= ticks[1]
            or (definitions and start and markdown[start - 1] == "]")
        )
        links.append((start, target.end(), shown, either))
        copied = pos = target.end()
    if not links:
        return markdown
    if any(link[3] for link in links):
        return _both_ways(markdown, links)
    out, copied = [], 0
    for start, end, shown, _ in links:
        out += (markdown[copied:start], shown)
        copied = end
    out.append(markdown[copied:])
    return "".join(out)


_SPACE = re.compile(r"\s")
_BLANK = re.compile(r"\n[ \t]*\n")


def _both_ways(markdown: str, links: list[tuple[int, int, str, bool]]) -> str:
    """The text with each run of non-space characters that holds a link that may be shown as
    written (its last item) read both ways: with its links read ("not"), then as written
    ("[n](url)ot"), so that each reading keeps the letters it glues. Other links are read.
    A run is looked back over only to the end of the run before it, and forward from past
    its last link: linear."""
    out, copied, i = [], 0, 0
    while i < len(links):
        begin, stop, shown, either = links[i]
        if not either:
            out += (markdown[copied:begin], shown)
            copied, i = stop, i + 1
            continue
        while begin > copied and not markdown[begin - 1].isspace():
            begin -= 1
        space = _SPACE.search(markdown, stop)
        end = space.start() if space else len(markdown)
        first = i
        while i + 1 < len(links) and links[i + 1][0] < end:
            i += 1
            if links[i][1] > end:
                space = _SPACE.search(markdown, links[i][1])
                end = space.start() if space else len(markdown)
        read, at = [], begin
        for start, stop, shown, _ in links[first : i + 1]:
            read += (markdown[at:start], shown)
            at = stop
        out += (markdown[copied:begin], *read, markdown[at:end], " ", markdown[begin:end])
        copied, i = end, i + 1
    out.append(markdown[copied:])
    return "".join(out)
