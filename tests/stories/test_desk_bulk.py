"""The bulk import path (``stories.actions.bulk``, what ``import_stories`` uses for .jsonl files)
gives what importing the documents one by one gives: the same rows, the same exports, the
same revisions, the same side effects; in a number of queries that does not grow with the
batch; and a bad document anywhere in a file leaves nothing written."""

import copy
import io
import json

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import IntegrityError, connection, models, transaction
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from manifests.formats import import_manifests_document
from newsroom.infra import bulk
from newsroom.infra.pagecache import generation
from stories import actions, desk
from stories.actions import import_batch
from stories.actions import rows as action_rows
from stories.fingerprints import fingerprint_of
from stories.models import Revision, Story, StoryFingerprint
from tests.stories.documents import (
    CORRECTIONS,
    SEED,
    assert_rejected,
    complete,
    db_state,
    manifests_document,
    variant,
    write_jsonl,
)
from tests.stories.strategies import in_spec_order, stored

pytestmark = pytest.mark.django_db

NEW_MANIFEST = "1799000000000000001"
NEW_CLAIM = "1799000000000000002"


def mixed_docs(story_doc) -> list[dict]:
    """New stories of every shape import has to handle: corrections and images, an id-less
    draft in a newsroom and beat the database lacks, a manifest known only from the story's
    own list, no beat, another label."""
    with_parts = variant(
        story_doc,
        1,
        corrections=CORRECTIONS,
        images=[{"url": "https://example.org/a.png", "alt": "A chart", "width": 800}],
    )
    idless = variant(
        story_doc,
        2,
        published_at=None,
        newsroom="climate",
        newsroom_title="Climate Desk",
        beat="heat",
        edition="2026-10-19T03",
    )
    del idless["id"]
    own_manifest = variant(story_doc, 3, edition="2026-10-17T00")
    own_manifest["manifests"].append(dict(own_manifest["manifests"][0], manifest_id=NEW_MANIFEST, title="A new source"))
    own_manifest["key_facts"][0]["cites"].append({"manifest_id": NEW_MANIFEST, "claim_ids": [NEW_CLAIM]})
    no_beat = variant(story_doc, 4, beat=None, labels={"trust": "analysis"}, related=[])
    cites_new_manifest = variant(story_doc, 5)  # cites the manifest that line 3 brings, without listing it
    cites_new_manifest["sections"][0]["paragraphs"][0]["cites"].append(
        {"manifest_id": NEW_MANIFEST, "claim_ids": [NEW_CLAIM]}
    )
    return [with_parts, idless, own_manifest, no_beat, cites_new_manifest]


def validated(docs) -> list[tuple[int, dict]]:
    return [(n, desk.validate(json.loads(json.dumps(d)))) for n, d in enumerate(docs, start=1)]


def import_one_by_one(docs) -> dict:
    counts = {"created": 0, "updated": 0, "unchanged": 0}
    for _, doc in validated(docs):
        counts[actions.import_story(doc, restore=True).outcome] += 1
    return counts


def import_in_bulk(docs) -> dict:
    counts = {"created": 0, "updated": 0, "unchanged": 0}
    import_batch(validated(docs), counts, restore=True)
    return counts


AUTO_TIMES = {"created_at", "updated_at"}


def rows() -> dict:
    """Every row of the project's tables, comparable between two imports of the same
    documents: auto-increment ids replaced by their rank in the table (so the order in which
    rows got their ids counts), story ids by ``date/slug`` (an id-less story gets a new id),
    and the times the database stamps left out."""
    story_key = {s.id: f"{s.edition_date}/{s.slug}" for s in Story.objects.all()}
    labels = [m for m in apps.get_models() if m._meta.app_label in ("newsroom", "manifests", "stories")]
    ranks = {}
    for model in labels:
        if isinstance(model._meta.pk, models.AutoField):
            pks = sorted(model._base_manager.values_list("pk", flat=True))
            ranks[model] = {pk: i for i, pk in enumerate(pks)}

    def norm(model, field, value):
        target = field.related_model if field.is_relation else model
        if (field.primary_key or field.is_relation) and target in ranks:
            return ranks[target].get(value, value)
        if target is Story and (field.primary_key or field.is_relation):
            return story_key.get(value, value)
        if isinstance(value, dict) and value.get("schema") == desk.SCHEMA:
            return {**value, "id": story_key.get(value["id"], value["id"])}
        return value

    out = {}
    for model in labels:
        fields = [f for f in model._meta.concrete_fields if f.name not in AUTO_TIMES]
        table = []
        for obj in model._base_manager.all():
            table.append(tuple((f.name, norm(model, f, getattr(obj, f.attname))) for f in fields))
        out[model._meta.label] = sorted(table, key=repr)
    return out


