"""The checks read the words readers read. A paragraph is read as it is rendered (character
references decoded, Markdown marks gone or keeping words apart as readers see them) and
without the characters that draw nothing (format characters such as the zero-width joiner
and the soft hyphen, combining marks); a key fact, shown as plain text, without those
characters. So a negation a reader sees cannot be hidden from ``claims_support`` by
splitting its word for the checks alone: every such story is refused as the plainly written
one is."""

import copy
import time

import pytest

from newsroom.models import Newsroom
from stories.checks import run_checks
from stories.figures import figures
from stories.markup import to_text
from stories.readable import plain, visible
from stories.text import names, words
from tests.syndication.helpers import client_for

pytestmark = pytest.mark.django_db

SEED_WORDS = "reached a 30.7%"

# Ways of writing "did not reach" that readers read as those words.
HIDDEN = {
    "named reference to a zero-width joiner": "did n&zwj;ot reach",
    "decimal reference to a zero-width joiner": "did n&#8205;ot reach",
    "hexadecimal reference to a zero-width space": "did n&#X200b;ot reach",
    "named reference to a soft hyphen": "did n&shy;ot reach",
    "reference to the letter itself": "did n&#111;t reach",
    "named reference to a word joiner": "did n&NoBreak;ot reach",
    "zero-width joiner": "did n\u200dot reach",
    "zero-width space": "did n\u200bot reach",
    "word joiner": "did n\u2060ot reach",
    "byte order mark": "did n\ufeffot reach",
    "soft hyphen": "did n\u00adot reach",
    "right-to-left mark": "did n\u200fot reach",
    "combining grapheme joiner": "did n\u034fot reach",
    "tag character": "did n\U000e0020ot reach",
    "emphasis inside the word": "did n*o*t reach",
    "strong emphasis inside the word": "did n**o**t reach",
    "strikethrough inside the word": "did n~~o~~t reach",
    "code inside the word": "did n`o`t reach",
    "empty link inside the word": "did n[](https://example.org)ot reach",
    "empty image inside the word": "did n![](https://example.org/a.png)ot reach",
    "an unmatched asterisk between two words": "did not*reach",
    "an underscore between two words": "did not_reach",
    "emphasis after a mark readers see": "did x_*n*ot reach",
    "strikethrough after a mark readers see": "did x`*`~~n~~ot reach",
    "emphasis before a mark left over": "did n*o*t*x reach",
    "a heading mark between two words": "did not#reach",
    "a Cyrillic letter drawn as a Latin one": "did n\u043et reach",
    "a Greek letter drawn as a Latin one": "did n\u03bft reach",
    "fullwidth letters": "did \uff4e\uff4f\uff54 reach",
    "mathematical bold letters": "did \U0001d427\U0001d428\U0001d42d reach",
}


@pytest.fixture
def auto_publishing(manifests_loaded):
    return Newsroom.objects.create(slug="artificial-intelligence", title="AI", auto_publish=True)


@pytest.fixture
def submit_with(story_doc, writer_key, auto_publishing):
    """Submits the seed story with "reached a 30.7%" written otherwise, in its paragraph (or
    key fact); answers the submission's JSON."""
    key = client_for(writer_key[1])

    def submit(slug: str, paragraph: str | None = None, key_fact: str | None = None) -> dict:
        doc = story_doc(id=None, slug=slug, published_at=None)
        if paragraph is not None:
            p = doc["sections"][2]["paragraphs"][1]
            assert SEED_WORDS in p["markdown"]
            p["markdown"] = p["markdown"].replace(SEED_WORDS, paragraph.removesuffix(" reach") + " reach a 30.7%")
        if key_fact is not None:
            fact = doc["key_facts"][3]
            assert "reached 30.7%" in fact["text"]
            fact["text"] = fact["text"].replace("reached 30.7%", key_fact.removesuffix(" reach") + " reach 30.7%")
        response = key.post("/api/v1/submissions/", doc, format="json")
        assert response.status_code in (200, 201, 202), response.content[:300]
        return response.json()

    return submit


def contradictions(result: dict) -> list[dict]:
    return [
        f
        for c in result["criteria"]
        if c["name"] == "claims_support"
        for f in c["findings"]
        if f["severity"] == "error"
    ]


def test_the_clean_story_is_published(submit_with):
    assert submit_with("clean")["status"] == "published"


def test_the_plainly_written_negation_is_refused(submit_with):
    assert submit_with("plain", paragraph="did not reach")["status"] == "draft"


@pytest.mark.parametrize("written", list(HIDDEN.values()), ids=list(HIDDEN))
def test_a_negation_readers_read_is_refused_however_it_is_written(submit_with, written):
    assert submit_with("hidden", paragraph=written)["status"] == "draft"


@pytest.mark.parametrize("written", list(HIDDEN.values()), ids=list(HIDDEN))
def test_readers_read_the_negation_the_checks_read(written):
    """The cases are real: the renderer shows "not" (or the two words) to readers, and the
    checks read the word "not" too."""
    seen = words(visible(to_text(written)))
    assert "not" in seen, seen
    assert "not" in words(plain(written))


@pytest.mark.parametrize(
    "written",
    ["did n\u200dot reach", "did n\u00adot reach", "did n\ufeffot reach", "did no\u0301t reach", "did n\u043et reach"],
    ids=["zero-width joiner", "soft hyphen", "byte order mark", "combining accent", "Cyrillic letter"],
)
def test_a_negation_hidden_in_a_key_fact_is_refused(submit_with, written):
    assert submit_with("fact", key_fact=written)["status"] == "draft"


