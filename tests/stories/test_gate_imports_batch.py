"""New stories of an import file published after their batch is written: the published
revision is rendered from the written document (no reload of the story's graph) and equals
what the story exports as; the audit, the publication record, the fingerprint, the webhook
payload and the rubric are those of a story published on its own."""

import contextlib
import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from stories import desk
from stories.actions import imports, publish_story
from stories.checks import run_checks
from stories.fingerprints import fingerprint_of
from stories.models import AuditEntry, CheckResult, Revision, Story, StoryFingerprint
from syndication.models import Partner, WebhookDelivery, WebhookEndpoint
from syndication.webhooks import story_summary
from tests.seed import SEED_MANIFESTS

pytestmark = pytest.mark.django_db


def write(tmp_path, docs):
    path = tmp_path / "stories.jsonl"
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
    return path


def docs_for(story_doc):
    # Each in a newsroom of its own, so none is a repeat of another; the last is refused.
    docs = [story_doc(id=str(900 + i), slug=f"story-{i}", newsroom=f"desk-{i}") for i in range(3)]
    docs[1]["beat"] = None
    refused = story_doc(id="950", slug="uncited", newsroom="desk-9")
    refused["sections"][1]["paragraphs"][0]["cites"] = []
    return [*docs, refused]


def summary(payload: str) -> dict:
    return json.loads(payload)["story"]


def test_published_revision_equals_the_export(tmp_path, story_doc):
    call_command("import_manifests", str(SEED_MANIFESTS), stdout=io.StringIO())
    partner = Partner.objects.create(name="Wire Co", slug="wire-co", contact="ops@wire.example")
    WebhookEndpoint.objects.create(partner=partner, url="https://wire.example/hook", events=["story.published"])
    with pytest.raises(CommandError, match="the checks failed"):
        call_command(
            "import_stories", str(write(tmp_path, docs_for(story_doc))), stdout=io.StringIO(), stderr=io.StringIO()
        )
    for pk in ("900", "901", "902"):
        story = Story.objects.with_everything().get(pk=pk)
        assert (story.status, story.version) == (Story.Status.PUBLISHED, 2)
        exported = desk.export_story(story)
        published = Revision.objects.get(story=story, version=2).data
        assert json.dumps(published) == json.dumps(exported)  # in desk/1's key order too
        assert Revision.objects.get(story=story, version=1).data["published_at"] is None
        audit = AuditEntry.objects.get(story=story, version=2)
        assert audit.action == "publish" and audit.details["passed"] is True
        checked = CheckResult.objects.get(story=story, version=1)
        assert checked.rubric == run_checks(desk.validate({**exported, "published_at": None}), exclude_story_id=pk)
        fp = StoryFingerprint.objects.get(story=story)
        assert [fp.minhash, fp.claim_ids] == list(fingerprint_of(desk.validate(exported)))
        delivery = WebhookDelivery.objects.get(story_id=pk, event="story.published")
        assert summary(delivery.payload) == story_summary(story)
    refused = Story.objects.get(pk="950")
    assert (refused.status, refused.version) == (Story.Status.DRAFT, 1)
    assert not WebhookDelivery.objects.filter(story_id="950").exists()


def test_published_revisions_are_stored_from_the_written_texts(tmp_path, story_doc, monkeypatch):
    """The published revision is stored as the text of the revision written, with its
    publication time and disclosure replaced: byte for byte what serialising it gives,
    without serialising it whole again."""
    from newsroom.fields import JSONText, OrderedJSONField

    call_command("import_manifests", str(SEED_MANIFESTS), stdout=io.StringIO())
    stored_as_text = []
    prep = OrderedJSONField.get_prep_value

    def recording(self, value):
        if self.model is Revision:
            stored_as_text.append(type(value) is JSONText)
        return prep(self, value)

    monkeypatch.setattr(OrderedJSONField, "get_prep_value", recording)
    docs = [story_doc(id=str(960 + i), slug=f"texts-{i}", newsroom=f"desk-t{i}") for i in range(3)]
    call_command("import_stories", str(write(tmp_path, docs)), stdout=io.StringIO())
    assert stored_as_text == [True] * 6  # versions 1 and 2 of each
    for doc in docs:
        with connection.cursor() as cursor:
            cursor.execute("SELECT data FROM stories_revision WHERE story_id = %s AND version = 2", [doc["id"]])
            raw = cursor.fetchone()[0]
        story = Story.objects.with_everything().get(pk=doc["id"])
        assert story.status == Story.Status.PUBLISHED
        assert raw == json.dumps(desk.export_story(story), ensure_ascii=False)


