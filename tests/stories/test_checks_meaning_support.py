"""claims_support reads meaning on a real story: planted faults in the demo story's text are
error findings that keep the rubric's shape (path, message, sentence, kind, claim, terms);
analysis never tips a backed paragraph; hostile text costs bounded work."""

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stories.checks.meaning.clauses import MAX_TOKENS, _clauses
from stories.checks.meaning.judge import DeterministicJudge
from stories.checks.meaning.numbers import _word_figures
from tests.stories.helpers import criterion, errors, failing, para, rubric_of
from tests.stories.meaning_corpus import errors_of, support_findings

pytestmark = pytest.mark.django_db

GSM8K_CLAIM = "GSM8K, MMLU, and IFEval performance stayed largely preserved after CoSIR training."


def replace(doc, section, paragraph, old, new):
    p = para(doc, section, paragraph)
    assert old in p["markdown"]
    p["markdown"] = p["markdown"].replace(old, new)


def test_seed_still_passes_with_only_analysis_findings(manifests_loaded, seed_doc):
    rubric = rubric_of(seed_doc)
    assert rubric["passed"] is True and rubric["score"] == 1.0
    findings = criterion(rubric, "claims_support")["findings"]
    assert {f["severity"] for f in findings} == {"info"}
    assert not any("kind" in f for f in findings)


def test_flipped_outcome_in_a_paragraph_is_an_error_beside_it(manifests_loaded, seed_doc):
    replace(seed_doc, 3, 1, "stayed largely preserved", "dropped sharply")
    rubric = rubric_of(seed_doc)
    assert failing(rubric) == ["claims_support"]
    [f] = errors(rubric, "claims_support")
    assert list(f)[:3] == ["severity", "path", "message"]
    assert f["path"] == "sections[3].paragraphs[1]"
    assert f["kind"] == "outcome"
    assert f["message"] == "contradicts its claim (outcome): dropped vs preserved"
    assert f["claim"] == GSM8K_CLAIM
    assert f["terms"] == ["dropped", "preserved"]
    assert "dropped sharply" in f["sentence"]
    json.dumps(rubric)  # the public checks.json and the API serialise it as is


def test_negated_key_fact_is_an_error_at_its_path(manifests_loaded, seed_doc):
    fact = seed_doc["key_facts"][2]
    fact["text"] = fact["text"].replace(
        "showed higher success than baselines", "did not show higher success than baselines"
    )
    [f] = errors(rubric_of(seed_doc), "claims_support")
    assert f["path"] == "key_facts[2]" and f["kind"] == "negation"


def test_swapped_contrast_in_the_seed_is_a_roles_error(manifests_loaded, seed_doc):
    replace(
        seed_doc, 0, 1, "the scarce input is domain experts, not GPUs", "the scarce input is GPUs, not domain experts"
    )
    [f] = errors(rubric_of(seed_doc), "claims_support")
    assert f["kind"] == "roles" and "swap places" in f["message"]


def test_number_word_changed_in_the_seed_is_an_error(manifests_loaded, seed_doc):
    replace(seed_doc, 3, 1, "seven unseen collaboration tasks", "nine unseen collaboration tasks")
    [f] = errors(rubric_of(seed_doc), "claims_support")
    assert f["kind"] == "number" and f["figure"] == "nine" and f["canonical"] == "9"
    assert f["message"] == "nine (9) is not stated by any cited claim"


def test_number_words_match_digits_either_way(manifests_loaded, seed_doc):
    replace(
        seed_doc,
        3,
        1,
        "seven unseen collaboration tasks on three backbones",
        "7 unseen collaboration tasks on 3 backbones",
    )
    assert failing(rubric_of(seed_doc)) == []


def test_a_generic_closing_sentence_never_tips_a_backed_paragraph():
    claims = ["The port handled 4.1 million containers in 2025.", "Most of the growth came from transshipment."]
    paragraph = (
        "The port handled 4.1 million containers in 2025. "
        "Growth was driven largely by cargo passing through on its way elsewhere, about 4.1 million boxes in all. "
        "What happens next is anyone's guess."
    )
    without_analysis = " ".join(paragraph.split(". ")[:2]) + "."
    assert errors_of(support_findings(without_analysis, claims)) == []
    found = support_findings(paragraph, claims)
    assert errors_of(found) == []
    assert any(f["severity"] == "info" and "anyone's guess" in f["sentence"] for f in found)


def test_many_analysis_sentences_still_do_not_tip_it_but_all_analysis_fails():
    claims = ["The port handled 4.1 million containers in 2025."]
    backed = "The port handled 4.1 million containers in 2025. "
    analysis = "Nobody can say where this leads. It is a trend worth watching. Time will tell."
    assert errors_of(support_findings(backed + analysis, claims)) == []
    [f] = errors_of(support_findings(analysis, claims))
    assert "only 0 of 3 sentences" in f["message"]


