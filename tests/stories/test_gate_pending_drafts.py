"""Edits to a live story are pending changes until they pass the checks (the gate).

A published or scheduled story is never edited in place: the desk edits its pending draft,
which readers never see, and an editor publishes the changes through the checks (or an
override with a reason), optionally with a public correction; or discards them.
"""

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from html import unescape

import pytest
from django.core.exceptions import PermissionDenied
from django.db import connection, connections, transaction

from stories import actions, signals
from stories.actions import drafts
from stories.history import prose_diff
from stories.models import AuditEntry, CheckResult, Correction, Paragraph, Story
from tests.stories.helpers import change_url, client_for, form_data

pytestmark = pytest.mark.django_db

PAGE = "/stories/2026-10-16/agent-training-stack/"
BANANAS = "Bananas are the leading cause of orbital decay, say 900 zookeepers."


@pytest.fixture
def checks():
    import stories.checks

    return stories.checks


@pytest.fixture
def as_editor(editor):
    return client_for(editor)


@pytest.fixture
def as_writer(writer):
    return client_for(writer)


def page_text(client) -> str:
    response = client.get(PAGE)
    assert response.status_code == 200
    return unescape(response.content.decode())


def first_paragraph(story) -> Paragraph:
    return Paragraph.objects.filter(section__story=story).order_by("section__position", "position").first()


def edit_paragraph(story, text, user=None):
    """Replace the first paragraph's text through the actions, as the section page does."""
    paragraph = first_paragraph(story)
    paragraph.markdown = text

    actions.save_story(story=story, user=user, write=paragraph.save)
    return paragraph


@pytest.fixture
def pending(demo, editor):
    """The demo story's pending changes, its first paragraph reworded (its cites kept)."""
    draft = drafts.start_changes(story=demo, user=editor)
    old = first_paragraph(draft).markdown
    edit_paragraph(draft, old.replace("the", "this", 1) + " (Reworded.)", user=editor)
    return Story.objects.get(pk=draft.pk)


# --------------------------------------------------------------------------- the repro


def test_editing_a_live_story_in_the_admin_makes_pending_changes_readers_never_see(demo, as_editor, client):
    before = page_text(client)
    page = as_editor.get(change_url(demo)).content.decode()
    assert 'id="desk-start-changes"' in page and 'name="headline"' not in page  # shown read-only

    # The live story's own form and its parts refuse an edit in place.
    assert as_editor.post(change_url(demo), {"headline": "Bananas"}).status_code == 403
    section = demo.sections.first()
    assert as_editor.post(f"/admin/stories/section/{section.pk}/change/", {"heading": "Bananas"}).status_code == 403
    cite = first_paragraph(demo).cites.first()
    assert as_editor.post(f"/admin/stories/cite/{cite.pk}/delete/", {"post": "yes"}).status_code == 403
    assert first_paragraph(demo).cites.filter(pk=cite.pk).exists()

    response = as_editor.post(f"/admin/stories/story/{demo.pk}/start-changes/")
    draft = Story.objects.get(draft_of=demo)
    assert response.status_code == 302 and response["Location"].startswith(change_url(draft))
    assert draft.status == Story.Status.DRAFT and draft.slug == demo.slug and draft.headline == demo.headline

    draft_section = draft.sections.order_by("position").first()
    url = f"/admin/stories/section/{draft_section.pk}/change/"
    data = form_data(as_editor.get(url))
    data["paragraphs-0-markdown"] = BANANAS
    assert as_editor.post(url, data).status_code == 302

    assert BANANAS in first_paragraph(draft).markdown
    live = Story.objects.get(pk=demo.pk)
    assert live.status == Story.Status.PUBLISHED and live.version == demo.version
    assert BANANAS not in first_paragraph(live).markdown
    assert page_text(client) == before and "Bananas" not in before
    # The live page points to the changes; the story list shows one story with a link to them.
    assert 'id="desk-pending-banner"' in as_editor.get(change_url(demo)).content.decode()
    listing = as_editor.get("/admin/stories/story/").content.decode()
    assert listing.count(f"/admin/stories/story/{demo.pk}/change/") == 1
    assert change_url(draft) in listing and "unpublished changes" in listing


