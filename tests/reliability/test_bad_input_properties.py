"""Bad input, generated: malformed and adversarial desk/1 documents fed to ``import_stories``
and ``check_story`` exactly as an operator would (files on disk, ``call_command``).

The contract: every document is either accepted as a valid story, or refused with
a clear error naming the JSON path of the problem (``import_stories``: CommandError and the
path on standard error; ``check_story``: exit status 2). Never an uncaught exception, and a
refused file leaves every table exactly as it was (no partial story).
"""

import copy
import io
import json
import re

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from manifests.models import Claim, Manifest, Publisher
from newsroom.models import Beat, Edition, Newsroom
from stories.models import (
    AuditEntry,
    Cite,
    CiteClaim,
    Correction,
    Image,
    KeyFact,
    Paragraph,
    RelatedLink,
    Revision,
    Section,
    Story,
    StoryFingerprint,
)
from tests.seed import SEED_JSON, SEED_MANIFESTS

pytestmark = pytest.mark.django_db

SEED = json.loads(SEED_JSON.read_text(encoding="utf-8"))
MODELS = (
    Story,
    Section,
    Paragraph,
    KeyFact,
    Cite,
    CiteClaim,
    Image,
    RelatedLink,
    Correction,
    Revision,
    AuditEntry,
    StoryFingerprint,
    Manifest,
    Claim,
    Publisher,
    Newsroom,
    Beat,
    Edition,
)
HYPOTHESIS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
# A name is any key (decision_card keeps keys beyond its three, such as "0").
PATH_TOKEN = re.compile(r"\.?([^.\[\]]+)|\[([0-9]+)\]")


def row_counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in MODELS}


# --------------------------------------------------------------------------- the oracle


def split_error(text: str) -> tuple[int | None, str, str]:
    """``[line N: ]path: message`` -> (line, path, message)."""
    line = None
    m = re.match(r"line ([0-9]+): ", text)
    if m:
        line, text = int(m.group(1)), text[m.end() :]
    path, sep, message = text.partition(": ")
    assert sep and message.strip(), f"no path/message in {text!r}"
    return line, path, message


def path_names_a_place(doc, path: str) -> bool:
    """Whether ``path`` leads into ``doc`` (its last step may be the missing key itself)."""
    if path == "$":
        return True
    tokens = [(name, index) for name, index in PATH_TOKEN.findall(path)]
    if "".join(f".{n}" if n else f"[{i}]" for n, i in tokens).lstrip(".") != path:
        return False
    node = doc
    for k, (name, index) in enumerate(tokens):
        last = k == len(tokens) - 1
        if name:
            if not isinstance(node, dict):
                return False
            if name not in node:
                return last
            node = node[name]
        else:
            if not isinstance(node, list) or int(index) >= len(node):
                return False
            node = node[int(index)]
    return True


def decoded(data: bytes):
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def import_file(tmp_path, data: bytes, suffix: str) -> tuple[str, str]:
    """Run import_stories on ``data``; ("ok", stdout) or ("rejected", the error line)."""
    path = tmp_path / f"story{suffix}"
    path.write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("import_stories", "--restore", str(path), stdout=out, stderr=err)
    except CommandError as exc:
        assert str(path) in str(exc)
        line = err.getvalue().strip()
        prefix, suffix_note = f"{path}: ", " (nothing imported from this file)"
        assert line.startswith(prefix) and line.endswith(suffix_note), line
        return "rejected", line[len(prefix) : -len(suffix_note)]
    return "ok", out.getvalue()


def check_file(tmp_path, data: bytes) -> tuple[int, str]:
    path = tmp_path / "check.json"
    path.write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(SystemExit) as exit_info:
        call_command("check_story", str(path), stdout=out, stderr=err)
    code = exit_info.value.code
    assert code in (0, 1, 2), code
    if code == 2:
        text = err.getvalue().strip()
        assert text.startswith("not a valid desk/1 story: "), text
        return 2, text[len("not a valid desk/1 story: ") :]
    assert "overall" in out.getvalue()
    return code, out.getvalue()