def exports() -> list[str]:
    return sorted(desk.dumps({**desk.export_story(s), "id": None}) for s in Story.objects.with_everything())


def both_ways(docs) -> tuple:
    """(rows, exports, counts) after importing ``docs`` in bulk, then after importing them one
    by one into the same starting database (the first import rolled back)."""
    results = []
    for way in (import_in_bulk, import_one_by_one):
        with transaction.atomic():
            counts = way(docs)
            results.append((rows(), exports(), counts))
            transaction.set_rollback(True)
    return results


@pytest.mark.parametrize("copy_from", [bulk.COPY_FROM, 1], ids=["insert", "copy"])  # COPY: PostgreSQL only
@pytest.mark.parametrize("claims", ["stubs", "imported"])
def test_bulk_and_one_by_one_write_the_same_rows_and_exports(db, story_doc, monkeypatch, copy_from, claims):
    monkeypatch.setattr(bulk, "COPY_FROM", copy_from)
    if claims == "imported":
        import_manifests_document(manifests_document())
    (bulk_rows, bulk_exports, bulk_counts), (single_rows, single_exports, single_counts) = both_ways(
        mixed_docs(story_doc)
    )
    assert bulk_counts == single_counts == {"created": 5, "updated": 0, "unchanged": 0}
    assert bulk_exports == single_exports
    assert bulk_rows == single_rows
    assert len(bulk_rows["stories.Story"]) == 5 and len(bulk_rows["stories.CiteClaim"]) > 100


def test_a_batch_mixing_new_updated_and_unchanged_stories_gives_what_one_by_one_gives(demo, story_doc):
    first = variant(story_doc, 1)
    actions.import_story(desk.validate(json.loads(json.dumps(first))), restore=True)
    seed = story_doc()
    changed = dict(first, headline="A changed headline")
    idless = variant(story_doc, 2)
    del idless["id"]
    docs = [
        seed,
        variant(story_doc, 4),
        changed,
        idless,
        dict(idless, dek="Second version"),
        variant(story_doc, 3),
        variant(story_doc, 5),
    ]
    (bulk_rows, bulk_exports, bulk_counts), (single_rows, single_exports, single_counts) = both_ways(docs)
    assert bulk_counts == single_counts == {"created": 4, "updated": 2, "unchanged": 1}
    assert bulk_exports == single_exports
    assert bulk_rows == single_rows


def test_the_seed_imported_in_bulk_exports_byte_for_byte(manifests_loaded, seed_doc):
    import_in_bulk([seed_doc])
    story = Story.objects.with_everything().get(id="81")
    assert desk.dumps(desk.export_story(story)) == desk.dumps(seed_doc)
    assert story.revisions.get().data == seed_doc


def test_each_revision_is_what_export_gives(db, story_doc):
    import_in_bulk(mixed_docs(story_doc))
    for story in Story.objects.with_everything():
        revision = story.revisions.get()
        assert (revision.version, revision.data) == (1, desk.export_story(story))


stories = st.lists(
    stored, min_size=1, max_size=4, unique_by=(lambda v: v["id"], lambda v: (v["edition"][:10], v["slug"]))
)


