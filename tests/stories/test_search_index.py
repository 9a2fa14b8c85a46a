"""Search reads a stored, GIN-indexed document of each published story (``StorySearch``),
which the commit step keeps: it finds what the on-the-fly vector found, follows every action
that changes what readers see (publish, publish changes, unpublish), and never reads the
paragraphs. PostgreSQL only: elsewhere search reads the text itself."""

import importlib

import pytest
from django.contrib.postgres.aggregates import StringAgg
from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector
from django.db import connection, models
from django.db.models.functions import Coalesce
from django.test.utils import CaptureQueriesContext

from stories import actions, search_index
from stories.actions import drafts
from stories.models import Paragraph, Story, StorySearch
from tests.public.helpers import import_seed_story

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the stored search document is PostgreSQL's"),
]

QUERIES = ["agent", "optimizers", "freight Rotterdam", "programmatic tool calling", "-agent freight", '"pass rate"']


def on_the_fly(query: str) -> list[tuple[str, float]]:
    """What search answered before the stored document: the vector built from the rows for
    every story at every search."""
    body = (
        Paragraph.objects.filter(section__story=models.OuterRef("pk"))
        .order_by()
        .values("section__story")
        .annotate(text=StringAgg("markdown", delimiter=" "))
        .values("text")
    )
    vector = (
        SearchVector("headline", weight="A", config="english")
        + SearchVector("dek", weight="B", config="english")
        + SearchVector(
            Coalesce(models.Subquery(body), models.Value(""), output_field=models.TextField()),
            weight="C",
            config="english",
        )
    )
    search = SearchQuery(query, search_type="websearch", config="english")
    rows = (
        Story.objects.published()
        .annotate(document=vector)
        .filter(document=search)
        .annotate(rank=SearchRank(models.F("document"), search))
        .order_by("-rank", "-published_at", "-id")
        .values_list("id", "rank")
    )
    return [(pk, round(rank, 5)) for pk, rank in rows]


def stored(query: str) -> list[tuple[str, float]]:
    rows = Story.objects.published().search(query).values_list("id", "search_rank")
    return [(pk, round(rank, 5)) for pk, rank in rows]


@pytest.fixture
def archive(demo, seed_doc):
    """The demo story and a few more, imported (and so published) through the import action."""
    import_seed_story(
        seed_doc,
        id="950",
        slug="freight-story",
        headline="Trains, scheduled",
        dek="Logistics news.",
        published_at="2026-10-17T01:00:00Z",
        edition="2026-10-17T01",
        sections=[
            {
                "heading": "Rail",
                "paragraphs": [
                    {
                        "markdown": "Quantum annealers schedule freight trains in Rotterdam.",
                        "cites": seed_doc["sections"][0]["paragraphs"][0]["cites"],
                    }
                ],
            }
        ],
    )
    for i in range(3):
        import_seed_story(
            seed_doc,
            id=f"96{i}",
            slug=f"agent-{i}",
            headline=f"Agent tools, part {i}",
            paragraphs=i + 1,
            published_at=f"2026-10-18T0{i}:00:00Z",
            edition=f"2026-10-18T0{i}",
        )
    import_seed_story(seed_doc, id="970", slug="a-draft", published_at=None, edition="2026-10-19T00")
    return demo


def test_every_published_story_has_its_document_and_drafts_have_none(archive):
    published = set(Story.objects.published().values_list("id", flat=True))
    assert set(StorySearch.objects.values_list("story_id", flat=True)) == published
    assert "970" not in published


@pytest.mark.parametrize("query", QUERIES)
def test_the_stored_document_finds_and_ranks_what_the_rows_do(archive, query):
    assert stored(query) == on_the_fly(query)


def test_a_search_reads_the_index_not_the_paragraphs(archive):
    with CaptureQueriesContext(connection) as queries:
        assert stored("freight")
    sql = " ".join(q["sql"] for q in queries.captured_queries)
    assert Paragraph._meta.db_table not in sql


def test_published_changes_are_what_search_finds(archive, editor):
    draft = drafts.start_changes(story=archive, user=editor)
    paragraph = Paragraph.objects.filter(section__story=draft).order_by("section__position", "position").first()
    paragraph.markdown = paragraph.markdown + " Zeppelins were not involved."
    paragraph.save()
    actions.save_story(story=draft, user=editor, write=lambda: None)
    assert stored("zeppelins") == []  # pending changes are not what readers read
    drafts.publish_changes(draft=draft, user=editor, override_reason="Checked by the desk.")
    assert [pk for pk, _ in stored("zeppelins")] == [archive.pk]
    assert stored("zeppelins") == on_the_fly("zeppelins")


