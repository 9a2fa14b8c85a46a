"""One write path: story rows are written only by ``stories.actions``, and every change
goes through its one commit step (version, revision, typed audit row, fingerprint, signal)."""

import ast
from pathlib import Path

import pytest

from stories import actions
from stories.actions.commit import commit
from stories.models import AuditEntry, Revision, Story, StoryFingerprint

ROOT = Path(__file__).resolve().parents[2]
APPS = ("newsroom", "manifests", "stories", "public", "syndication")
PROTECTED = {"Story", "Section", "Paragraph", "KeyFact", "Cite", "CiteClaim", "Image", "RelatedLink", "Correction"}
# Related managers that reach those rows from another row (story.sections, newsroom.stories...).
RELATED = {"sections", "paragraphs", "key_facts", "cites", "images", "related_links", "corrections", "stories"}
WRITES = {"create", "update", "delete", "bulk_create", "bulk_update", "get_or_create", "update_or_create"}


def _chain(node):
    """The receivers of a call, outermost first: ``a.b().c`` gives ``a.b().c``, ``a.b()``, ``a.b``, ``a``."""
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        yield node
        node = node.func if isinstance(node, ast.Call) else node.value
    yield node


def _manager_of(links) -> str | None:
    for link in links:
        if isinstance(link, ast.Attribute) and link.attr == "objects" and isinstance(link.value, ast.Name):
            return link.value.id
    return None


def _delegates(call: ast.Call, function: ast.AST | None) -> bool:
    """``super().save(...)`` inside an overridden ``save``: delegation, not a write of its own
    (the admin's story form calls it with ``commit=False``; stories.actions.save_forms writes)."""
    receiver = call.func.value
    return (
        isinstance(receiver, ast.Call)
        and isinstance(receiver.func, ast.Name)
        and receiver.func.id == "super"
        and isinstance(function, ast.FunctionDef)
        and function.name == call.func.attr
    )


def story_row_writes(source: str) -> list[tuple[int, str]]:
    """Where ``source`` writes (or may write) story rows."""
    tree = ast.parse(source)
    imports_models = any(
        isinstance(n, ast.ImportFrom)
        and (n.module or "").startswith("stories.models")
        and any(a.name in PROTECTED for a in n.names)
        for n in ast.walk(tree)
    )
    found = []

    def visit(node, function):
        for child in ast.iter_child_nodes(node):
            visit(child, child if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function)
        if not isinstance(node, ast.Call):
            return
        func = node.func
        if isinstance(func, ast.Name) and func.id in {"bulk_insert", "bulk_insert_rows"}:
            found.append((node.lineno, func.id))
        if not isinstance(func, ast.Attribute):
            return
        links = list(_chain(func.value))
        manager = _manager_of(links)
        if (
            func.attr in WRITES
            and (manager in PROTECTED or any(isinstance(a, ast.Attribute) and a.attr in RELATED for a in links))
        ) or (
            func.attr in {"save", "delete"} and imports_models and manager is None and not _delegates(node, function)
        ):
            found.append((node.lineno, ast.unparse(func)))

    visit(tree, None)
    return found


def project_modules():
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            # newsroom/infra/bulk.py defines the bulk writers: it writes what its callers pass
            if "/migrations/" in rel or rel.startswith("stories/actions/") or rel == "newsroom/infra/bulk.py":
                continue
            yield rel, path


def test_only_the_actions_write_story_rows():
    offenders = [
        f"{rel}:{line}: {what}"
        for rel, path in project_modules()
        for line, what in story_row_writes(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], "story rows written outside stories.actions:\n" + "\n".join(offenders)


@pytest.mark.parametrize(
    "source",
    [
        "from stories.models import Story\nStory.objects.filter(pk=1).update(status='draft')",
        "from stories.models import Correction\nCorrection.objects.create(text='x')",
        "story.sections.all().delete()",
        "from stories.models import Section\ndef f(s):\n    s.save()",
        "bulk_insert(Paragraph, rows)",
        "from stories.models import Story\nStory.objects.get_or_create(slug='x')",
    ],
)
def test_the_scan_sees_each_kind_of_write(source):
    assert story_row_writes(source)


def test_the_scan_leaves_other_models_alone():
    source = "from stories.models import Story\nfrom x import Partner\nPartner.objects.filter(a=1).delete()\n"
    assert story_row_writes(source) == []


pytestmark_db = pytest.mark.django_db


@pytestmark_db
def test_commit_refuses_an_untyped_audit_action(demo):
    from django.db import transaction

    story = Story.objects.get(pk=demo.pk)
    with pytest.raises(ValueError, match="unknown audit action 'api'"), transaction.atomic():
        commit(story, action="api")
    assert Story.objects.get(pk=demo.pk).version == demo.version


@pytestmark_db
def test_every_verb_ends_in_the_commit_step(demo):
    """Version bumped, a revision of the new version, one typed audit row, a fingerprint."""
    before = Story.objects.get(pk=demo.pk).version
    story = actions.unpublish_story(story=demo, reason="check")
    assert story.version == before + 1
    assert Revision.objects.filter(story=story, version=story.version).exists()
    assert list(AuditEntry.objects.filter(story=story, version=story.version).values_list("action", flat=True)) == [
        "unpublish"
    ]
    assert StoryFingerprint.objects.filter(story=story).count() == 1


@pytestmark_db
def test_unpublish_then_publish_keeps_the_first_publication_and_sets_revised_at(demo):
    first = Story.objects.get(pk=demo.pk).published_at
    assert first is not None and demo.revised_at is None
    taken_down = actions.unpublish_story(story=demo, reason="a check")
    assert (taken_down.status, taken_down.published_at) == (Story.Status.DRAFT, first)
    assert not Story.objects.published().filter(pk=demo.pk).exists()  # readers' pages filter on status
    again = actions.publish_story(story=taken_down)
    assert (again.status, again.published_at) == (Story.Status.PUBLISHED, first)
    assert again.revised_at is not None and again.revised_at > first


@pytestmark_db
def test_first_publication_sets_published_at_and_no_revised_at(demo, story_doc):
    from stories import desk

    doc = desk.validate(story_doc(id="90", slug="new-one", published_at=None))
    draft = actions.import_story(doc).story
    assert (draft.status, draft.published_at) == (Story.Status.DRAFT, None)
    published = actions.publish_story(story=draft, override_reason="a test of the times")
    assert published.published_at is not None and published.revised_at is None
