"""Comparing versions of a story is bounded: difflib, whose work grows with the product of the
two sides' lengths (and more, as it scans again between its matches), weighs at most a
million token pairs for one comparison, however long the texts; past that, the common beginning and end still match and the middle shows as one
replaced block. Ordinary diffs are difflib's own. Work is counted, never timed."""

import difflib
import random

import pytest

from stories import desk
from stories.history import diff_lines, prose_diff, word_diff

WORK = 1_000_000  # token pairs difflib may weigh for one comparison of versions


@pytest.fixture
def weighed(monkeypatch):
    """The token pairs difflib's scans weigh: each ``find_longest_match`` looks at up to
    (ahi - alo) × (bhi - blo) of them, and difflib calls it again between the matches it finds."""
    pairs: list[int] = []
    scan = difflib.SequenceMatcher.find_longest_match

    def counting(self, alo=0, ahi=None, blo=0, bhi=None):
        ahi = len(self.a) if ahi is None else ahi
        bhi = len(self.b) if bhi is None else bhi
        pairs.append((ahi - alo) * (bhi - blo))
        assert sum(pairs) <= WORK, f"difflib weighed {sum(pairs)} token pairs"
        return scan(self, alo, ahi, blo, bhi)

    monkeypatch.setattr(difflib.SequenceMatcher, "find_longest_match", counting)
    return pairs


def _sides(ops: list[dict]) -> tuple[str, str]:
    old = " ".join(o["text"] for o in ops if o["op"] in ("eq", "del"))
    new = " ".join(o["text"] for o in ops if o["op"] in ("eq", "ins"))
    return old, new


def _difflib_word_diff(old: str, new: str) -> list[dict]:
    a, b = old.split(), new.split()
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b).get_opcodes():
        if op == "equal":
            out.append({"op": "eq", "text": " ".join(a[i1:i2])})
            continue
        if i2 > i1:
            out.append({"op": "del", "text": " ".join(a[i1:i2])})
        if j2 > j1:
            out.append({"op": "ins", "text": " ".join(b[j1:j2])})
    return out


@pytest.mark.parametrize("words", [4_000, 100_000])
def test_a_long_paragraph_of_repeated_words_is_compared_within_the_bound(words, weighed):
    old = " ".join(["a"] * words)
    new = "b " + " ".join(["a"] * (words - 1)) + " c"
    ops = word_diff(old, new)
    assert sum(weighed) <= WORK
    assert _sides(ops) == (old, new)


def test_an_edit_inside_a_long_paragraph_still_shows_what_stayed(weighed):
    old = " ".join(["a"] * 50_000 + ["x"] + ["a"] * 50_000)
    new = " ".join(["a"] * 50_000 + ["y"] + ["a"] * 50_000)
    ops = word_diff(old, new)
    assert sum(weighed) <= WORK
    assert [o["op"] for o in ops] == ["eq", "del", "ins", "eq"]
    assert (ops[1]["text"], ops[2]["text"]) == ("x", "y")


def test_repeated_words_within_the_bound_are_compared_in_bounded_work(weighed):
    """A thousand by a thousand words of two repeated values: within the bound of pairs, and
    difflib does not weigh each repeat against every other (which took seconds and made a
    diff of a thousand pieces): the repeats are junk, and the diff is a handful of pieces."""
    old, new = " ".join(["x", "y"] * 500), " ".join(["x", "z"] * 500)
    ops = word_diff(old, new)
    assert sum(weighed) <= WORK
    assert _sides(ops) == (old, new)
    assert len(ops) <= 3


def test_ordinary_paragraphs_are_diffed_as_difflib_diffs_them(weighed):
    rng = random.Random(7)
    vocabulary = ["the", "of", "revenue", "rose", "fell", "Acme", "said", "in", "a", "12", "million", "percent"]
    for _ in range(300):
        old = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(0, 300)))
        words = old.split()
        for _ in range(rng.randint(0, 5)):
            words.insert(rng.randint(0, len(words)), rng.choice(vocabulary))
        new = " ".join(words)
        assert word_diff(old, new) == _difflib_word_diff(old, new)
        weighed.clear()  # each comparison has its own bound
    # but a paragraph of 4,000 repeated words is not given to difflib whole
    word_diff(" ".join(["a"] * 4_000), "b " + " ".join(["a"] * 3_999) + " c")
    assert sum(weighed) <= WORK


def _story(paragraphs: list[str]) -> dict:
    return {
        "headline": "H",
        "dek": "D",
        "sections": [{"heading": "S", "paragraphs": [{"markdown": p} for p in paragraphs]}],
    }


def test_many_one_letter_paragraphs_are_compared_within_the_bound(weighed):
    old = _story(["a"] * 20_000)
    new = _story(["b"] + ["a"] * 19_999 + ["c"])
    changes = prose_diff(old, new)
    assert sum(weighed) <= WORK
    assert len(changes) <= 20_001 + 2
    assert {c["kind"] for c in changes} <= {"changed", "added", "removed"}


