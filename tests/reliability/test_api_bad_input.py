"""Property-based bad input against the write endpoints (``POST /api/v1/submissions/``,
``/api/v1/checks/``, ``/api/v1/manifests/``) with a writer key.

Each example takes the seed document (desk/1, or manifests/1 for the manifests endpoint)
and damages it at a random JSON path: a wrong type, a huge string, deep nesting, unicode
edge cases, a 19-digit id as a number, duplicated ids, a cite to a claim that does not
exist, a missing field; or sends a body that is not JSON at all, or not as JSON. Whatever
arrives, the API must answer with a JSON error in the 4xx range that names the JSON path
(the test client re-raises a server error, so a 500 fails the example), and a refused
document must leave every table exactly as it was.
"""

import copy
import json
import re

import pytest
from django.apps import apps
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.syndication.helpers import client_for

pytestmark = pytest.mark.django_db

HYPOTHESIS = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# The root segment of a JSON path: "$" or a field name, e.g. "sections[0].paragraphs[1]".
PATH_RE = re.compile(r"^(\$|[A-Za-z_][A-Za-z0-9_]*)([.\[].*)?$")
ONE_MISSING_CLAIM = "1999999999999999999"


def table_counts() -> dict:
    """Rows in every table a write could touch (but the key's request count, which is
    bookkeeping of the request itself)."""
    labels = {"stories", "manifests", "newsroom", "syndication"}
    return {
        m._meta.label: m.objects.count()
        for m in apps.get_models()
        if m._meta.app_label in labels and not m._meta.proxy and m._meta.label != "syndication.ApiKeyUsage"
    }


def nested(depth: int):
    value = "x"
    for _ in range(depth):
        value = [value]
    return value


# --------------------------------------------------------------------------- strategies

UNICODE_EDGES = st.sampled_from(
    [
        "",
        " ",
        "\x00",
        "a\x00b",
        "\ud800",  # a lone surrogate: not encodable as UTF-8
        "\u202e\u2066evil",  # bidi overrides
        "\ufeff",
        "e\u0301" * 50,  # combining marks
        "👩‍👩‍👧‍👦" * 20,
        "\u0000\u0001\u001f\u007f",
        "<script>alert(1)</script>",
        "'; DROP TABLE stories_story; --",
        "81\n",
        "ＡＢＣ",  # full-width: not an ASCII id
        "\U0010ffff",
    ]
)
HUGE = st.sampled_from(["x" * 100_001, "é" * 200_000, "a " * 60_000])
WRONG_TYPES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.just(1792067182956183080),  # a 19-digit id as a number (past 2**53: JSON readers round it)
    st.just([]),
    st.just({}),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)
DEEP = st.sampled_from([nested(50), nested(500), nested(900)])
VALUES = st.one_of(WRONG_TYPES, UNICODE_EDGES, HUGE, DEEP, st.text(max_size=40))