def test_a_changed_headline_refreshes_the_fingerprint(tmp_path, story_doc):
    """A row change of a story written in bulk that touches its wording (none of the import's
    own: publishing changes no text) stores the new fingerprint, as ``commit`` does."""
    from stories.actions.commit import commit, written_in_bulk

    call_command("import_manifests", str(SEED_MANIFESTS), stdout=io.StringIO())
    doc = desk.validate({**story_doc(id="940", slug="reworded", newsroom="desk-x"), "published_at": None})
    with transaction.atomic():
        _, written = imports.write_new(
            [(1, doc)], desk.resolve_batch_references([(1, doc)]), user=None, action="import"
        )
        story = Story.objects.get(pk="940")
        story.headline = "An entirely different headline about something else"
        with written_in_bulk(written):
            commit(story, action="edit")
    stored = StoryFingerprint.objects.get(story_id="940")
    data = Revision.objects.get(story_id="940", version=2).data
    assert data["headline"] == story.headline
    assert data == desk.export_story(Story.objects.with_everything().get(pk="940"))
    assert [stored.minhash, stored.claim_ids] == list(fingerprint_of(desk.validate(data)))


def test_the_same_as_publishing_one_by_one(tmp_path, story_doc):
    """The bulk path's published revision equals the one ``publish_story`` stores for the
    same document imported as a draft and published through the desk's path."""
    call_command("import_manifests", str(SEED_MANIFESTS), stdout=io.StringIO())
    docs = docs_for(story_doc)[:3]
    call_command("import_stories", str(write(tmp_path, docs)), stdout=io.StringIO(), stderr=io.StringIO())
    bulk = {pk: Revision.objects.get(story_id=pk, version=2).data for pk in ("900", "901", "902")}
    Story.objects.all().delete()
    for doc in docs:
        call_command(
            "import_stories",
            str(write(tmp_path, [{**doc, "published_at": None}])),
            stdout=io.StringIO(),
            stderr=io.StringIO(),
        )
        story = Story.objects.get(pk=doc["id"])
        story.published_at = None
        publish_story(story=story, at=desk.validate(doc)["published_at"])
    for pk, data in bulk.items():
        assert Revision.objects.get(story_id=pk, version=2).data == data


def faulty_docs(story_doc) -> list[dict]:
    """Clean stories and stories with planted faults, in newsrooms of their own unless the
    fault is a repeat: of the demo's published story, and of a story earlier in the file."""
    docs = {
        name: story_doc(id=str(910 + i), slug=name, newsroom=f"desk-{name}")
        for i, name in enumerate(["clean", "figure", "uncited", "unknown-claim", "old-manifest", "clean-2"])
    }
    para = docs["figure"]["sections"][0]["paragraphs"][0]
    para["markdown"] += " Adoption rose by 93.7% in a quarter."
    docs["uncited"]["sections"][1]["paragraphs"][0]["cites"] = []
    # A claim known by id only (a stub), under a manifest the story itself adds
    unknown = docs["unknown-claim"]
    unknown["manifests"].append({**unknown["manifests"][0], "manifest_id": "1799999999999999000", "title": "New"})
    unknown["key_facts"][0]["cites"].append(
        {"manifest_id": "1799999999999999000", "claim_ids": ["1799999999999999999"]}
    )
    docs["old-manifest"]["edition"] = "2026-11-20T10"
    docs["old-manifest"]["published_at"] = "2026-11-20T10:30:00Z"
    repeat_of_81 = story_doc(id="920", slug="repeat-of-the-demo")  # the demo story's newsroom and text
    repeat_in_file = story_doc(id="921", slug="repeat-in-file", newsroom="desk-clean")
    repeat_in_file["edition"] = "2026-10-16T05"
    return [*docs.values(), repeat_of_81, repeat_in_file]


