"""A check run reads each cited text once, however long it is and however many paragraphs
cite it: the work of ``claims_support`` grows with the story's text plus the distinct claims'
text, not with their product. Work is counted (texts read), never timed."""

import random
from collections import Counter

import pytest

from stories.checks import claims_support
from stories.checks.meaning import judge, names
from stories.name_index import NameIndex
from stories.text import name_stated
from tests.syndication.helpers import client_for

LONG = ("Acme reported revenue of 12 million. " * 3000)[:100_000]
SHORT = "Acme reported revenue of 12 million."
PARAGRAPHS = 400


def _manifest(api, claims: dict[str, str]) -> None:
    doc = {
        "schema": "hangingcontext.manifests/1",
        "manifests": [
            {
                "manifest_id": "m1",
                "title": "T",
                "source_name": "S",
                "source_url": "https://s.example/",
                "published_date": "2026-10-15",
                "claims": [{"claim_id": cid, "text": text, "self_reported": False} for cid, text in claims.items()],
            }
        ],
    }
    assert api.post("/api/v1/manifests/", doc, format="json").status_code == 201


@pytest.fixture
def long_claim(manifests_loaded, writer_key):
    """Claim c1 of 100,000 characters, and a short claim c2, stored through the API."""
    _manifest(client_for(writer_key[1]), {"c1": LONG, "c2": SHORT})


def _story(story_doc, texts: list[str], cites: list[list[str]]) -> dict:
    doc = story_doc(id=None, slug="probe", key_facts=[])
    paragraphs = [
        {"markdown": texts[i % len(texts)], "cites": [{"manifest_id": "m1", "claim_ids": cites[i % len(cites)]}]}
        for i in range(PARAGRAPHS)
    ]
    doc["sections"] = [{"heading": "h", "paragraphs": paragraphs}]
    return doc


def _check(key, doc) -> dict:
    response = client_for(key[1]).post("/api/v1/checks/", doc, format="json")
    assert response.status_code == 200, response.content[:500]
    return next(c for c in response.json()["criteria"] if c["name"] == "claims_support")


@pytest.fixture
def reads(monkeypatch):
    """How many times each long text is read: as a whole (``Reading``), by the support judge
    (``_read_claim``) and for its numbers in words (``word_figures``)."""
    counted = {"reading": Counter(), "judge": Counter(), "words": Counter()}

    class CountedReading(claims_support.Reading):
        __slots__ = ()

        def __init__(self, text):
            counted["reading"][len(text)] += 1
            super().__init__(text)

    real_claim, real_words = judge._read_claim, claims_support.word_figures
    monkeypatch.setattr(claims_support, "Reading", CountedReading)
    monkeypatch.setattr(judge, "_read_claim", lambda text: counted["judge"].update([len(text)]) or real_claim(text))
    monkeypatch.setattr(
        claims_support, "word_figures", lambda text: counted["words"].update([len(text)]) or real_words(text)
    )
    return counted


def test_a_long_claim_cited_by_every_paragraph_is_read_once(long_claim, story_doc, writer_key, reads):
    _check(writer_key, _story(story_doc, ["Revenue rose."], [["c1"]]))
    assert reads["reading"][len(LONG)] == 1
    assert reads["judge"][len(LONG)] <= 1


def test_paragraphs_citing_different_sets_of_claims_read_the_long_one_once(long_claim, story_doc, writer_key, reads):
    """Paragraphs alternate between citing the long claim alone and with another: the
    judge, the wording test and the figures read it once in the run, not once a paragraph."""
    _check(writer_key, _story(story_doc, ["Revenue rose 13%."], [["c1"], ["c1", "c2"]]))
    assert reads["reading"][len(LONG)] == 1
    assert reads["judge"][len(LONG)] == 1
    assert reads["words"][len(LONG)] == 1  # 13% is not in its digits: its words are read, once


def test_a_swapped_opening_reads_the_long_claims_sentences_once(long_claim, story_doc, writer_key, monkeypatch):
    """Each sentence opens with a word no claim states, so each is compared with the claim's
    sentences: the claim's sentence openings are read once in the run."""
    opened, real = Counter(), names._opening
    monkeypatch.setattr(names, "_opening", lambda text: opened.update([text]) or real(text))
    _check(writer_key, _story(story_doc, ["Zebra revenue rose."], [["c1"]]))
    claim_sentence = "Acme reported revenue of 12 million."
    assert opened[claim_sentence] <= names.MAX_CLAIM_SENTENCES + 1  # once each, not once a paragraph
    assert sum(opened.values()) <= PARAGRAPHS + names.MAX_CLAIM_SENTENCES + 1


def test_the_judge_reads_a_long_claim_only_as_far_as_it_weighs(monkeypatch):
    """The judge weighs at most ``MAX_CLAIM_CLAUSES`` clauses of the cited claims: the rest of
    a claim of thousands of sentences is not read."""
    read, real = Counter(), judge.clauses
    monkeypatch.setattr(judge, "clauses", lambda text: read.update([text]) or real(text))
    judge._cached_claim_clauses.cache_clear()
    one = judge.DeterministicJudge()
    assert one.judge("Revenue rose.", [LONG]).label in judge.VERDICTS
    assert read["Acme reported revenue of 12 million."] <= judge.MAX_CLAIM_CLAUSES
    assert sum(read.values()) <= judge.MAX_CLAIM_CLAUSES + 1


