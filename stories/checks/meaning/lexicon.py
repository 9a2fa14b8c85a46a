"""The opposed-terms lexicon (``lexicon.json``), loaded once: data, not code, so that an
editor can read and extend what the deterministic judge treats as opposites."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

LEXICON_FILE = Path(__file__).with_name("lexicon.json")


class Lexicon:
    def __init__(self, data: dict):
        self.negation = frozenset(data["negation"])
        self.negation_before_to = frozenset(data["negation_before_to"])
        self.not_negation_after_not = frozenset(data["not_negation_after_not"])
        self.number_words = dict(data["number_words"])
        self.than_comparators = frozenset(data["than_comparators"])
        self.clause_conjunctions = frozenset(data["clause_conjunctions"])
        # word -> [(group index, side)]; a word may sit in several groups
        self.terms: dict[str, list[tuple[int, int]]] = {}
        self.kinds: list[str] = []
        for index, group in enumerate(data["groups"]):
            self.kinds.append(group["kind"])
            for side, forms in enumerate(group["sides"]):
                for form in forms:
                    self.terms.setdefault(form, []).append((index, side))


@cache
def lexicon() -> Lexicon:
    return Lexicon(json.loads(LEXICON_FILE.read_text(encoding="utf-8")))