def rubrics(tmp_path, docs) -> dict[str, dict]:
    with pytest.raises(CommandError, match="the checks failed"):
        call_command("import_stories", str(write(tmp_path, docs)), stdout=io.StringIO(), stderr=io.StringIO())
    found = {r.story_id: r.rubric for r in CheckResult.objects.filter(story_id__in=[d["id"] for d in docs])}
    found["published"] = sorted(
        Story.objects.filter(id__in=[d["id"] for d in docs], status=Story.Status.PUBLISHED).values_list("id", flat=True)
    )
    return found


def test_rubrics_checked_per_batch_equal_those_checked_one_at_a_time(tmp_path, demo, story_doc, monkeypatch):
    docs = faulty_docs(story_doc)
    batched = rubrics(tmp_path, docs)
    Story.objects.exclude(pk=demo.pk).delete()
    monkeypatch.setattr(imports, "batch_reads", lambda reads: contextlib.nullcontext(reads))
    alone = rubrics(tmp_path, docs)
    assert batched == alone
    assert batched["published"] == ["910", "915"]
    failed = {
        pk: [c["name"] for c in r["criteria"] if not c["passed"]] for pk, r in batched.items() if pk != "published"
    }
    assert failed == {
        "910": [],
        "911": ["claims_support"],
        "912": ["paragraphs_cited"],
        "913": ["claims_support"],  # imported as a stub claim: no text to support anything
        "914": ["manifests_recent"],
        "915": [],
        "920": ["not_a_repeat"],
        "921": ["not_a_repeat"],
    }
    repeat = next(c for c in batched["921"]["criteria"] if c["name"] == "not_a_repeat")
    assert [f["story_id"] for f in repeat["findings"]] == ["910"]


def test_a_batch_reads_its_sources_and_candidates_once(tmp_path, story_doc):
    call_command("import_manifests", str(SEED_MANIFESTS), stdout=io.StringIO())
    docs = [story_doc(id=str(930 + i), slug=f"s-{i}", newsroom=f"desk-{i}") for i in range(6)]
    path = write(tmp_path, docs)
    with CaptureQueriesContext(connection) as ctx:
        call_command("import_stories", str(path), stdout=io.StringIO(), stderr=io.StringIO())
    queries = [q["sql"] for q in ctx.captured_queries]
    assert Story.objects.filter(status=Story.Status.PUBLISHED).count() == 6
    # one read of the cited claims for the whole run: the references, the bulk writer's
    # flags and the checks share it
    claim_reads = [q for q in queries if q.startswith("SELECT") and 'FROM "manifests_claim"' in q]
    assert len(claim_reads) == 1, claim_reads
    assert not [q for q in queries if "CASE WHEN" in q and "stories_storyfingerprint" in q]


def test_each_story_is_fingerprinted_once(tmp_path, story_doc, monkeypatch):
    """The bulk writer's fingerprint and ``not_a_repeat``'s of the published revision are of
    the same revision: its text is read and signed once, and the signature is the one
    computed afresh."""
    from stories import fingerprints, minhash

    call_command("import_manifests", str(SEED_MANIFESTS), stdout=io.StringIO())
    docs = [story_doc(id=str(940 + i), slug=f"f-{i}", newsroom=f"desk-{i}") for i in range(4)]
    for i, doc in enumerate(docs):
        doc["headline"] = f"{doc['headline']} ({i + 1} of 4)"
    signed = []
    signature = minhash.signature
    monkeypatch.setattr(minhash, "signature", lambda words: signed.append(words) or signature(words))
    read, story_text = [], fingerprints.story_text
    monkeypatch.setattr(fingerprints, "story_text", lambda doc: read.append(doc["id"]) or story_text(doc))
    fingerprints._memo.clear()
    call_command("import_stories", str(write(tmp_path, docs)), stdout=io.StringIO(), stderr=io.StringIO())
    assert Story.objects.filter(status=Story.Status.PUBLISHED, id__in=[d["id"] for d in docs]).count() == 4
    assert len(signed) == 4
    assert sorted(read) == sorted(d["id"] for d in docs)
    monkeypatch.setattr(minhash, "signature", signature)
    fingerprints._memo.clear()
    for doc in docs:
        stored = StoryFingerprint.objects.get(story_id=doc["id"])
        exported = Revision.objects.get(story_id=doc["id"], version=2).data
        assert [stored.minhash, stored.claim_ids] == list(fingerprint_of(desk.validate(exported)))