@pytest.mark.slow
@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(values=stories, claims=st.booleans())
def test_any_stories_imported_in_bulk_export_as_imported_and_as_their_revisions(db, values, claims):
    docs = [complete(in_spec_order(v), SEED) for v in values]
    with transaction.atomic():
        if claims:
            import_manifests_document(manifests_document())
        assert import_in_bulk(docs)["created"] == len(docs)
        for doc in docs:
            story = Story.objects.with_everything().get(id=doc["id"])
            exported = desk.export_story(story)
            assert desk.dumps(exported, pretty=False) == json.dumps(doc, ensure_ascii=False)
            assert story.revisions.get().data == exported
        transaction.set_rollback(True)


def test_side_effects_of_the_per_story_path_happen_in_bulk(db, story_doc):
    """Revision and audit entry of version 1, fingerprint, the lists generation."""
    docs = mixed_docs(story_doc)
    before = generation("lists")
    import_in_bulk(docs)
    assert generation("lists") != before  # pages listing stories re-render
    assert Story.objects.count() == Revision.objects.count() == StoryFingerprint.objects.count() == 5
    for _, story in zip(validated(docs), Story.objects.order_by("created_at", "id")):
        assert list(story.audit_entries.values_list("action", "version")) == [("restore", 1)]
    for _, doc in validated(docs):
        story = Story.objects.get(edition_date=doc["edition"][:10], slug=doc["slug"])
        assert (story.fingerprint.minhash, story.fingerprint.claim_ids) == fingerprint_of(doc)
        assert story.status == (Story.Status.PUBLISHED if doc["published_at"] else Story.Status.DRAFT)


def test_a_bulk_imported_story_is_seen_by_not_a_repeat(manifests_loaded, story_doc):
    from stories.fingerprints import fingerprint_of as fp
    from stories.minhash import similarity

    import_in_bulk([variant(story_doc, 1)])
    doc = desk.validate(variant(story_doc, 2))
    stored_fp = StoryFingerprint.objects.get(story_id=variant(story_doc, 1)["id"])
    assert similarity(stored_fp.minhash, fp(doc)[0]) > 0.9


def import_queries(docs) -> int:
    with CaptureQueriesContext(connection) as ctx:
        import_in_bulk(docs)
    return len(ctx.captured_queries)


@pytest.mark.parametrize("copy_from", [bulk.COPY_FROM, 1], ids=["insert", "copy"])
def test_queries_per_batch_do_not_grow_with_the_batch(manifests_loaded, story_doc, monkeypatch, copy_from):
    monkeypatch.setattr(bulk, "COPY_FROM", copy_from)
    import_in_bulk([variant(story_doc, 0)])  # warm-up: newsroom, beat, profile, sequence names
    # Each on new editions. (Six seed-sized stories stay under the 999 parameters a SQLite
    # statement may take, past which bulk_create splits its INSERT.)
    small = import_queries([variant(story_doc, n, edition=f"2026-10-20T{n:02d}") for n in (1, 2)])
    big = import_queries([variant(story_doc, n, edition=f"2026-10-{21 + n % 3}T{n:02d}") for n in range(3, 9)])
    # On PostgreSQL 3 of them check the batch's foreign keys: the checks sent while the
    # fingerprints are computed (``send_check_deferred``), then ``check_deferred`` for those.
    assert big == small <= 28


def test_a_bad_document_in_the_middle_of_a_file_leaves_nothing_written(tmp_path, demo, story_doc, monkeypatch):
    from stories.management.commands import import_stories

    monkeypatch.setattr(import_stories, "BATCH_SIZE", 2)  # lines 1-2 and 3-4 written before line 5 is read
    docs = [variant(story_doc, n) for n in range(1, 8)]
    docs[4]["key_facts"][0]["text"] = ""
    path = write_jsonl(tmp_path, docs)
    before = db_state()
    assert_rejected(path, f"{path}: line 5: key_facts[0].text: must not be empty", before=before)


def test_a_reference_error_in_the_middle_of_a_batch_names_its_line_and_leaves_nothing_written(
    tmp_path, demo, story_doc, monkeypatch
):
    from stories.management.commands import import_stories

    monkeypatch.setattr(import_stories, "BATCH_SIZE", 3)
    docs = [variant(story_doc, n) for n in range(1, 6)]
    seed_m1, seed_m2 = "1792067182956183080", "1792043738156041460"
    docs[4]["sections"][1]["paragraphs"][1]["cites"][0]["claim_ids"].append(
        "1792067413462310158"
    )  # SEED_M1's under SEED_M2
    path = write_jsonl(tmp_path, docs)
    before = db_state()
    assert_rejected(
        path,
        f"line 5: sections[1].paragraphs[1].cites[0].claim_ids[3]: claim 1792067413462310158 belongs to manifest {seed_m1}, not {seed_m2}",
        before=before,
    )