def paths(value, prefix=()):
    """Every JSON path in ``value`` as a tuple of keys and indexes."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value[:3]):  # the first three of a list are enough, and keep the space small
            yield from paths(v, prefix + (i,))


def replace_at(doc, path, value):
    if not path:
        return value
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return doc


def delete_at(doc, path):
    if not path:
        return doc
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    del parent[path[-1]]
    return doc


def damaged(base: dict):
    """A strategy of documents derived from ``base`` with one or two damages."""
    all_paths = list(paths(base))

    @st.composite
    def build(draw):
        doc = copy.deepcopy(base)
        for _ in range(draw(st.integers(min_value=1, max_value=2))):
            choice = draw(st.sampled_from(["replace", "replace", "delete", "duplicate"]))
            path = draw(st.sampled_from(all_paths))
            try:
                if choice == "replace":
                    doc = replace_at(doc, path, draw(VALUES))
                elif choice == "delete":
                    doc = delete_at(doc, path)
                else:  # duplicate a list item in place (duplicate ids, duplicate cites, duplicate claims)
                    parent = doc
                    for key in path:
                        parent = parent[key]
                    if isinstance(parent, list) and parent:
                        parent.append(copy.deepcopy(parent[0]))
            except (KeyError, IndexError, TypeError):
                pass  # an earlier damage removed the path: the document is damaged anyway
        return doc

    return build()


def desk_specials(base: dict):
    """Damages a random mutation rarely finds: the same story's id twice, a cite to a
    claim that no manifest has, a claim id cited under two manifests."""

    def missing_claim(d):
        d["sections"][0]["paragraphs"][0]["cites"][0]["claim_ids"].append(ONE_MISSING_CLAIM)
        return d

    def duplicate_claim_in_cite(d):
        cite = d["sections"][0]["paragraphs"][0]["cites"][0]
        cite["claim_ids"].append(cite["claim_ids"][0])
        return d

    def claim_under_two_manifests(d):
        first = d["sections"][0]["paragraphs"][0]["cites"][0]
        other = next(m["manifest_id"] for m in d["manifests"] if m["manifest_id"] != first["manifest_id"])
        d["sections"][0]["paragraphs"][0]["cites"].append({"manifest_id": other, "claim_ids": [first["claim_ids"][0]]})
        return d

    def duplicate_manifest_entries(d):
        d["manifests"].append(copy.deepcopy(d["manifests"][0]))
        d["manifests"][-1]["title"] = "A different title for the same id"
        return d

    def numeric_ids(d):
        d["id"] = 81
        d["sections"][0]["paragraphs"][0]["cites"][0]["manifest_id"] = int(
            d["sections"][0]["paragraphs"][0]["cites"][0]["manifest_id"]
        )
        return d

    def unknown_manifest_only(d):
        d["manifests"] = []
        return d

    specials = [
        missing_claim,
        duplicate_claim_in_cite,
        claim_under_two_manifests,
        duplicate_manifest_entries,
        numeric_ids,
        unknown_manifest_only,
    ]
    return st.sampled_from(specials).map(lambda f: f(copy.deepcopy(base)))


# --------------------------------------------------------------------------- checking


def assert_clean_error(response, before: dict):
    """A 4xx, a JSON error body naming the path (or the media type), nothing stored."""
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json")
    error = response.json()["error"]
    assert error["code"] and error["message"]
    if response.status_code == 400:
        assert PATH_RE.match(error["path"]), error
    elif response.status_code == 415:
        assert "media type" in error["message"]
    assert table_counts() == before, "a refused document left rows behind"


def post_json(client, url, body):
    """``body`` serialised as JSON when it can be; a lone surrogate cannot be UTF-8, so it goes
    out as the escape ``\\ud800``, which JSON allows and Python reads back as the surrogate."""
    return client.post(url, json.dumps(body, ensure_ascii=True), content_type="application/json")


def submit_and_check(client, url, body, *, ok: int, stores: bool):
    """Post in a savepoint rolled back afterwards, so one example's story does not meet the next."""
    with transaction.atomic():
        before = table_counts()
        response = post_json(client, url, body) if not isinstance(body, (bytes, RawBody)) else body.send(client, url)
        if response.status_code == ok:
            assert response.json()
            if not stores:
                assert table_counts() == before, "the checks endpoint stored something"
        else:
            assert_clean_error(response, before)
        transaction.set_rollback(True)
    return response


class RawBody:
    def __init__(self, data, content_type):
        self.data, self.content_type = data, content_type

    def send(self, client, url):
        return client.post(url, self.data, content_type=self.content_type)

    def __repr__(self):
        return f"RawBody({self.data[:40]!r}, {self.content_type!r})"


RAW_BODIES = st.one_of(
    st.builds(RawBody, st.binary(max_size=200), st.just("application/json")),
    st.builds(RawBody, st.text(max_size=200), st.just("application/json")),
    st.builds(
        RawBody,
        st.sampled_from(
            ["[" * 100_000 + "]" * 100_000, '{"a":' * 5000 + "1" + "}" * 5000, "9" * 5000, "NaN", "{", "", "\ufeff{}"]
        ),
        st.just("application/json"),
    ),
    st.builds(
        RawBody,
        st.sampled_from(["{}", "schema=hangingcontext.desk/1", "<story/>"]),
        st.sampled_from(
            ["text/plain", "application/x-www-form-urlencoded", "application/xml", "multipart/form-data; boundary=x"]
        ),
    ),
)


