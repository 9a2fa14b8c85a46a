"""Which names a long text states, looked up in time that grows with the name.

The publish checks (``claims_support``) look up each distinctive name of a unit in the texts
its cites offer; ``NameIndex`` answers as ``stories.text.name_stated`` does, without
searching a long text once a name. Nothing here touches the database.
"""

from __future__ import annotations

from stories.text import name_key, name_stated

MAX_NAME_RUN = 8  # a name of more words is found from where its runs of this many words stand


class NameIndex:
    """Which names a text states (as ``name_stated`` reads ``' ' + key + ' '``), each looked
    up in time that grows with the name, not with the text: the runs of ``k`` words of the
    text (``key``, ``name_key`` words; " | " keeps texts apart), one set for each ``k`` a
    name asks for, made once. A long text is read at most ``MAX_NAME_RUN`` times however
    many names are looked up in it, where a search of the text for each name made a story of
    many names and long claims take names × claims; a text of up to ``SEARCHED`` characters
    is searched."""

    SEARCHED = 4096  # a shorter text is searched for each name: as fast, and nothing to make

    def __init__(self, key: str):
        self._padded = f" {key} " if len(key) <= self.SEARCHED else None
        self._words = key.split() if self._padded is None else []
        self._runs: dict[int, set[str]] = {}
        self._starts: dict[str, list[int]] | None = None

    def _of(self, k: int) -> set[str]:
        runs = self._runs.get(k)
        if runs is None:
            words = self._words
            runs = self._runs[k] = {" ".join(words[i : i + k]) for i in range(len(words) - k + 1)}
        return runs

    def _has(self, key: str) -> bool:
        words = key.split(" ")
        if "" in words:
            return False  # not a run of words (as " key " is never in a text of single spaces)
        if len(words) <= MAX_NAME_RUN:
            return key in self._of(len(words))
        # A longer name: where each of its runs of MAX_NAME_RUN words stands, the rarest run
        # anchors it, and the text's words there are compared with the name's.
        chunks = [(o, " ".join(words[o : o + MAX_NAME_RUN])) for o in range(0, len(words) - MAX_NAME_RUN + 1, 4)]
        chunks.append((len(words) - MAX_NAME_RUN, " ".join(words[-MAX_NAME_RUN:])))
        where = self._where()
        offset, anchor = min(chunks, key=lambda c: len(where.get(c[1], ())))
        text, k = self._words, len(words)
        return any(text[p - offset : p - offset + k] == words for p in where.get(anchor, ()) if p >= offset)

    def _where(self) -> dict[str, list[int]]:
        """Where each run of ``MAX_NAME_RUN`` words of the text starts, made once."""
        if self._starts is None:
            words, self._starts = self._words, {}
            for i in range(len(words) - MAX_NAME_RUN + 1):
                self._starts.setdefault(" ".join(words[i : i + MAX_NAME_RUN]), []).append(i)
        return self._starts

    def states(self, name: str) -> bool:
        if self._padded is not None:
            return name_stated(name, self._padded)
        key = name_key(name)
        if not key:
            return True
        # plural or possessive forms: "LLMs" / "LLM", "Technologies'"
        return self._has(key) or (key.endswith("s") and self._has(key[:-1]))