def test_every_paragraph_changed_shares_one_bound(weighed):
    """Fifty long paragraphs, each changed: the comparison as a whole weighs at most the
    bound, not the bound once a paragraph."""
    old = _story([" ".join(["a"] * 900)] * 50)
    new = _story(["b " + " ".join(["a"] * 899)] * 50)
    changes = prose_diff(old, new)
    assert sum(weighed) <= WORK
    assert len(changes) == 50
    assert all(_sides(c["words"]) == (c["old"], c["new"]) for c in changes)


def _applied(lines: list[dict], old: list[str], new: list[str]) -> None:
    """Each hunk of the diff, read back: its context and removed lines are ``old``'s at its
    range, its context and added lines ``new``'s; and the lines between hunks are the same
    on both sides."""
    hunks = []
    for line in lines:
        if line["kind"] == "hunk":
            hunks.append([line["text"], []])
        elif line["kind"] != "file":
            hunks[-1][1].append(line)
    old_at = new_at = 0
    for header, body in hunks:
        old_range, new_range = header.split()[1:3]

        def start(r: str) -> tuple[int, int]:
            first, _, length = r[1:].partition(",")
            n = int(length) if length else 1
            return (int(first) - 1 if n else int(first)), n

        (o, on), (n, nn) = start(old_range), start(new_range)
        assert old[old_at:o] == new[new_at:n]  # unchanged between hunks
        assert [x["text"][1:] for x in body if x["kind"] in ("ctx", "del")] == old[o : o + on]
        assert [x["text"][1:] for x in body if x["kind"] in ("ctx", "add")] == new[n : n + nn]
        old_at, new_at = o + on, n + nn
    assert old[old_at:] == new[new_at:]


def test_revisions_of_ordinary_stories_are_diffed_as_unified_diff_diffs_them(weighed):
    """Documents under difflib's 200 lines (where it junks no line) give ``unified_diff``'s
    own lines, two of context."""
    rng = random.Random(11)
    vocabulary = ["Revenue rose.", "Revenue fell.", "Acme said so.", "It was 12%.", "The end."]
    for _ in range(200):
        old = _story([rng.choice(vocabulary) for _ in range(rng.randint(0, 25))])
        paragraphs = [p["markdown"] for p in old["sections"][0]["paragraphs"]]
        for _ in range(rng.randint(0, 4)):
            paragraphs.insert(rng.randint(0, len(paragraphs)), rng.choice(vocabulary))
        if paragraphs and rng.random() < 0.5:
            del paragraphs[rng.randrange(len(paragraphs))]
        new = _story(paragraphs)
        a, b = desk.dumps(old).splitlines(), desk.dumps(new).splitlines()
        assert len(a) < 200 and len(b) < 200
        expected = list(difflib.unified_diff(a, b, fromfile="version 1", tofile="version 2", lineterm="", n=2))
        got = diff_lines(old, new, old_label="version 1", new_label="version 2")
        assert [x["text"] for x in got] == expected
        weighed.clear()


def test_two_long_revisions_are_compared_within_the_bound(weighed):
    """Twenty thousand paragraphs a version, of twenty words that repeat: the JSON diff
    weighs at most the bound and is still a diff that reads back to both versions."""
    words = [f"w{i}" for i in range(20)]
    rng = random.Random(3)
    old = _story([rng.choice(words) for _ in range(20_000)])
    new = _story([rng.choice(words) for _ in range(20_000)])
    lines = diff_lines(old, new, old_label="version 1", new_label="version 2")
    assert sum(weighed) <= WORK
    _applied(lines, desk.dumps(old).splitlines(), desk.dumps(new).splitlines())
    # an edit in the middle of a long story shows as that edit, with its context
    middle = _story([p["markdown"] for p in old["sections"][0]["paragraphs"]])
    middle["sections"][0]["paragraphs"][10_000]["markdown"] = "changed"
    weighed.clear()
    lines = diff_lines(old, middle, old_label="version 1", new_label="version 2")
    assert sum(weighed) <= WORK
    assert [x["text"] for x in lines if x["kind"] == "add"] == ['+          "markdown": "changed"']
    _applied(lines, desk.dumps(old).splitlines(), desk.dumps(middle).splitlines())


def test_a_long_paragraph_against_a_short_one_of_its_words_is_compared_within_the_bound(weighed):
    """5,000 words against 199: their product is inside the bound, but difflib, scanning
    again between each match it finds, would weigh a hundred million pairs."""
    old = " ".join("x" if i % 2 == 0 else "z" for i in range(5000))
    new = " ".join(["x"] * 199)
    ops = word_diff(old, new)
    assert _sides(ops) == (old, new)
    assert sum(weighed) <= WORK