@pytest.fixture
def writer(writer_key):
    return client_for(writer_key[1])


@pytest.fixture
def seed(story_doc):
    """The seed as a new submission (no id, so it is stored as a new draft when valid)."""
    return story_doc(id=None, slug="a-new-submission")


# --------------------------------------------------------------------------- the tests


@pytest.mark.slow
@pytest.mark.parametrize("url, ok, stores", [("/api/v1/submissions/", 201, True), ("/api/v1/checks/", 200, False)])
def test_damaged_desk_documents_get_a_4xx_naming_the_path(writer, seed, url, ok, stores):
    @HYPOTHESIS
    @given(body=st.one_of(damaged(seed), desk_specials(seed), RAW_BODIES))
    def run(body):
        submit_and_check(writer, url, body, ok=ok, stores=stores)

    run()


@pytest.mark.parametrize("url", ["/api/v1/submissions/", "/api/v1/checks/"])
def test_each_special_damage_is_refused_with_its_path(writer, seed, url):
    """Not left to chance: each hand-made damage is a 400 naming a path inside the document."""
    cases = {
        "numeric manifest id": lambda d: d["sections"][0]["paragraphs"][0]["cites"][0].update(
            manifest_id=1792067182956183080
        ),
        "numeric story id": lambda d: d.update(id=81),
        "claim twice in a cite": lambda d: d["sections"][0]["paragraphs"][0]["cites"][0]["claim_ids"].append(
            d["sections"][0]["paragraphs"][0]["cites"][0]["claim_ids"][0]
        ),
        "deep nesting": lambda d: d.update(headline=nested(200)),  # deeper still is refused whole, at "$"
        "huge headline": lambda d: d.update(headline="x" * 100_001),
        "NUL in text": lambda d: d["sections"][0]["paragraphs"][0].update(markdown="a\x00b"),
    }
    for name, damage in cases.items():
        doc = copy.deepcopy(seed)
        damage(doc)
        response = submit_and_check(writer, url, doc, ok=-1, stores=False)
        assert response.status_code == 400, (name, response.content)
        assert response.json()["error"]["path"] != "$", name


@pytest.mark.parametrize("url, ok", [("/api/v1/submissions/", 201), ("/api/v1/checks/", 200)])
def test_a_cite_to_a_missing_claim_fails_the_checks_naming_the_paragraph(writer, seed, url, ok):
    """By design (docs/checks.md) a claim the database does not know yet is a stub, to be
    fetched later: the document is well-formed, so not a 400; but the stub supports nothing,
    so the rubric fails naming the paragraph, and a submission stays a draft."""
    doc = copy.deepcopy(seed)
    doc["sections"][0]["paragraphs"][0]["cites"][0]["claim_ids"] = [ONE_MISSING_CLAIM]
    response = writer.post(url, doc, format="json")
    assert response.status_code == ok, response.content
    body = response.json()
    rubric = body.get("rubric", body)
    assert rubric["passed"] is False
    findings = [f for c in rubric["criteria"] for f in c["findings"] if ONE_MISSING_CLAIM in f["message"]]
    assert findings and all(f["path"].startswith("sections[0].paragraphs[0]") for f in findings), rubric
    if url.endswith("submissions/"):
        assert body["status"] == "draft"


@pytest.mark.slow
def test_damaged_manifests_documents_get_a_4xx_naming_the_path(writer, seed_manifests_doc):
    @HYPOTHESIS
    @given(body=st.one_of(damaged(seed_manifests_doc), RAW_BODIES))
    def run(body):
        submit_and_check(writer, "/api/v1/manifests/", body, ok=201, stores=True)

    run()
