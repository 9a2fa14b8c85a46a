"""``names`` reads a text in one pass (a run of ordinary words skipped whole, or one token):
the names it finds are those of reading the runs first, then each gap token by token."""

from itertools import chain

from hypothesis import example, given, settings
from hypothesis import strategies as st

from stories import text
from stories.text import CALENDAR, STOPWORDS, names, sentences


def names_gap_by_gap(source: str) -> list[str]:
    """``names`` as it was first written: the runs of ordinary words found first, the text
    between them tokenised gap by gap."""
    found: list[str] = []

    def close_run(run: list[str], run_starts_sentence: bool) -> None:
        if len(run) >= 2 or (len(run) == 1 and not run_starts_sentence):
            found.append(" ".join(run))

    for sentence in sentences(source):
        run: list[str] = []
        run_starts_sentence, start = False, 0
        for ordinary in chain(text._ORDINARY_WORDS.finditer(sentence), (None,)):
            end = len(sentence) if ordinary is None else ordinary.start()
            for m in text._TOKEN.finditer(sentence, start, end) if start < end else ():
                token = m[0]
                if token.isalpha() and (token.islower() or (token.istitle() and len(token) > 1)):
                    if token.islower() or token.lower() in STOPWORDS or token.lower() in CALENDAR:
                        if run:
                            close_run(run, run_starts_sentence)
                            run = []
                    else:
                        if not run:
                            run_starts_sentence = text._opens_clause(sentence, m.start())
                        run.append(token)
                elif text._distinctive_token(token):
                    close_run(run, run_starts_sentence)
                    run = []
                    found.append(token)
                else:
                    close_run(run, run_starts_sentence)
                    run = []
            if ordinary is not None:
                if run:
                    close_run(run, run_starts_sentence)
                    run = []
                start = ordinary.end()
        close_run(run, run_starts_sentence)
    return list(dict.fromkeys(found))


WORDS = st.sampled_from(
    ["the", "model", "Invisible", "Technologies", "Monday", "The", "GSM8K", "Qwen3-8B", "LOCA-bench", "a",
     "MMLU", "CoSIR", "x", "I", "it's", "64k", "30.7%", "2026", "-", "--", "state-of-the-art", "Muon", "And"]
)  # fmt: skip
PIECES = st.one_of(
    WORDS, st.sampled_from([" ", "  ", ". ", ", ", ": ", "; ", "—", '"', "“", "(", ")", "\n", "? ", "-"])
)


@settings(max_examples=600, deadline=None)
@given(st.one_of(st.lists(PIECES, max_size=30).map("".join), st.text(max_size=60)))
@example('He said: "Results matter." Then the Muon optimizer won.')
@example("Scores known ewards nears invokes 70.3% shifts full matters, Invisible Technologies-x said.")
@example(" -Card a-b -- GPT-4o, “Gemini” (Claude) and-then Z")
def test_names_read_in_one_pass_equal_those_read_gap_by_gap(source):
    assert names(source) == names_gap_by_gap(source)