def assert_refused_or_accepted(tmp_path, data: bytes, suffix: str = ".json") -> str:
    """The whole contract for one file, with every write undone afterwards."""
    with transaction.atomic():
        before = row_counts()
        outcome, detail = import_file(tmp_path, data, suffix)
        if outcome == "rejected":
            assert row_counts() == before, "a refused file changed the database"
            line, path, _ = split_error(detail)
            doc = decoded(data) if suffix == ".json" else decoded(data.splitlines()[line - 1]) if line else None
            assert path == "$" or path_names_a_place(doc, path), f"{path!r} is not a place in the document"
        else:
            assert re.fullmatch(r"stories: \d+ created, \d+ updated, \d+ unchanged\n", detail), detail
        transaction.set_rollback(True)
    if suffix == ".json":
        with transaction.atomic():
            code, text = check_file(tmp_path, data)
            assert row_counts() == before, "check_story wrote to the database"
            if code == 2:
                _, path, _ = split_error(text)
                assert path == "$" or path_names_a_place(decoded(data), path), path
                # What check_story cannot even read, import cannot store.
                assert outcome == "rejected" and split_error(detail)[1] == path
            transaction.set_rollback(True)
    return outcome


# --------------------------------------------------------------------------- strategies

# Unicode edge cases: lone surrogates (json.dumps escapes them as \udXXX), NUL, right-to-left
# overrides, zero-width and line separators, emoji with modifiers, combining marks.
tricky = st.sampled_from(
    [
        "\ud800",
        "\udfff",
        "\x00",
        "\u202e",
        "\u200f",
        "\u200b",
        "\u2028",
        "\ufeff",
        "👩🏽‍🚀",
        "e\u0301",
        "\uffff",
        "\x7f",
    ]
)
adversarial_text = st.lists(st.one_of(tricky, st.text(max_size=8)), max_size=6).map("".join)
big_number = st.integers(min_value=10**18, max_value=10**19 - 1)  # 19-digit ids as numbers
json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | big_number | st.floats() | adversarial_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6) | tricky, inner, max_size=3),
    max_leaves=8,
)