def test_each_story_is_rendered_once_and_published_from_that_revision(tmp_path, story_doc, monkeypatch):
    """Publishing a story just written changes only its publication: its published revision
    is the written one with its publication time and disclosure, not rendered again, and
    equals the export (``test_published_revision_equals_the_export``)."""
    from stories.actions import bulk

    call_command("import_manifests", str(SEED_MANIFESTS), stdout=io.StringIO())
    docs = [story_doc(id=str(960 + i), slug=f"r-{i}", newsroom=f"desk-{i}") for i in range(3)]
    rendered, published = [], []
    render, with_publication = desk.render, desk.with_publication
    counted = lambda *a, **kw: rendered.append(a[0]["id"]) or render(*a, **kw)  # noqa: E731
    monkeypatch.setattr(desk, "render", counted)  # what the publish would render with
    monkeypatch.setattr(bulk, "render", counted)  # the bulk writer's
    monkeypatch.setattr(
        desk, "with_publication", lambda r, **kw: published.append(r["id"]) or with_publication(r, **kw)
    )
    call_command("import_stories", str(write(tmp_path, docs)), stdout=io.StringIO(), stderr=io.StringIO())
    ids = [d["id"] for d in docs]
    assert Story.objects.filter(status=Story.Status.PUBLISHED, id__in=ids).count() == 3
    assert sorted(rendered) == sorted(published) == ids


def empty_reads(batch_reads):
    """A batch of reads of no documents, its candidates loaded (none yet): the tests add them."""
    reads = batch_reads([], set(), claims={})
    reads.by_hour = {}
    reads.newsrooms, reads.new_ids, reads.low, reads.high = {"desk", "other"}, {"s-7"}, "2026-01-01T00", "2026-12-31T23"
    return reads


def window_rows(candidates, ours: set, start: str, end: str, *, excluded: str) -> list[tuple]:
    """The rows ``repeat_candidates`` gives for a story of "desk" whose window is ``start`` to
    ``end``, found by filtering every candidate: claim ids only where one is ``ours``."""
    return [
        (sid, sig, claims if ours & set(json.loads(claims)) else "")
        for sid, room, edition, sig, claims in candidates
        if room == "desk" and start <= edition <= end and sid != excluded
    ]


@pytest.mark.parametrize("window", [24, 5000], ids=["hour-by-hour", "longer-than-the-candidates"])
def test_a_batchs_repeat_candidates_are_those_of_the_window_in_order(settings, window):
    """``repeat_candidates`` reads a story's window from the candidates by hour: the same
    rows, in the same order, as filtering every candidate; claim ids only for those sharing
    one of the story's claims; the story's own id and other newsrooms left out."""
    import datetime as dt
    import types

    from stories.checks.batch import BatchReads

    settings.CHECKS_REPEAT_WINDOW_HOURS = window
    reads = empty_reads(BatchReads)
    first = dt.datetime(2026, 10, 1, tzinfo=dt.UTC)
    candidates = []
    for i in range(300):  # every third hour, newest last; some in another newsroom
        edition = (first + dt.timedelta(hours=(i * 7) % 200)).strftime("%Y-%m-%dT%H")
        room = "other" if i % 5 == 0 else "desk"
        claims = json.dumps([f"c{i % 11}", f"c{i % 13 + 100}"])
        candidates.append((f"s-{i}", room, edition, f"sig{i}", claims))
        reads._add(*candidates[-1])
    end = (first + dt.timedelta(hours=150)).strftime("%Y-%m-%dT%H")
    start = (first + dt.timedelta(hours=150 - window)).strftime("%Y-%m-%dT%H")
    ctx = types.SimpleNamespace(doc={"newsroom": "desk", "edition": end}, excluded_ids={"s-7"})
    ours = {"c3", "c104"}
    expected = window_rows(candidates, ours, start, end, excluded="s-7")
    assert expected and any(c for _, _, c in expected) and any(not c for _, _, c in expected)
    assert reads.repeat_candidates(ctx, sorted(ours)) == expected