def test_starting_changes_twice_opens_the_same_draft_and_is_audited(demo, editor):
    first = drafts.start_changes(story=demo, user=editor)
    assert drafts.start_changes(story=demo, user=editor).pk == first.pk
    entry = AuditEntry.objects.get(story=first)
    assert entry.action == "create" and entry.details["pending_changes_of"] == demo.pk and entry.user == editor
    assert first.corrections.count() == 0 and first.created_by == editor


def test_the_cite_page_refuses_a_cite_on_a_live_story(demo, as_editor):
    paragraph = first_paragraph(demo)
    before = paragraph.cites.count()
    manifest = paragraph.cites.first().manifest_id
    response = as_editor.post(
        f"/admin/stories/cite/add/?paragraph={paragraph.pk}",
        {"paragraph": paragraph.pk, "manifest": manifest, "position": "", "opened_version": demo.version},
    )
    assert response.status_code == 200 and "live story" in response.content.decode()
    assert paragraph.cites.count() == before


def test_a_pending_draft_cannot_be_published_or_scheduled_as_a_story(pending, editor):
    with pytest.raises(actions.ActionError):
        actions.publish_story(story=pending, user=editor)
    assert Story.objects.get(pk=pending.pk).status == Story.Status.DRAFT


# --------------------------------------------------------------------------- publishing the changes


def test_publishing_passing_changes_replaces_the_live_content_once(pending, demo, editor, as_editor, client, checks):
    new_text = first_paragraph(pending).markdown
    published_at = Story.objects.get(pk=demo.pk).published_at
    sent = []
    signals.story_published.connect(receiver := lambda sender, story, user, **kw: sent.append(story.pk))
    try:
        response = as_editor.post(f"/admin/stories/story/{pending.pk}/publish-changes/", {"note_kind": "none"})
    finally:
        signals.story_published.disconnect(receiver)
    assert response.status_code == 302 and response["Location"].startswith(change_url(demo))
    live = Story.objects.get(pk=demo.pk)
    assert live.status == Story.Status.PUBLISHED
    assert live.version == demo.version + 1
    assert live.published_at == published_at and live.revised_at is not None
    assert first_paragraph(live).markdown == new_text
    assert not Story.objects.filter(pk=pending.pk).exists()
    entry = AuditEntry.objects.filter(story=live).first()
    assert entry.action == "publish_changes" and entry.user == editor and entry.version == live.version
    assert entry.details["passed"] and entry.details["text_changed"]
    assert CheckResult.objects.filter(story=live, version=live.version, passed=True).exists()
    assert sent == [demo.pk]
    assert "(Reworded.)" in page_text(client)
    assert live.corrections.count() == 0


def test_failing_changes_leave_readers_the_live_version(pending, demo, editor, as_editor, client, checks):
    before = page_text(client)
    first_paragraph(pending).cites.all().delete()
    response = as_editor.post(f"/admin/stories/story/{pending.pk}/publish-changes/", {"note_kind": "none"})
    assert response.status_code == 200
    assert "Not published: the checks failed" in response.content.decode()
    assert "paragraphs_cited" in response.content.decode()
    live = Story.objects.get(pk=demo.pk)
    assert live.version == demo.version and live.revised_at is None
    assert page_text(client) == before
    assert CheckResult.objects.get(story=pending).passed is False  # the rubric is kept on the draft


def test_an_editor_overrides_failing_changes_with_a_reason(pending, demo, editor, checks):
    first_paragraph(pending).cites.all().delete()
    live = drafts.publish_changes(draft=pending, user=editor, override_reason="Source confirmed by phone.")
    assert "(Reworded.)" in first_paragraph(live).markdown
    entry = AuditEntry.objects.filter(story=live).first()
    assert entry.action == "publish_changes" and entry.reason == "Source confirmed by phone."
    assert entry.details["overridden"]