def test_the_judge_reads_each_claim_once_a_run_whatever_order_the_units_cite_it(monkeypatch):
    reads, real = Counter(), judge._read_claim
    monkeypatch.setattr(judge, "_read_claim", lambda text: reads.update([text]) or real(text))
    one = judge.DeterministicJudge()
    for _ in range(50):
        one.judge("Revenue rose.", [LONG])
        one.judge("Revenue rose.", [LONG, SHORT])
    assert reads[LONG] == 1


@pytest.fixture
def runs_made(monkeypatch):
    """How many times each long text's runs of k words are made (``NameIndex``), by k."""
    made = Counter()
    real = NameIndex._of

    def counted(self, k):
        if len(self._words) > 5_000 and k not in self._runs:
            made[k] += 1
        return real(self, k)

    monkeypatch.setattr(NameIndex, "_of", counted)
    return made


def test_a_name_is_looked_up_in_a_long_claim_without_reading_it_again(long_claim, story_doc, writer_key, runs_made):
    """Paragraphs with different cites each name the same company: the long claim's runs
    of words are made once in the run, and each lookup reads only them."""
    support = _check(writer_key, _story(story_doc, ["Revenue at Zebra Labs rose."], [["c1"], ["c1", "c2"]]))
    assert set(runs_made.values()) == {1}
    assert any(f.get("name") == "Zebra Labs" for f in support["findings"])


def test_many_names_against_a_long_claim_read_it_once_for_each_length_of_name(
    long_claim, story_doc, writer_key, runs_made
):
    """Twelve hundred distinct names in paragraphs citing the long claim: a search of the
    claim for each name made this names × claim; its runs of words are made once for each
    length of name. What is stated is still found: "Acme" is in the claim."""
    texts = [f"Acme and Zq{i}x and Kb{i}y and Rx{i}w rose." for i in range(PARAGRAPHS)]
    support = _check(writer_key, _story(story_doc, texts, [["c1"], ["c1", "c2"]]))
    assert runs_made == {1: 1}
    named = {f.get("name") for f in support["findings"] if f.get("kind") == "name"}
    assert "Acme" not in named and any(n and n.startswith("Zq") for n in named)


def test_the_index_of_a_text_states_what_a_search_of_it_does():
    rng = random.Random(5)
    vocabulary = ["acme", "labs", "zebra", "llm", "llms", "loca", "bench", "technologies", "s", "x1"]
    for _ in range(300):
        text = " | ".join(" ".join(rng.choice(vocabulary) for _ in range(rng.randint(0, 400))) for _ in range(3))
        index = NameIndex(text)
        assert index._padded is None or len(text) <= NameIndex.SEARCHED
        for _ in range(20):
            words = text.split()
            if words and rng.random() < 0.5:  # a run of the text itself, up to twelve words
                start = rng.randrange(len(words))
                name = " ".join(words[start : start + rng.randint(1, 12)]).upper()
            else:
                name = " ".join(rng.choice(vocabulary).upper() for _ in range(rng.randint(1, 12)))
            if rng.random() < 0.3:
                name += "s"
            if len(text) > NameIndex.SEARCHED:
                assert index.states(name) == name_stated(name, f" {text} "), (name, text[:80])
    long_name = " ".join(f"w{i}" for i in range(12))
    assert NameIndex(("x " * 3000) + long_name).states(long_name)
    assert not NameIndex(("x " * 3000) + long_name.replace("w5", "q5")).states(long_name)
    # every run of eight of its words is in the text, but never all twelve together
    apart = " ".join(f"w{i}" for i in range(8)) + " | " + " ".join(f"w{i}" for i in range(4, 12))
    assert not NameIndex(("x " * 3000) + apart).states(long_name)
    assert NameIndex(("x " * 3000) + apart + " " + long_name + "s").states(long_name + "s")


def test_a_long_claim_with_invisible_characters_is_cleaned_once_a_run(
    manifests_loaded, writer_key, story_doc, monkeypatch
):
    """A claim whose text has characters readers do not see is read as readers see it: that
    cleaning, too, is done once a run, not once for each paragraph citing it."""
    hidden = ("Acme re\u200dported revenue of 12 million. " * 3000)[:100_000]
    _manifest(client_for(writer_key[1]), {"c1": hidden, "c2": SHORT})
    cleaned, real = Counter(), claims_support.visible
    monkeypatch.setattr(claims_support, "visible", lambda text: cleaned.update([len(text)]) or real(text))
    support = _check(writer_key, _story(story_doc, ["Revenue rose."], [["c1"], ["c1", "c2"]]))
    assert cleaned[len(hidden)] == 1
    assert support["score"] > 0  # the cleaned claim still backs the paragraphs