def test_the_first_error_in_file_order_is_the_one_reported(tmp_path, demo, story_doc):
    clash = variant(story_doc, 1, slug="agent-training-stack", edition="2026-10-16T07")  # the seed's slug, same day
    path = write_jsonl(tmp_path, [variant(story_doc, 2), clash, "{not json"])
    before = db_state()
    assert_rejected(path, "line 2: slug:", "already used on 2026-10-16 by story 81", before=before)


def test_a_manifest_listed_by_no_document_is_an_error_with_its_line(tmp_path, db, story_doc):
    good = variant(story_doc, 1)
    bad = variant(story_doc, 2)
    bad["key_facts"][1]["cites"].append({"manifest_id": NEW_MANIFEST, "claim_ids": []})
    path = write_jsonl(tmp_path, [good, bad])
    before = db_state()
    assert_rejected(
        path,
        f"line 2: key_facts[1].cites[1].manifest_id: manifest {NEW_MANIFEST} is neither in the database",
        before=before,
    )


def test_a_refused_batch_is_retried_story_by_story(tmp_path, manifests_loaded, story_doc, monkeypatch):
    """When the database refuses a batch as a whole (here: once), the stories go in one by one."""
    from django.db import IntegrityError

    real, calls = action_rows.write_parts, []

    def refuse_the_batch(pairs, **kwargs):
        calls.append(len(pairs))
        if len(pairs) > 1:
            raise IntegrityError("refused")
        return real(pairs, **kwargs)

    monkeypatch.setattr(action_rows, "write_parts", refuse_the_batch)
    out = io.StringIO()
    call_command(
        "import_stories", "--restore", write_jsonl(tmp_path, [variant(story_doc, n) for n in (1, 2, 3)]), stdout=out
    )
    assert "stories: 3 created" in out.getvalue()
    assert calls == [3, 1, 1, 1]
    assert Story.objects.count() == Revision.objects.count() == 3


def test_the_command_output_is_unchanged_by_batching(tmp_path, manifests_loaded, story_doc, monkeypatch):
    from stories.management.commands import import_stories

    docs = [variant(story_doc, n) for n in range(1, 6)]
    path = write_jsonl(tmp_path, docs + [copy.deepcopy(docs[1])])  # the last line: unchanged
    monkeypatch.setattr(import_stories, "BATCH_SIZE", 2)
    out, err = io.StringIO(), io.StringIO()
    call_command("import_stories", "--restore", path, stdout=out, stderr=err)
    assert out.getvalue() == "stories: 5 created, 0 updated, 1 unchanged\n" and err.getvalue() == ""


def _reference_signature(words):
    """minhash.signature as first written, one blake2b digest at a time."""
    from stories import minhash

    mins = [-1] * minhash.BINS
    for sh in (
        {" ".join(words[i : i + 3]) for i in range(len(words) - 2)}
        if len(words) >= 3
        else ({" ".join(words)} if words else set())
    ):
        h = minhash._hash64(sh)
        b, v = h % minhash.BINS, h // minhash.BINS
        if mins[b] == -1 or v < mins[b]:
            mins[b] = v
    if all(m == -1 for m in mins):
        return "00" * minhash.BINS
    values = bytearray(minhash.BINS)
    for b in range(minhash.BINS):
        hop = 0
        while mins[(b + hop) % minhash.BINS] == -1:
            hop += 1
        values[b] = (mins[(b + hop) % minhash.BINS] + hop * minhash._ROTATION_STEP) & 0xFF
    return values.hex()


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(words=st.lists(st.sampled_from(["a", "b", "c", "d", "kw", "x1", "\u00e9t\u00e9"]), max_size=400))
def test_signatures_are_what_they_were(words):
    """Stored fingerprints stay comparable: the faster signature gives the same bytes."""
    from stories import minhash

    assert minhash.signature(words) == _reference_signature(words)