def test_a_correction_chosen_with_the_changes_is_public(pending, demo, editor, as_editor, client, checks):
    response = as_editor.post(
        f"/admin/stories/story/{pending.pk}/publish-changes/",
        {"note_kind": "correction", "note_text": "An earlier version misstated the budget."},
    )
    assert response.status_code == 302
    correction = Correction.objects.get(story=demo)
    assert correction.kind == "correction" and correction.created_by == editor
    text = page_text(client)
    assert "An earlier version misstated the budget." in text and "(Reworded.)" in text


def test_a_text_change_must_say_whether_readers_get_a_note(pending, as_editor, checks):
    response = as_editor.post(f"/admin/stories/story/{pending.pk}/publish-changes/", {})
    assert response.status_code == 200 and "choose whether readers get a note" in response.content.decode()
    assert Story.objects.filter(pk=pending.pk).exists()


def test_a_refused_correction_publishes_nothing(pending, demo, editor, monkeypatch, checks):
    def refuse(**kwargs):
        raise actions.ActionError("no")

    monkeypatch.setattr(drafts, "record_correction", refuse)
    with pytest.raises(actions.ActionError):
        drafts.publish_changes(draft=pending, user=editor, correction={"kind": "update", "text": "Updated."})
    live = Story.objects.get(pk=demo.pk)
    assert live.version == demo.version and "(Reworded.)" not in first_paragraph(live).markdown
    assert Story.objects.filter(pk=pending.pk).exists()


def test_the_changes_are_shown_as_a_diff_of_the_prose(pending, as_editor):
    html = as_editor.get(f"/admin/stories/story/{pending.pk}/changes/").content.decode()
    assert "<ins>(Reworded.)</ins>" in html and "Section 1, paragraph 1" in html
    assert "&quot;markdown&quot;" not in html  # prose, not JSON


def test_prose_diff_names_added_removed_and_changed_text():
    old = {"headline": "A", "dek": "", "key_facts": [{"text": "One fact."}], "sections": []}
    new = {"headline": "B", "dek": "", "key_facts": [], "sections": [{"heading": "H", "paragraphs": []}]}
    kinds = [(d["kind"], d["where"]) for d in prose_diff(old, new)]
    assert ("changed", "Headline") in kinds and ("removed", "Key fact 1") in kinds
    assert ("added", "Section 1 heading") in kinds


def test_pending_changes_are_not_a_repeat_of_their_live_story(pending, editor, checks):
    result = checks.check_and_record(pending)
    repeat = next(c for c in result.rubric["criteria"] if c["name"] == "not_a_repeat")
    assert repeat["passed"], repeat["findings"]


# --------------------------------------------------------------------------- discarding


def test_discarding_the_changes_deletes_the_draft_and_is_audited(pending, demo, editor, as_editor, client):
    before = page_text(client)
    response = as_editor.post(f"/admin/stories/story/{pending.pk}/discard-changes/", {"reason": "not needed"})
    assert response.status_code == 302
    assert not Story.objects.filter(pk=pending.pk).exists()
    entry = AuditEntry.objects.filter(story=demo).first()
    assert entry.action == "discard_changes" and entry.reason == "not needed" and entry.user == editor
    assert Story.objects.get(pk=demo.pk).version == demo.version
    assert page_text(client) == before


# --------------------------------------------------------------------------- roles


def test_a_writer_edits_pending_changes_but_cannot_publish_or_discard_them(demo, writer, as_writer, client):
    before = page_text(client)
    assert as_writer.post(f"/admin/stories/story/{demo.pk}/start-changes/").status_code == 302
    draft = Story.objects.get(draft_of=demo)
    assert 'name="headline"' in as_writer.get(change_url(draft)).content.decode()

    response = as_writer.get(f"/admin/stories/story/{draft.pk}/publish-changes/")
    assert response.status_code == 403 and 'id="desk-forbidden"' in response.content.decode()
    response = as_writer.post(f"/admin/stories/story/{draft.pk}/publish-changes/", {"note_kind": "none"})
    assert response.status_code == 403
    assert as_writer.post(f"/admin/stories/story/{draft.pk}/discard-changes/", {}).status_code == 403
    with pytest.raises(PermissionDenied):
        drafts.publish_changes(draft=draft, user=writer)
    assert Story.objects.filter(pk=draft.pk).exists() and page_text(client) == before