@pytest.mark.parametrize("limit", [0.6, 0.3, 0.0, 1.01], ids=["default", "lower", "zero", "unreachable"])
def test_given_a_signature_a_batch_returns_the_candidates_that_can_repeat_it(settings, limit):
    """With the story's signature, ``repeat_candidates`` keeps, in order, exactly the rows of
    the window that share a claim or whose text similarity reaches the limit (found by the
    bins they agree on): around the limit's count of equal bins, in another newsroom,
    outside the window, the story's own id, and malformed signatures."""
    import datetime as dt
    import random
    import types

    from stories import minhash
    from stories.checks.batch import BatchReads

    settings.CHECKS_REPEAT_WINDOW_HOURS = 72
    settings.CHECKS_REPEAT_SIMILARITY = limit
    reads = empty_reads(BatchReads)
    rng = random.Random(7)
    own = bytes(rng.randrange(256) for _ in range(minhash.BINS))

    def agreeing(n: int) -> str:  # a signature equal to ours in exactly n bins
        other = bytearray((v + 1 + rng.randrange(255)) % 256 for v in own)
        for b in rng.sample(range(minhash.BINS), n):
            other[b] = own[b]
        return other.hex()

    needed = minhash.equal_bins_needed(0.6)
    first = dt.datetime(2026, 10, 1, tzinfo=dt.UTC)
    candidates = []
    for i in range(240):
        edition = (first + dt.timedelta(hours=i % 100)).strftime("%Y-%m-%dT%H")
        room = "other" if i % 7 == 0 else "desk"
        sig = agreeing([0, 1, 3, needed - 1, needed, needed + 1, 100, 128, 40, 60][i % 10])
        if i % 23 == 0:
            sig = "zz" + sig[2:] if i % 2 else sig[:-2]  # not hex; too short
        claims = json.dumps([f"c{i % 17}"])
        candidates.append((f"s-{i}", room, edition, sig, claims))
        reads._add(*candidates[-1])
    end = (first + dt.timedelta(hours=90)).strftime("%Y-%m-%dT%H")
    start = (first + dt.timedelta(hours=90 - 72)).strftime("%Y-%m-%dT%H")
    reads.new_ids = {"s-25"}  # in the window, and agreeing in more bins than the limit needs
    ctx = types.SimpleNamespace(doc={"newsroom": "desk", "edition": end}, excluded_ids={"s-25"})
    ours = {"c3", "c5"}
    window = window_rows(candidates, ours, start, end, excluded="s-25")
    assert minhash.similarity(own.hex(), candidates[25][3]) >= 0.6 and start <= candidates[25][2] <= end
    can_repeat = [row for row in window if row[2] or minhash.similarity(own.hex(), row[1]) >= limit]
    assert reads.repeat_candidates(ctx, sorted(ours)) == window  # without the signature, every row
    assert reads.repeat_candidates(ctx, sorted(ours), own.hex()) == can_repeat
    sims = [minhash.similarity(own.hex(), row[1]) for row in window]
    if limit == 0.6:  # rows on both sides of the limit, by text alone, are in the window
        assert 0 < len(can_repeat) < len(window)
        assert any(s >= limit for s, row in zip(sims, window) if not row[2])
        assert any(0.5 < s < limit for s, row in zip(sims, window) if not row[2])
    if limit == 0.0:
        assert can_repeat == window
    if limit > 1:
        assert can_repeat == [row for row in window if row[2]] != []