@pytest.mark.parametrize(
    ("claim", "sentence"),
    [
        ("The drug did not reduce mortality in the trial.", "In the trial, the drug failed to reduce mortality."),
        ("The bridge did not reopen before winter.", "The bridge stayed shut, and it never reopened before winter."),
        (
            "The new rule does not apply to small firms.",
            "Small firms are not covered: the new rule does not apply to them.",
        ),
        ("Prices were unchanged in March.", "In March prices did not change."),
        ("The committee rejected the plan.", "The committee did not approve the plan."),
        ("Accuracy on old tasks did not drop.", "Accuracy on old tasks was preserved."),
        ("Sales rose in May, while costs fell.", "Costs fell in May, while sales rose."),
        (
            "The team chose speed over cost, not cost over speed.",
            "Not cost but speed was what the team chose over cost.",
        ),
        ("Zero of the samples were contaminated.", "None of the samples were contaminated."),
        ("Exports rose and imports fell.", "Imports fell and exports rose."),
    ],
)
def test_kept_negations_and_reordered_clauses_pass(claim, sentence):
    assert errors_of(support_findings(sentence, [claim])) == []


def test_a_sentence_reading_two_claims_is_compared_clause_by_clause():
    claims = ["The upgrade improved throughput.", "The upgrade did not reduce latency."]
    assert errors_of(support_findings("The upgrade improved throughput, but it did not reduce latency.", claims)) == []
    found = errors_of(support_findings("The upgrade improved throughput, and it reduced latency.", claims))
    assert [f["kind"] for f in found] == ["negation"] and found[0]["claim"] == claims[1]


# --------------------------------------------------------------------------- hostile text


def test_a_huge_sentence_is_read_up_to_a_bound():
    sentence = "not " * 100_000 + "rose"
    assert sum(len(c.tokens) for c in _clauses(sentence)) <= MAX_TOKENS


@pytest.mark.parametrize(
    "unit", ["not ", "nine ", ", not x ", "from a to ", "rather than ", "more than ", "x" * 50 + " "]
)
def test_meaning_reading_grows_linearly(unit):
    """Reading ten times the text is at most about ten times the work: this thread's CPU time
    (``time.thread_time``: no other process or thread counts), the best of up to five runs,
    under 40 times (a quadratic reading is 100 times)."""

    def cost(n):
        text = unit * (n // len(unit))
        start = time.thread_time()
        _clauses(text)
        _word_figures(text)
        DeterministicJudge().judge(text[:5000], [text[:5000]] * 3)
        return time.thread_time() - start

    small = large = float("inf")
    for _ in range(5):
        small, large = min(small, cost(4_000)), min(large, cost(40_000))
        if large < 40 * small + 0.05:
            break
    assert large < 40 * small + 0.05, f"{large:.3f}s for 40,000 characters, {small:.4f}s for 4,000"


def _cleared_readings():
    from stories import text
    from stories.checks import claims_support
    from stories.checks.meaning import clauses, judge, numbers

    for cached in (
        claims_support._cached_reading,
        clauses._cached_clauses,
        judge._cached_claim_clauses,
        numbers._cached_word_figures,
        text.content_word,
    ):
        cached.cache_clear()


def test_readings_shared_between_units_and_stories_change_no_rubric(manifests_loaded, seed_doc):
    """A claim's reading (and a sentence's) is kept across the units and stories that meet
    the same text: the rubric with every reading cached equals the one read from scratch,
    planted faults included."""
    replace(seed_doc, 3, 1, "stayed largely preserved", "dropped sharply")
    _cleared_readings()
    cold = rubric_of(seed_doc)
    warm = rubric_of(seed_doc)
    assert warm == cold and failing(cold) == ["claims_support"]


def test_a_reading_is_what_the_text_functions_read(manifests_loaded, seed_doc):
    from stories.checks.claims_support import reading
    from stories.checks.meaning import word_figures
    from stories.figures import figures, ranges
    from stories.text import content_tokens, name_key, names

    texts = [fact["text"] for fact in seed_doc["key_facts"]]
    texts += [p["markdown"] for s in seed_doc["sections"] for p in s["paragraphs"]]
    texts += ["from 68.5% to 74.3% on GSM8K", "Invisible Technologies doubled it: twice the 64k", "x" * 3000]
    for text in texts:
        read = reading(text)
        assert read.figures == tuple(figures(text)) and read.ranges == tuple(ranges(text))
        assert read.tokens == content_tokens(text) and read.key == name_key(text)
        assert read.names == tuple(names(text)) and read.word_figures == word_figures(text)


def test_claims_number_words_are_read_only_for_a_figure_their_digits_do_not_state(monkeypatch):
    """A figure the cited claims state in digits is found without reading their numbers
    written in words; one they state only in words makes them read, and matches."""
    import types

    from manifests.models import ClaimRow
    from stories.checks import claims_support
    from stories.checks.base import Unit

    claim = "Accuracy rose 30.7% over seven days."
    claims_support._cached_reading.cache_clear()
    read, real = [], claims_support.word_figures
    monkeypatch.setattr(claims_support, "word_figures", lambda text: read.append(text) or real(text))
    ctx = types.SimpleNamespace(claims={"1": ClaimRow("1", "9", claim, True, False)}, manifests={})
    unit = Unit("sections[0].paragraphs[0]", "Accuracy rose 30.7%.", [{"manifest_id": "9", "claim_ids": ["1"]}])
    evidence = claims_support.Evidence(ctx, unit)
    assert evidence.states("30.7%") and read == []
    assert evidence.states("7") and read == [claim]
    assert not evidence.states("8")
    findings, score = claims_support.ClaimsSupport().check_unit(unit, evidence, claims_support.load_judge())
    assert score == 1.0 and not [f for f in findings if f["severity"] == "error"]


_NUMBERISH = [
    "zero",
    "o",
    "nought",
    "one",
    "first",
    "two",
    "second",
    "three",
    "third",
    "four",
    "fourth",
    "five",
    "twelve",
    "twelfth",
    "twenty",
    "twentieth",
    "forty",
    "fourty",
    "sixty",
    "ninety",
    "hundred",
    "hundreds",
    "hundredth",
    "thousand",
    "million",
    "billion",
    "ones",
    "thirds",
    "and",
    "point",
    "a",
    "dozen",
    "half",
    "twice",
    "none",
    "seconds",
    "oh",
]
_ORDINARY = [
    "the",
    "model",
    "rose",
    "fell",
    "by",
    "of",
    "on",
    "GSM8K",
    "Qwen3",
    "percent",
    "clock",
    "30.7%",
    "1,000",
    "2nd",
    "Ⅻ",  # not ASCII: letters and digits outside A-Z and 0-9, which lowercase to more than one
    "İstanbul",
    "Kelvin",  # KELVIN SIGN, lowercased to an ASCII k
    "٣",
]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(_NUMBERISH + _ORDINARY),
            st.sampled_from(["", "", "", "-", ",", "."]),
            st.booleans(),
        ),
        max_size=120,
    )
)
def test_texts_without_a_number_word_skip_the_parser_and_read_the_same(parts):
    """The number words read with the parser only for chunks that hold a word it reads as a
    number equal those read by giving it every chunk, on texts of number words, the words
    that join them, ordinary words and figures, in any case, hyphenated or not."""
    from stories.checks.meaning import numbers

    text = " ".join(word.capitalize() + mark if upper else word + mark for word, mark, upper in parts)
    source = [m.group(0) for m in numbers._WORDISH.finditer(text[: numbers.MAX_TEXT].replace("-", " "))]
    specials = numbers.lexicon().number_words
    every_chunk = [(token, specials[token.lower()]) for token in source if token.lower() in specials]
    for begin in range(0, len(source), numbers.CHUNK):
        every_chunk += numbers._parse_chunk(source[begin : begin + numbers.CHUNK], specials)
    assert _word_figures(text) == tuple(every_chunk)