# --------------------------------------------------------------------------- scheduled stories


def test_changes_of_a_scheduled_story_keep_it_scheduled(demo, editor, checks):
    import datetime as dt

    from django.utils import timezone

    story = actions.unpublish_story(story=demo, user=editor)
    story = actions.schedule_story(story=story, user=editor, when=timezone.now() + dt.timedelta(days=1))
    draft = drafts.start_changes(story=story, user=editor)
    edit_paragraph(draft, first_paragraph(draft).markdown + " (Scheduled edit.)", user=editor)
    with pytest.raises(actions.ActionError):  # no corrections before publication
        drafts.publish_changes(draft=draft, user=editor, correction={"kind": "update", "text": "x"})
    live = drafts.publish_changes(draft=draft, user=editor)
    assert live.status == Story.Status.SCHEDULED and live.revised_at is None
    assert "(Scheduled edit.)" in first_paragraph(live).markdown


def test_changes_of_a_story_taken_down_meanwhile_are_refused(pending, demo, editor, checks):
    actions.unpublish_story(story=demo, user=editor)
    with pytest.raises(actions.ActionError, match="not live"):
        drafts.publish_changes(draft=pending, user=editor)


# --------------------------------------------------------------------------- concurrency (PostgreSQL)


def in_thread(fn):
    def run(*args):
        try:
            return fn(*args)
        finally:
            connections.close_all()

    return run


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks contend only on PostgreSQL")
@pytest.mark.parametrize("other", ["unpublish", "correct"])
def test_publishing_changes_racing_another_action_on_the_live_story_serialises(transactional_db, other):
    from django.core.management import call_command

    call_command("loaddemo", verbosity=0)
    demo = Story.objects.get(id="81")
    draft = drafts.start_changes(story=demo)
    edit_paragraph(draft, first_paragraph(draft).markdown + " (Raced.)")
    barrier = threading.Barrier(2)

    @in_thread
    def run(which):
        barrier.wait()
        try:
            with transaction.atomic():
                if which == "changes":
                    drafts.publish_changes(draft=draft)
                elif which == "unpublish":
                    actions.unpublish_story(story=demo, reason="legal")
                else:
                    actions.record_correction(story=demo, kind="clarification", text="Clarified.")
            return which, "done"
        except actions.ActionError as exc:
            return which, f"refused: {exc}"

    with ThreadPoolExecutor(2) as pool:
        outcomes = dict(pool.map(run, ["changes", other]))

    live = Story.objects.get(pk=demo.pk)
    entries = list(AuditEntry.objects.filter(story=live, version__gt=demo.version).order_by("version"))
    versions = [e.version for e in entries]
    assert versions == sorted(set(versions))  # no two actions wrote the same version
    assert outcomes[other] == "done"
    if outcomes["changes"] == "done":
        assert "(Raced.)" in first_paragraph(live).markdown
        assert not Story.objects.filter(pk=draft.pk).exists()
    else:  # the story was taken down first: the changes wait, nothing half-written
        assert other == "unpublish" and "not live" in outcomes["changes"]
        assert "(Raced.)" not in first_paragraph(live).markdown
        assert Story.objects.filter(pk=draft.pk).exists()
    if other == "correct":
        assert live.corrections.count() == 1 and live.status == Story.Status.PUBLISHED


def test_pending_changes_are_not_exported(demo, editor):
    """desk/1 has no place for them: a restore would make them a story of their own."""
    from io import StringIO

    from django.core.management import call_command

    drafts.start_changes(story=demo, user=editor)
    out = StringIO()
    call_command("export_stories", stdout=out)
    assert [json.loads(line)["id"] for line in out.getvalue().splitlines()] == [demo.pk]