def test_a_key_fact_is_read_as_plain_text_so_a_reference_in_it_stays_as_written(seed_doc, manifests_loaded):
    """Key facts are shown as plain text: "n&zwj;ot" is shown as those characters, and read so."""
    from stories.checks.base import CheckContext

    seed_doc["key_facts"][3]["text"] = "ProgAgent-14B did n&zwj;ot\u200b reach 30.7%"
    units = CheckContext(seed_doc).units
    assert units[3].text == "ProgAgent-14B did n&zwj;ot reach 30.7%"


def test_the_hidden_negation_is_found_as_a_contradiction_like_the_plain_one(seed_doc, manifests_loaded):
    def finding_kinds(paragraph: str) -> list:
        doc = copy.deepcopy(seed_doc)
        p = doc["sections"][2]["paragraphs"][1]
        p["markdown"] = p["markdown"].replace(SEED_WORDS, paragraph + " a 30.7%")
        return [(f["path"], f.get("kind")) for f in contradictions(run_checks(doc))]

    plain_kinds = finding_kinds("did not reach")
    assert plain_kinds
    assert finding_kinds("did n&zwj;ot reach") == plain_kinds
    assert finding_kinds("did n\u00adot reach") == plain_kinds


def test_plain_decodes_character_references_as_the_renderer_does():
    assert plain("AT&amp;T and &quot;quoted&quot; &#169; &#xA9;") == 'AT&T and "quoted" © ©'
    # no semicolon, no reference: readers see "&not reached" as written
    assert plain("it was &not reached") == "it was &not reached"
    # an escaped ampersand starts no reference: readers see the ampersand, as written
    assert plain("n\\&zwj;ot") == "n&zwj;ot"
    # unknown names stay; impossible code points are the replacement character
    assert plain("&bogus; &#0; &#xD800;") == "&bogus; \ufffd \ufffd"


def test_plain_drops_format_characters_and_combining_marks():
    assert plain("n\u200do\u200bt\u2060 \ufeffso\u00adft re\u0301sume\u0301") == "not soft resume"


def test_plain_keeps_words_apart_where_readers_see_a_mark_between_them():
    assert plain("max_tokens and not#reached and a>b") == "max tokens and not reached and a b"


def test_plain_keeps_links_text_and_drops_marks_between_words():
    assert plain("**Bold**, _em_ and [a link](https://example.org) with `code`.") == "Bold, em and a link with code."


def test_a_link_by_reference_inside_a_word_is_read_both_ways():
    assert "not" in words(plain("[o]: https://example.org\ndid n[o]t reach"))
    assert words(plain("see the table[1] and [2]")) == ["see", "the", "table", "1", "and", "2"]


def test_a_clean_paragraph_reads_as_before():
    text = "ProgAgent-14B reached a 30.7% pass rate, where “direct” baselines scored zero — twice."
    assert plain(text) == text


@pytest.mark.parametrize(
    "unit",
    [
        *("&zwj;", "&#8205;", "&", "&#", "\u200d", "n*o*t ", "n*", "a_b", "a*b", "[a]:b*c ", "\\&", "&" + "a" * 40),
        *("n\u043et ", "\u043e", "\uff4e", "\u043f\u0440\u0438 ", "a" * 50 + "\u043e "),
    ],
)
def test_plain_is_linear_in_hostile_text(unit):
    def took(n: int) -> float:
        text = (unit * (n // len(unit) + 1))[:n] + "a"
        start = time.perf_counter()
        plain(text)
        return time.perf_counter() - start

    small, large = min(took(10_000) for _ in range(3)), min(took(100_000) for _ in range(3))
    assert large < 40 * small + 0.1, (large, small)


def test_a_text_of_nothing_but_invisible_characters_reads_as_empty():
    assert visible("\u200d\u00ad\ufeff") == ""
    assert plain("\u200d \U000e0001") == ""


def test_letters_drawn_as_latin_ones_are_read_as_those():
    assert plain("the score f\u0435ll, n\u043et rose") == "the score fell, not rose"
    assert names(plain("Prog\u0410gent-14B won")) == ["ProgAgent-14B"]
    fullwidth = "\uff30\uff52\uff4f\uff47\uff21\uff47\uff45\uff4e\uff54-14B reached \uff13\uff10\uff0e\uff17\uff05"
    read = plain(fullwidth)
    assert read == "ProgAgent-14B reached 30.7%"
    assert figures(read) == [("30.7%", "30.7%")]
    assert visible("na\u00efv\u0435 caf\u00e9") == "na\u00efve caf\u00e9"  # Latin letters of their own stay
    assert visible("FA\u0406LED, \u0391\u0399") == "FAILED, AI"  # capitals drawn as "I" are "I"


def test_text_in_other_scripts_reads_as_written():
    for text in (
        "\u043f\u0440\u0438\u0432\u0435\u0442 \u043c\u0438\u0440",
        "\u0421\u0435\u0440\u0433\u0435\u0439",
        "\u0395\u03bb\u03bb\u03ac\u03b4\u03b1",
    ):
        assert visible(text) == text


def test_a_name_written_in_fullwidth_letters_must_be_cited_like_any_other(seed_doc, manifests_loaded):
    """Readers see "FakeModel-9B"; no cited claim names it, so the checks refuse it."""
    doc = copy.deepcopy(seed_doc)
    p = doc["sections"][2]["paragraphs"][1]
    p["markdown"] = p["markdown"].replace(
        SEED_WORDS, SEED_WORDS + " against \uff26\uff41\uff4b\uff45\uff2d\uff4f\uff44\uff45\uff4c-9B"
    )
    named = [f.get("name") for f in contradictions(run_checks(doc)) if f.get("kind") == "name"]
    assert "FakeModel-9B" in named