def test_a_shingle_hashed_each_time_it_occurs_leaves_the_signature_as_it_was():
    """The signature hashes every occurrence of a shingle, not the set of them: a text that
    repeats itself still gives the bytes the set gives."""
    from stories import minhash

    once = ["the", "model", "scored", "higher", "than", "the", "baseline", "on", "every", "benchmark"]
    repeated = once * 50
    assert len(list(minhash.each_shingle(repeated))) > 40 * len(minhash.shingles(repeated))
    assert minhash.signature(repeated) == _reference_signature(repeated)
    assert minhash.shingles(repeated) == {" ".join(repeated[i : i + 3]) for i in range(len(repeated) - 2)}
    assert minhash.signature(["only", "two"]) == _reference_signature(["only", "two"])


@pytest.mark.parametrize("size", [0, 1, 2, 3, 40, 200, 2000])
def test_signatures_of_texts_short_and_long_are_what_they_were(story_doc, size):
    """Short texts leave bins empty (their values borrowed from a neighbour); a long text
    fills every bin: both give the signature as first written, and so does the seed story."""
    from stories import desk, minhash
    from stories.fingerprints import story_text
    from stories.text import words

    text = [f"w{i}" for i in range(size)]
    assert minhash.signature(text) == _reference_signature(text)
    filled = len({minhash._hash64(sh) % minhash.BINS for sh in minhash.shingles(text)})
    assert (filled == minhash.BINS) == (size == 2000)
    seed = words(story_text(desk.validate(story_doc())))
    assert minhash.signature(seed) == _reference_signature(seed)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(text=st.text(st.sampled_from("aZ09 .-_*\n\u0130\u212a\u00e9K")) | st.text())
def test_words_are_what_they_were(text):
    from stories.text import _WORD, words

    assert words(text) == [w.lower() for w in _WORD.findall(text)]


@pytest.mark.parametrize("copy_from", [bulk.COPY_FROM, 1], ids=["insert", "copy"])
def test_bulk_insert_raises_djangos_integrity_error(db, monkeypatch, copy_from):
    """What desk_bulk catches to retry a refused batch story by story."""
    import datetime as dt

    from django.db import IntegrityError

    from newsroom.models import Edition

    monkeypatch.setattr(bulk, "COPY_FROM", copy_from)
    hour = dt.datetime(2026, 10, 16, 7, tzinfo=dt.UTC)
    with pytest.raises(IntegrityError), transaction.atomic():
        bulk.bulk_insert(
            Edition, [Edition(id="2026-10-16T07", starts_at=hour), Edition(id="2026-10-16T07", starts_at=hour)]
        )
    assert not Edition.objects.exists()


@pytest.mark.parametrize("copy_from", [bulk.COPY_FROM, 1], ids=["insert", "copy"])
def test_bulk_insert_rows_writes_tuples_and_returns_their_ids_in_order(demo, monkeypatch, copy_from):
    from stories.models import Section

    monkeypatch.setattr(bulk, "COPY_FROM", copy_from)
    ids = bulk.bulk_insert_rows(
        Section, ("story_id", "position", "heading"), [(demo.pk, 7, "One"), (demo.pk, 8, "Two")]
    )
    assert list(Section.objects.filter(pk__in=ids).order_by("pk").values_list("pk", "position", "heading")) == [
        (ids[0], 7, "One"),
        (ids[1], 8, "Two"),
    ]
    assert bulk.bulk_insert_rows(Section, ("story_id", "position", "heading"), [], ids=True) == []
    with pytest.raises(ValueError, match="must give every field but the id"):
        bulk.bulk_insert_rows(Section, ("story_id", "heading"), [(demo.pk, "No position")])
    rows = [(demo.pk, 9, "Kept back"), (demo.pk, 10, None)]  # a heading is required
    with pytest.raises(IntegrityError), transaction.atomic():
        bulk.bulk_insert_rows(Section, ("story_id", "position", "heading"), rows, ids=False)
    assert not Section.objects.filter(heading="Kept back").exists()