def test_a_writer_may_not_discard_pending_changes_even_once_the_story_is_taken_down(demo, editor, writer):
    """Discarding is an editor's call whatever the live story's status: a Writer who may edit
    a story taken down may not throw away its pending changes and their record."""
    pending = drafts.start_changes(story=demo, user=editor)
    actions.save_story(story=pending, user=editor, write=lambda: None)
    actions.unpublish_story(story=demo, user=editor, reason="Held for legal review.")
    response = client_for(writer).post(f"/admin/stories/story/{pending.pk}/discard-changes/", {"reason": "x"})
    assert response.status_code == 403
    with pytest.raises(PermissionDenied):
        drafts.discard_changes(draft=pending, user=writer)
    assert Story.objects.filter(pk=pending.pk).exists()
    drafts.discard_changes(draft=pending, user=editor, reason="Not needed.")
    assert not Story.objects.filter(pk=pending.pk).exists()


def test_changes_people_wrote_make_the_disclosure_say_so(demo, writer, editor):
    """A Writer rewrites a paragraph of the agent's live story in its pending changes; an
    editor publishes them: the disclosure says people revised it and names the editor."""
    from stories import desk

    editor.first_name, editor.last_name = "Edna", "Mode"
    editor.save()
    assert "revised by people" not in desk.export_story(Story.objects.with_everything().get(pk=demo.pk))["disclosure"]
    pending = drafts.start_changes(story=demo, user=writer)
    paragraph = Paragraph.objects.filter(section__story=pending).order_by("section__position", "position").first()
    paragraph.markdown += " This sentence was written by a person."
    paragraph.save()
    actions.save_story(story=pending, user=writer, write=lambda: None)
    drafts.publish_changes(draft=pending, user=editor)
    disclosure = desk.export_story(Story.objects.with_everything().get(pk=demo.pk))["disclosure"]
    assert "revised by people" in disclosure and "Edna Mode took editorial responsibility" in disclosure


def test_pending_changes_may_not_take_a_beat_of_another_newsroom(demo, writer):
    """The newsroom of pending changes is the live story's (read-only on their form): a beat
    of another newsroom is refused as on any draft, and nothing is saved."""
    from newsroom.models import Beat, Newsroom

    foreign = Beat.objects.create(newsroom=Newsroom.objects.create(slug="other-room", title="Other"), slug="foreign")
    pending = drafts.start_changes(story=demo, user=writer)
    key = client_for(writer)
    data = form_data(key.get(change_url(pending)))
    data["beat"] = str(foreign.pk)
    response = key.post(change_url(pending), data)
    assert response.status_code == 200
    assert "belongs to another newsroom" in unescape(response.content.decode())
    assert Story.objects.get(pk=pending.pk).beat_id != foreign.pk


def test_an_import_asking_to_publish_pending_changes_is_refused_by_name_writing_nothing(
    demo, editor, seed_doc, tmp_path
):
    import io

    from django.core.management import CommandError, call_command

    pending = drafts.start_changes(story=demo, user=editor)
    Story.objects.filter(pk=pending.pk).update(slug="a-slug-of-the-pending-changes")  # the desk renamed it
    doc = dict(seed_doc, id=pending.pk, slug="a-slug-of-the-pending-changes", headline="Published by a file")
    path = tmp_path / "pending.jsonl"
    path.write_text(json.dumps(doc) + "\n")
    err = io.StringIO()
    with pytest.raises(CommandError, match="1 file"):
        call_command("import_stories", str(path), stdout=io.StringIO(), stderr=err)
    assert f"line 1: published_at: story {pending.pk} holds the pending changes of story {demo.pk}" in err.getvalue()
    assert Story.objects.get(pk=pending.pk).headline == demo.headline  # nothing written
    assert not AuditEntry.objects.filter(story_id=pending.pk, action="import").exists()
    assert Story.objects.get(pk=demo.pk).headline == demo.headline