def test_an_unpublished_story_is_no_longer_found_and_its_document_goes(archive, editor):
    actions.unpublish_story(story=Story.objects.get(pk="950"), user=editor, reason="Withdrawn.")
    assert stored("Rotterdam") == []
    assert not StorySearch.objects.filter(story_id="950").exists()


def test_refresh_all_and_the_migration_write_the_documents_the_commit_step_writes(archive):
    kept = {s.story_id: s.document for s in StorySearch.objects.all()}
    StorySearch.objects.all().delete()
    assert search_index.refresh_all(batch=2) == len(kept)
    assert {s.story_id: s.document for s in StorySearch.objects.all()} == kept
    StorySearch.objects.all().delete()
    migration = importlib.import_module("stories.migrations.0012_story_search_documents")
    with connection.cursor() as cursor:
        cursor.execute(migration.BACKFILL)
    assert {s.story_id: s.document for s in StorySearch.objects.all()} == kept


def _plan_rows(node) -> int:
    """The rows every node of a plan produced, over all its loops."""
    own = node.get("Actual Rows", 0) * node.get("Actual Loops", 1)
    return own + sum(_plan_rows(child) for child in node.get("Plans", []))


def test_refreshing_a_batch_reads_each_story_s_body_once(demo, seed_doc):
    """A batch's documents are written in one statement whose work grows with the batch, not
    with its square: each story's paragraphs are read and joined once, whatever the planner
    estimates for rows it has not analysed yet."""
    for i in range(60):
        import_seed_story(seed_doc, id=f"8{i:02}", slug=f"batch-{i}", paragraphs=3, edition="2026-10-18T00")
    ids = [f"8{i:02}" for i in range(60)]
    read = Paragraph.objects.filter(section__story__in=ids).count() + len(ids) * 2  # paragraphs, sections, stories
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + search_index._sql(), {"ids": ids})
        plan = cursor.fetchone()[0][0]["Plan"]
    assert _plan_rows(plan) <= 4 * read
    assert StorySearch.objects.filter(story_id__in=ids).count() == len(ids)


def test_a_bulk_import_sends_each_run_s_documents_without_waiting(tmp_path, demo, story_doc, monkeypatch):
    """Each run's search documents are one statement sent without waiting (the import reads
    and renders what comes next meanwhile), received before the next statement: the
    documents are those the commit step writes one story at a time."""
    import io

    from django.core.management import call_command

    from newsroom.infra import inflight
    from stories.actions import imports
    from tests.stories.documents import variant, write_jsonl

    monkeypatch.setattr(imports, "RUN_SIZE", 2)
    sent, send = [], inflight.send

    def sending(sql, params, **kwargs):
        if StorySearch._meta.db_table in sql:  # the run's foreign-key checks are sent too
            sent.append(params)
        return send(sql, params, **kwargs)

    monkeypatch.setattr(inflight, "send", sending)
    docs = [variant(story_doc, n, newsroom=f"search-desk-{n}") for n in range(5)]
    call_command("import_stories", write_jsonl(tmp_path, docs), stdout=io.StringIO(), stderr=io.StringIO())
    ids = [d["id"] for d in docs]
    assert Story.objects.filter(pk__in=ids, status=Story.Status.PUBLISHED).count() == 5
    # three runs (2, 2, 1), each run's documents sent once, in file order
    assert [params[0] for params in sent] == ['{"' + '","'.join(ids[i : i + 2]) + '"}' for i in (0, 2, 4)]
    bulk = {s.story_id: s.document for s in StorySearch.objects.filter(story_id__in=ids)}
    StorySearch.objects.filter(story_id__in=ids).delete()
    search_index.refresh(ids)
    assert {s.story_id: s.document for s in StorySearch.objects.filter(story_id__in=ids)} == bulk
    assert len(bulk) == 5


def test_a_run_s_documents_that_fail_fail_the_import_and_nothing_is_written(tmp_path, demo, story_doc, monkeypatch):
    import io

    from django.core.management import call_command

    from stories.actions import imports
    from tests.stories.documents import db_state, variant, write_jsonl

    monkeypatch.setattr(imports, "RUN_SIZE", 2)
    monkeypatch.setattr(search_index, "_sql", lambda: "SELECT 1 / (cardinality(%(ids)s) - cardinality(%(ids)s))")
    before = db_state()
    docs = [variant(story_doc, n, newsroom=f"search-desk-{n}") for n in range(3)]
    with pytest.raises(Exception, match="division by zero"):
        call_command("import_stories", write_jsonl(tmp_path, docs), stdout=io.StringIO(), stderr=io.StringIO())
    assert db_state() == before