def places(node, path=()):
    """Every (path, value) below ``node``."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield path + (key,), value
            yield from places(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield path + (i,), value
            yield from places(value, path + (i,))


SEED_PLACES = [p for p, _ in places(SEED)]


def mutate(doc, path, action, value):
    """Drop the key at ``path``, or replace its value (one mutation)."""
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    key = path[-1]
    if action == "drop":
        del parent[key]  # a list item removed, or a dict key
    elif action == "as_number" and isinstance(parent[key], str) and parent[key].isdigit():
        parent[key] = int(parent[key])
    elif action == "huge":
        parent[key] = "x" * 100_001
    else:
        parent[key] = value
    return doc


ACTIONS = st.sampled_from(["drop", "replace", "replace", "as_number", "huge"])
mutation = st.tuples(st.sampled_from(SEED_PLACES), ACTIONS, json_value)


@st.composite
def mutated_seed(draw):
    doc = copy.deepcopy(SEED)
    for path, action, value in draw(st.lists(mutation, min_size=1, max_size=3)):
        try:
            mutate(doc, path, action, value)
        except (KeyError, IndexError, TypeError):
            pass  # an earlier mutation removed this place
    return doc


def encode(doc, *, ascii_only: bool) -> bytes:
    # ensure_ascii: lone surrogates become \udXXX escapes, as a hostile client would send them.
    return json.dumps(doc, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")


# --------------------------------------------------------------------------- properties


@pytest.mark.slow
@HYPOTHESIS
@given(doc=mutated_seed(), ascii_only=st.booleans())
def test_a_mutated_seed_is_refused_with_its_path_or_accepted(db, tmp_path, doc, ascii_only):
    event(assert_refused_or_accepted(tmp_path, encode(doc, ascii_only=ascii_only)))


@pytest.mark.slow
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(doc=mutated_seed())
def test_a_mutated_seed_against_stored_manifests_and_a_stored_story(manifests_loaded, tmp_path, doc):
    """The same contract when the cited claims exist with text and the story exists: the
    update, append-only corrections and claim-ownership paths."""
    with transaction.atomic():
        call_command("import_stories", "--restore", str(SEED_JSON), stdout=io.StringIO())
        event(assert_refused_or_accepted(tmp_path, encode(doc, ascii_only=True)))
        transaction.set_rollback(True)


@pytest.mark.slow
@HYPOTHESIS
@given(value=json_value)
def test_any_json_value_as_a_whole_document(db, tmp_path, value):
    assert assert_refused_or_accepted(tmp_path, encode(value, ascii_only=True)) == "rejected"


@pytest.mark.slow
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(docs=st.lists(st.one_of(mutated_seed(), st.just(SEED)), min_size=2, max_size=4))
def test_a_jsonl_file_is_imported_whole_or_not_at_all(db, tmp_path, docs):
    data = b"\n".join(encode(d, ascii_only=True) for d in docs) + b"\n"
    event(assert_refused_or_accepted(tmp_path, data, ".jsonl"))


# --------------------------------------------------------------------------- named cases


def seed_with(**changes):
    doc = copy.deepcopy(SEED)
    for dotted, value in changes.items():
        mutate(doc, tuple(int(s) if s.isdigit() else s for s in dotted.split("__")), "replace", value)
    return doc


def raw(doc) -> bytes:
    return json.dumps(doc, ensure_ascii=False).encode("utf-8", "surrogatepass")


NESTED = "[" * 10_000 + "]" * 10_000
CASES = {
    # whole documents that are not stories
    "empty file": (b"", "$"),
    "null": (b"null", "$"),
    "a list": (b"[]", "$"),
    "10,000 nested lists": (NESTED.encode(), "$"),
    "10,000 nested lists as the headline": (raw(SEED)[:-1] + b', "headline": ' + NESTED.encode() + b"}", "$"),
    "800 nested lists as a derived field": (raw(SEED)[:-1] + b', "reuse": ' + b"[" * 800 + b"]" * 800 + b"}", "ok"),
    "800 nested objects as the decision card": (
        raw({**SEED, "decision_card": json.loads('{"a":' * 800 + "1" + "}" * 800)}),
        "decision_card.a",
    ),
    "an integer of 5,000 digits": (b"1" * 5000, "$"),
    "NaN and Infinity": (raw(SEED)[:-1] + b', "source_count": NaN, "x": Infinity}', "source_count"),
    "not UTF-8": (b'{"schema": "\xff\xfe"}', "$"),
    "UTF-8-encoded surrogate": (raw(seed_with(headline="a\ud800b")), "headline"),
    # wrong types
    "schema as a number": (raw(seed_with(schema=1)), "schema"),
    "sections as an object": (raw(seed_with(sections={})), "sections"),
    "paragraph as a string": (raw(seed_with(sections__0__paragraphs__0="text")), "sections[0].paragraphs[0]"),
    "width as a string": (
        raw(seed_with(images=[{"url": "https://e.org/i.png", "alt": "a", "width": "640"}])),
        "images[0].width",
    ),
    "self_reported as a string": (raw(seed_with(key_facts__0__self_reported="yes")), "key_facts[0].self_reported"),
    # 19-digit ids as numbers
    "story id as a number": (raw(seed_with(id=1792067182956183080)), "id"),
    "manifest id as a number": (
        raw(seed_with(key_facts__0__cites__0__manifest_id=1792067182956183080)),
        "key_facts[0].cites[0].manifest_id",
    ),
    "claim id as a number": (
        raw(seed_with(sections__0__paragraphs__0__cites__0__claim_ids__0=1792067413462310158)),
        "sections[0].paragraphs[0].cites[0].claim_ids[0]",
    ),
    "claim id as a float": (
        raw(seed_with(key_facts__0__cites__0__claim_ids__0=1.792067413462310158e18)),
        "key_facts[0].cites[0].claim_ids[0]",
    ),
    "cited manifest id as a number": (
        raw(seed_with(cited_manifest_ids__0=1792067182956183080)),
        "cited_manifest_ids[0]",
    ),
    "listed manifest id as a number": (
        raw(seed_with(manifests__0__manifest_id=1792067182956183080)),
        "manifests[0].manifest_id",
    ),
    # huge strings
    "a 10 MB headline": (raw(seed_with(headline="h" * 10_000_000)), "headline"),
    "a paragraph over the limit": (
        raw(seed_with(sections__0__paragraphs__0__markdown="p " * 50_001)),
        "sections[0].paragraphs[0].markdown",
    ),
    "a paragraph just under the limit": (raw(seed_with(sections__0__paragraphs__0__markdown="word " * 19_999)), "ok"),
    # unicode edge cases
    "lone surrogate in the headline": (encode(seed_with(headline="\ud800 lone"), ascii_only=True), "headline"),
    "lone surrogate in a claim id": (
        encode(seed_with(key_facts__0__cites__0__claim_ids__0="\udfff"), ascii_only=True),
        "key_facts[0].cites[0].claim_ids[0]",
    ),
    "lone surrogate in a derived field": (encode(seed_with(disclosure="\ud83d"), ascii_only=True), "ok"),
    "NUL in a paragraph": (
        raw(seed_with(sections__0__paragraphs__0__markdown="a\x00b")),
        "sections[0].paragraphs[0].markdown",
    ),
    "NUL in an unresolved question": (raw(seed_with(unresolved=["a\x00"])), "unresolved[0]"),
    "a lone surrogate as a decision card key": (
        encode(seed_with(decision_card={"\ud800": ["x"]}), ascii_only=True),
        "decision_card",
    ),
    "NUL in a decision card key": (raw(seed_with(decision_card={"a\x00": ["x"]})), "decision_card"),
    "a 200,000-character decision card key": (raw(seed_with(decision_card={"k" * 200_000: ["x"]})), "decision_card"),
    "an empty decision card key": (raw(seed_with(decision_card={"": ["x"]})), "decision_card"),
    "an extra decision card key (kept)": (raw(seed_with(decision_card={"useful_for": ["a"], "see_also": ["b"]})), "ok"),
    "right-to-left override in the slug": (raw(seed_with(slug="abc\u202edef")), "slug"),
    "right-to-left, emoji and zero-width text": (raw(seed_with(headline="\u202eنص 👩🏽‍🚀\u200b\u2028 e\u0301")), "ok"),
    "full-width digits in the id": (raw(seed_with(id="８１")), "id"),
    "a newline after the id": (raw(seed_with(id="81\n")), "id"),
    # duplicates and dangling references
    "a claim twice in one cite": (
        raw(seed_with(key_facts__0__cites__0__claim_ids=["1792067413462310158", "1792067413462310158"])),
        "key_facts[0].cites[0].claim_ids[1]",
    ),
    "one claim under two manifests": (
        raw(
            seed_with(
                key_facts__0__cites=[
                    {"manifest_id": SEED["manifests"][0]["manifest_id"], "claim_ids": ["1"]},
                    {"manifest_id": SEED["manifests"][1]["manifest_id"], "claim_ids": ["1"]},
                ]
            )
        ),
        "key_facts[0].cites[1].claim_ids[0]",
    ),
    "a cite to a manifest nobody lists": (
        raw(seed_with(key_facts__0__cites__0__manifest_id="404")),
        "key_facts[0].cites[0].manifest_id",
    ),
    "a cite to a claim the manifest lacks (a stub)": (
        raw(seed_with(key_facts__0__cites__0__claim_ids=["999999"])),
        "ok",
    ),
    "corrections out of order": (
        raw(
            seed_with(
                corrections=[
                    {"corrected_at": "2026-10-17T00:00:00Z", "kind": "update", "text": "b"},
                    {"corrected_at": "2026-10-16T00:00:00Z", "kind": "update", "text": "a"},
                ]
            )
        ),
        "corrections[1].corrected_at",
    ),
    "a correction at 25 o'clock": (
        raw(seed_with(corrections=[{"corrected_at": "2026-10-17T25:00:00Z", "kind": "update", "text": "b"}])),
        "corrections[0].corrected_at",
    ),
    "an edition at hour 24": (raw(seed_with(edition="2026-10-16T24")), "edition"),
    "a javascript: image url": (raw(seed_with(images=[{"url": "javascript:alert(1)", "alt": "a"}])), "images[0].url"),
    "a year-0 publication time": (raw(seed_with(published_at="0000-01-01T00:00:00Z")), "published_at"),
    "the far edge of time": (raw(seed_with(published_at="9999-12-31T23:59:59-01:00")), "published_at"),
}


@pytest.mark.parametrize("data, expected", CASES.values(), ids=CASES.keys())
def test_named_bad_input(tmp_path, data, expected):
    outcome = assert_refused_or_accepted(tmp_path, data)
    rubric = check_json(tmp_path, data)
    if expected == "ok":
        assert outcome == "ok"
        assert "criteria" in rubric
        return
    assert outcome == "rejected"
    _, detail = import_file(tmp_path, data, ".json")
    assert split_error(detail)[1] == expected
    if rubric.get("valid") is False:  # what check_story can read, only import's lookups refuse
        assert rubric["error"]["path"] == expected


def check_json(tmp_path, data: bytes) -> dict:
    """``check_story --json``: always one JSON document on standard output, whatever the input."""
    path = tmp_path / "check.json"
    path.write_bytes(data)
    out = io.StringIO()
    with pytest.raises(SystemExit) as exit_info:
        call_command("check_story", str(path), "--json", stdout=out, stderr=io.StringIO())
    result = json.loads(out.getvalue())
    assert (exit_info.value.code == 2) == (result.get("valid") is False)
    return result


def test_duplicate_story_ids_in_one_jsonl_file_update_not_duplicate(tmp_path):
    second = seed_with(headline="The same story, edited")
    assert_refused_or_accepted(tmp_path, raw(SEED) + b"\n" + raw(second) + b"\n", ".jsonl")
    outcome, detail = import_file(tmp_path, raw(SEED) + b"\n" + raw(second) + b"\n", ".jsonl")
    assert (outcome, detail) == ("ok", "stories: 1 created, 1 updated, 0 unchanged\n")
    assert list(Story.objects.values_list("id", "headline", "version")) == [("81", "The same story, edited", 2)]


def test_two_stories_claiming_one_slug_refuse_the_whole_file(tmp_path):
    other = seed_with(id="82")
    outcome, detail = import_file(tmp_path, raw(SEED) + b"\n" + raw(other) + b"\n", ".jsonl")
    assert outcome == "rejected"
    assert detail.startswith(
        ("line 2: slug: slug 'agent-training-stack-decides-what-ai-models-learn' is already used", "line 2: slug:")
    )
    assert Story.objects.count() == 0


# --------------------------------------------------------------------------- manifests/1

SEED_MANIFESTS_DOC = json.loads(SEED_MANIFESTS.read_text(encoding="utf-8"))
MANIFEST_PLACES = [p for p, _ in places(SEED_MANIFESTS_DOC)]


@st.composite
def mutated_manifests(draw):
    doc = copy.deepcopy(SEED_MANIFESTS_DOC)
    manifest_mutation = st.tuples(st.sampled_from(MANIFEST_PLACES), ACTIONS, json_value)
    for path, action, value in draw(st.lists(manifest_mutation, min_size=1, max_size=3)):
        try:
            mutate(doc, path, action, value)
        except (KeyError, IndexError, TypeError):
            pass
    return doc


def import_manifests_file(tmp_path, data: bytes) -> tuple[str, str]:
    path = tmp_path / "m.json"
    path.write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("import_manifests", str(path), stdout=out, stderr=err)
    except CommandError:
        line = err.getvalue().strip()
        prefix, note = f"{path}: ", " (nothing imported from this file)"
        assert line.startswith(prefix) and line.endswith(note), line
        return "rejected", line[len(prefix) : -len(note)]
    return "ok", out.getvalue()


def assert_manifests_refused_or_accepted(tmp_path, data: bytes) -> str:
    with transaction.atomic():
        before = row_counts()
        outcome, detail = import_manifests_file(tmp_path, data)
        if outcome == "rejected":
            assert row_counts() == before, "a refused manifests file changed the database"
            _, path, _ = split_error(detail)
            assert path == "$" or path_names_a_place(decoded(data), path), path
        else:
            assert re.fullmatch(r"manifests: \d+ created, \d+ updated, \d+ unchanged\n", detail), detail
        transaction.set_rollback(True)
    return outcome


@pytest.mark.slow
@HYPOTHESIS
@given(doc=mutated_manifests(), ascii_only=st.booleans())
def test_a_mutated_manifests_file_is_refused_with_its_path_or_accepted(db, tmp_path, doc, ascii_only):
    event(assert_manifests_refused_or_accepted(tmp_path, encode(doc, ascii_only=ascii_only)))


def test_a_claim_owned_by_another_stored_manifest_is_refused_at_its_path(manifests_loaded, tmp_path):
    doc = copy.deepcopy(SEED_MANIFESTS_DOC)
    doc["manifests"] = [doc["manifests"][1]]
    doc["manifests"][0]["claims"].append(dict(SEED_MANIFESTS_DOC["manifests"][0]["claims"][0]))
    last = len(doc["manifests"][0]["claims"]) - 1
    assert assert_manifests_refused_or_accepted(tmp_path, raw(doc)) == "rejected"
    _, detail = import_manifests_file(tmp_path, raw(doc))
    assert split_error(detail)[1] == f"manifests[0].claims[{last}].claim_id"