def test_any_of_selects_what_the_list_selects_with_one_parameter_on_postgresql(demo):
    ids = [demo.pk, "no-such-story", demo.pk]
    with CaptureQueriesContext(connection) as ctx:
        found = list(Story.objects.filter(id__in=bulk.any_of(ids)).values_list("id", flat=True))
        assert list(Story.objects.filter(id__in=bulk.any_of([])).values_list("id", flat=True)) == []
    assert found == list(Story.objects.filter(id__in=ids).values_list("id", flat=True)) == [demo.pk]
    if connection.vendor == "postgresql":
        assert "unnest" in ctx.captured_queries[0]["sql"]


def test_bulk_update_rows_sets_each_rows_own_values_in_one_statement(demo):
    """On PostgreSQL one UPDATE … FROM unnest(…); elsewhere bulk_update: the same rows after."""
    import datetime as dt

    first = dt.datetime(2026, 10, 16, 8, tzinfo=dt.UTC)
    stories = [demo, Story.objects.create(id="990", slug="other", edition_id=demo.edition_id, newsroom=demo.newsroom)]
    stories[0].headline, stories[0].version, stories[0].scheduled_for = "A new headline", 7, None
    stories[1].headline, stories[1].version, stories[1].scheduled_for = "Its own", 3, first
    stories[1].status = Story.Status.SCHEDULED
    with CaptureQueriesContext(connection) as ctx:
        bulk.bulk_update_rows(Story, stories, ["headline", "version", "scheduled_for", "status"])
    assert len([q for q in ctx.captured_queries if q["sql"].startswith("UPDATE")]) == 1
    rows = Story.objects.filter(id__in=["81", "990"]).order_by("id")
    assert list(rows.values_list("id", "headline", "version", "scheduled_for", "status")) == [
        ("81", "A new headline", 7, None, Story.Status.PUBLISHED),
        ("990", "Its own", 3, first, Story.Status.SCHEDULED),
    ]


def test_revisions_are_stored_with_lz4_on_postgresql(demo):
    """Revisions' documents, the one large value of a story, use lz4 on a PostgreSQL that has
    it: its stored value of the demo story's revision says so."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's column compression")
    with connection.cursor() as cursor:
        cursor.execute("SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'")
        if not cursor.fetchone()[0]:
            pytest.skip("this PostgreSQL was built without lz4")
        cursor.execute(
            "SELECT pg_column_compression(data) FROM stories_revision WHERE story_id = %s AND length(data) > 8000",
            [demo.pk],
        )
        assert {row[0] for row in cursor.fetchall()} == {"lz4"}


def test_few_collections_raises_the_youngest_threshold_and_restores_all():
    import gc

    from newsroom.infra.bulk import few_collections

    before = gc.get_threshold()
    with few_collections(12_345):
        assert gc.get_threshold() == (12_345, *before[1:])
    assert gc.get_threshold() == before
    with pytest.raises(RuntimeError), few_collections(999):
        raise RuntimeError("a failed import")
    assert gc.get_threshold() == before


def test_an_import_runs_with_few_collections(tmp_path, story_doc, monkeypatch):
    """The file is imported with the collector's youngest threshold raised, and restored."""
    import gc

    from newsroom.infra.bulk import FEW_COLLECTIONS
    from stories import actions
    from tests.seed import SEED_MANIFESTS

    call_command("import_manifests", str(SEED_MANIFESTS), stdout=io.StringIO())
    seen, real = [], actions.Importer.add
    monkeypatch.setattr(actions.Importer, "add", lambda *a, **kw: seen.append(gc.get_threshold()) or real(*a, **kw))
    before = gc.get_threshold()
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(story_doc(id="990", slug="gc-1")) + "\n", encoding="utf-8")
    call_command("import_stories", str(path), stdout=io.StringIO(), stderr=io.StringIO())
    assert seen and all(t[0] == FEW_COLLECTIONS > 700 and t[1:] == before[1:] for t in seen)
    assert gc.get_threshold() == before
