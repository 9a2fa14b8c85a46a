"""What an import keeps of the stories the checks refuse to publish: a small record each
(line, story id, score, failing criteria), not the rubric and the model instances, so that
a file of many refused stories runs in flat memory; the command reports each as before."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from stories.actions import Refused
from stories.management.commands.import_stories import import_file
from stories.models import CheckResult, Story
from tests.seed import SEED_MANIFESTS
from tests.stories.helpers import failing
from tests.stories.test_gate_imports_batch import write

pytestmark = pytest.mark.django_db


def uncited(story_doc, **fields) -> dict:
    doc = story_doc(**fields)
    doc["sections"][1]["paragraphs"][0]["cites"] = []
    return doc


@pytest.fixture
def manifests():
    call_command("import_manifests", str(SEED_MANIFESTS), stdout=io.StringIO())


def test_refused_stories_are_kept_as_small_records(tmp_path, story_doc, manifests):
    docs = [
        story_doc(id="980", slug="passes", newsroom="desk-0"),
        uncited(story_doc, id="981", slug="refused-new", newsroom="desk-1"),
        uncited(story_doc, id="982", slug="refused-too", newsroom="desk-2"),
    ]
    refused: list = []
    counts = import_file(write(tmp_path, docs), refused=refused)

    assert counts["created"] == 3
    assert [(r.line, r.story_id) for r in refused] == [(2, "981"), (3, "982")]
    for record in refused:
        assert type(record) is Refused
        stored = CheckResult.objects.get(story_id=record.story_id, version=1)
        assert record.score == stored.score < 1 and list(record.failing) == failing(stored.rubric)
        assert "paragraphs_cited" in record.failing
        # plain values only: nothing that holds a rubric or a model instance
        assert all(type(v) in (int, str, float, tuple) for v in record)
        assert all(type(name) is str for name in record.failing)
    assert Story.objects.get(pk="980").status == Story.Status.PUBLISHED
    assert set(Story.objects.filter(pk__in=["981", "982"]).values_list("status", flat=True)) == {Story.Status.DRAFT}


def test_a_refused_update_and_a_single_file_are_kept_the_same_way(tmp_path, story_doc, manifests):
    """A document that is not new (imported one at a time) and a .json file of one story."""
    first = write(tmp_path, [story_doc(id="983", slug="update-me", newsroom="desk-3", published_at=None)])
    import_file(first)
    updated = uncited(story_doc, id="983", slug="update-me", newsroom="desk-3")
    refused: list = []
    import_file(write(tmp_path, [updated]), refused=refused)
    assert [(r.line, r.story_id, "paragraphs_cited" in r.failing) for r in refused] == [(1, "983", True)]

    single = tmp_path / "one.json"
    single.write_text(json.dumps(uncited(story_doc, id="984", slug="single", newsroom="desk-4")), encoding="utf-8")
    refused = []
    import_file(single, refused=refused)
    assert [(r.line, r.story_id, type(r)) for r in refused] == [(1, "984", Refused)]


def test_the_command_reports_each_refused_story(tmp_path, story_doc, manifests):
    docs = [
        story_doc(id="985", slug="ok", newsroom="desk-5"),
        uncited(story_doc, id="986", slug="no", newsroom="desk-6"),
    ]
    path = write(tmp_path, docs)
    err = io.StringIO()
    with pytest.raises(CommandError, match="1 story not published"):
        call_command("import_stories", str(path), stdout=io.StringIO(), stderr=err)
    score = CheckResult.objects.get(story_id="986").score
    assert (
        f"{path}:2: story 986 imported as a draft, not published: the checks failed "
        f"(score {score:.2f}; failing: paragraphs_cited)"
    ) in err.getvalue()