def test_a_text_without_number_words_does_not_reach_the_parser(monkeypatch):
    from stories.checks.meaning import numbers

    called = []
    real = numbers._parse_chunk
    monkeypatch.setattr(numbers, "_parse_chunk", lambda *a: called.append(a) or real(*a))
    assert _word_figures("Accuracy rose 30.7% on GSM8K, twice the baseline.") == (("twice", "2x"),)
    assert called == []
    assert _word_figures("Accuracy rose by four points.") == (("four", "4"),) and len(called) == 1


def test_the_number_words_are_the_parsers(seed_doc, seed_manifests_doc):
    """Each word of ``NUMBER_WORDS`` but "o" is a number to the parser alone, and every word
    it reads alone as one is there (plurals included): of the stopwords, the lexicon, the
    demo story and its claims, and words around numbers."""
    from text_to_num import alpha2digit

    from stories.checks.meaning import numbers
    from stories.checks.meaning.lexicon import lexicon
    from stories.text import STOPWORDS

    def read_alone(word):
        return alpha2digit(word, "en", threshold=0) != word

    assert [w for w in sorted(numbers.NUMBER_WORDS) if w != "o" and not read_alone(w)] == []
    lex = lexicon()
    candidates = set(STOPWORDS) | set(lex.terms) | set(lex.negation) | set(lex.number_words)
    candidates |= set(numbers._WORDISH.findall(json.dumps(seed_doc).replace("-", " ")))
    candidates |= set(numbers._WORDISH.findall(json.dumps(seed_manifests_doc).replace("-", " ")))
    candidates |= {w + "s" for w in numbers.NUMBER_WORDS} | {w.upper() for w in numbers.NUMBER_WORDS}
    candidates |= {"trillion", "quadrillion", "naught", "nil", "oh", "dozen", "score", "couple", "sixtieth", "seconds"}
    candidates = {w for w in candidates if w.isalpha()}
    assert [w for w in sorted(candidates) if read_alone(w) and not numbers._numeric(w.lower())] == []
