"""The editors' desk in the admin: the story page, its verbs, its history, its roles."""

from html.parser import HTMLParser

import pytest

from manifests.models import Claim, Manifest
from stories import actions, signals
from stories.models import AuditEntry, CheckResult, Cite, CiteClaim, Correction, Revision, Section, Story
from tests.factories import ClaimFactory, ManifestFactory
from tests.stories.helpers import change_url, client_for, form_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def as_editor(editor):
    return client_for(editor)


@pytest.fixture
def as_writer(writer):
    return client_for(writer)


# --------------------------------------------------------------------------- the story page


def test_change_page_shows_the_rubric_and_each_finding_next_to_its_paragraph(
    uncited_draft, as_editor, django_assert_max_num_queries
):
    response = as_editor.post(f"/admin/stories/story/{uncited_draft.pk}/run-checks/")
    assert response.status_code == 302 and response["Location"].endswith("#desk")
    as_editor.get(change_url(uncited_draft))  # Django's content-type cache warm, as in a running server
    with django_assert_max_num_queries(35):
        response = as_editor.get(change_url(uncited_draft))
    html = response.content.decode()
    assert 'Checks: <span class="desk-fail">failed</span>' in html
    block = html[html.index('id="desk-sections[1].paragraphs[0]"') :]
    block = block[: block.index('class="desk-item', 10)]
    assert "paragraphs_cited" in block and "No cites" in block
    other = html[html.index('id="desk-sections[0].paragraphs[0]"') :]
    other = other[: other.index('class="desk-item', 10)]
    assert "paragraphs_cited" not in other


def test_change_page_queries_do_not_grow_with_the_story(draft, as_editor, editor):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def count():
        with CaptureQueriesContext(connection) as ctx:
            assert as_editor.get(change_url(draft)).status_code == 200
        return len(ctx.captured_queries)

    before = count()
    section = draft.sections.all()[0]
    claim = Claim.objects.filter(has_text=True).first()
    for i in range(3):
        paragraph = section.paragraphs.create(position=10 + i, markdown=f"Another paragraph {i}.")
        paragraph.cites.create(manifest=claim.manifest).claims.create(claim=claim)
    draft.key_facts.create(position=9, text="One more key fact.")
    assert count() == before


def test_the_seed_story_passes_its_checks_on_the_desk(draft, as_editor):
    as_editor.post(f"/admin/stories/story/{draft.pk}/run-checks/")
    assert CheckResult.objects.get(story=draft, version=draft.version).passed
    assert "desk-pass" in as_editor.get(change_url(draft)).content.decode()


def test_run_checks_is_a_post(draft, as_writer):
    assert as_writer.get(f"/admin/stories/story/{draft.pk}/run-checks/").status_code == 405
    assert as_writer.post(f"/admin/stories/story/{draft.pk}/run-checks/").status_code == 302
    assert CheckResult.objects.filter(story=draft, version=draft.version).count() == 1


def test_run_checks_needs_a_login(draft, client):
    response = client.post(f"/admin/stories/story/{draft.pk}/run-checks/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert not CheckResult.objects.filter(version=draft.version).exists()


def test_saving_the_story_bumps_version_keeps_revision_and_signals(draft, as_editor, editor):
    sent = []
    signals.story_updated.connect(receiver := lambda sender, story, user, **kw: sent.append((story.pk, user)))
    try:
        data = form_data(as_editor.get(change_url(draft)))
        data.update(
            headline="A sharper headline",
            useful_for="Platform teams\nEval leads",
            unresolved="Is the 31.85 replicated?",
        )
        response = as_editor.post(change_url(draft), data)
    finally:
        signals.story_updated.disconnect(receiver)
    assert response.status_code == 302, (
        [f.errors for f in response.context["inline_admin_formsets"][1].formset.forms] + [response.context["errors"]]
        if response.context
        else response
    )
    story = Story.objects.get(pk=draft.pk)
    assert story.version == draft.version + 1
    assert story.headline == "A sharper headline"
    assert story.decision_card["useful_for"] == ["Platform teams", "Eval leads"]
    assert list(story.decision_card)[:2] == ["useful_for", "not_for"]
    assert story.unresolved == ["Is the 31.85 replicated?"]
    assert Revision.objects.get(story=story, version=story.version).created_by == editor
    assert sent == [(draft.pk, editor)]


def test_second_save_of_a_story_opened_twice_is_refused_with_what_changed(draft, as_editor, writer):
    opened = form_data(as_editor.get(change_url(draft)))
    theirs = client_for(writer)
    their_data = form_data(theirs.get(change_url(draft)))
    their_data["dek"] = "The writer's new dek"
    assert theirs.post(change_url(draft), their_data).status_code == 302

    opened["headline"] = "The editor's headline"
    response = as_editor.post(change_url(draft), opened)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Someone else saved this story" in html and "walt" in html
    assert "The writer&#x27;s new dek" in html or "The writer's new dek" in html
    story = Story.objects.get(pk=draft.pk)
    assert (story.headline, story.dek, story.version) == (draft.headline, "The writer's new dek", draft.version + 1)


def test_presence_lists_the_others_who_have_the_story_open(draft, editor, writer):
    assert 'id="desk-presence"' not in client_for(editor).get(change_url(draft)).content.decode()
    client_for(writer).get(change_url(draft))
    html = client_for(editor).get(change_url(draft)).content.decode()
    notice = html[html.index('id="desk-presence"') :]
    notice = notice[: notice.index("</p>")]
    assert "<strong>walt</strong> (just now)" in notice and "edna" not in notice


def test_presence_forgets_after_the_ttl(draft):
    from stories import presence

    presence.touch(draft.pk, "alice", now=1000.0)
    assert presence.others(draft.pk, "bob", now=1000.0 + 150)[0] == {
        "username": "alice",
        "seconds_ago": 150,
        "ago": "2 min ago",
    }
    assert presence.others(draft.pk, "bob", now=1000.0 + presence.TTL_SECONDS + 1) == []


# --------------------------------------------------------------------------- roles in the admin


def test_writer_sees_run_checks_but_no_publish_or_correction(demo, draft, as_writer):
    html = as_writer.get(change_url(draft)).content.decode()
    assert "Run checks" in html
    assert 'id="desk-publish"' not in html and 'id="desk-correct"' not in html
    for verb in ["publish", "schedule", "unpublish", "correct"]:
        assert as_writer.get(f"/admin/stories/story/{draft.pk}/{verb}/").status_code == 403, verb
        assert (
            as_writer.post(f"/admin/stories/story/{draft.pk}/{verb}/", {"kind": "correction", "text": "x"}).status_code
            == 403
        )
    assert Story.objects.get(pk=draft.pk).status == Story.Status.DRAFT


def test_writer_cannot_edit_a_published_story(demo, as_writer):
    page = as_writer.get(change_url(demo))
    assert page.status_code == 200 and 'name="headline"' not in page.content.decode()
    assert as_writer.post(change_url(demo), {"headline": "Rewritten by a writer"}).status_code == 403
    assert Story.objects.get(pk=demo.pk).headline == demo.headline


def test_editor_publishes_through_the_checks(draft, as_editor, django_assert_max_num_queries):
    # The page runs the checks on the saved story when none are recorded for its version.
    with django_assert_max_num_queries(25):
        assert as_editor.get(f"/admin/stories/story/{draft.pk}/publish/").status_code == 200
    response = as_editor.post(f"/admin/stories/story/{draft.pk}/publish/")
    assert response.status_code == 302
    assert Story.objects.get(pk=draft.pk).is_published


def test_failing_story_is_not_published_without_an_override(uncited_draft, as_editor):
    response = as_editor.post(f"/admin/stories/story/{uncited_draft.pk}/publish/")
    assert response.status_code == 200
    assert "the checks failed" in response.content.decode()
    assert not Story.objects.get(pk=uncited_draft.pk).is_published
    response = as_editor.post(
        f"/admin/stories/story/{uncited_draft.pk}/publish/", {"override_reason": "Claim confirmed by the lab"}
    )
    assert response.status_code == 302
    assert (
        AuditEntry.objects.filter(story=uncited_draft, action="publish").first().reason == "Claim confirmed by the lab"
    )


def test_editor_schedules_and_cancels(draft, as_editor):
    response = as_editor.post(f"/admin/stories/story/{draft.pk}/schedule/", {"when": "2999-01-01T10:00"})
    assert response.status_code == 302
    story = Story.objects.get(pk=draft.pk)
    assert story.status == Story.Status.SCHEDULED and story.scheduled_for.year == 2999
    assert as_editor.post(f"/admin/stories/story/{draft.pk}/unschedule/").status_code == 302
    assert Story.objects.get(pk=draft.pk).status == Story.Status.DRAFT


def test_schedule_in_the_past_is_refused(draft, as_editor):
    response = as_editor.post(f"/admin/stories/story/{draft.pk}/schedule/", {"when": "2001-01-01T10:00"})
    assert response.status_code == 200 and "future" in response.content.decode()


def test_editor_unpublishes(demo, as_editor):
    assert as_editor.post(f"/admin/stories/story/{demo.pk}/unpublish/", {"reason": "legal"}).status_code == 302
    assert Story.objects.get(pk=demo.pk).status == Story.Status.DRAFT


# --------------------------------------------------------------------------- corrections


def test_editor_records_a_correction_shown_read_only(demo, as_editor, editor, django_assert_max_num_queries):
    with django_assert_max_num_queries(12):
        assert as_editor.get(f"/admin/stories/story/{demo.pk}/correct/").status_code == 200
    response = as_editor.post(
        f"/admin/stories/story/{demo.pk}/correct/", {"kind": "clarification", "text": "The 64k budget is tokens."}
    )
    assert response.status_code == 302
    correction = Correction.objects.get(story=demo)
    assert (correction.kind, correction.created_by) == ("clarification", editor)
    html = as_editor.get(change_url(demo)).content.decode()
    assert "The 64k budget is tokens." in html
    assert 'name="corrections-0-text"' not in html and 'name="corrections-0-DELETE"' not in html


def test_the_admin_cannot_change_or_delete_a_correction(demo, as_editor, editor):
    actions.record_correction(story=demo, user=editor, kind="correction", text="Original correction text.")
    data = form_data(as_editor.get(change_url(demo)))
    data.update({"corrections-0-text": "Rewritten", "corrections-0-DELETE": "on", "headline": demo.headline + "!"})
    as_editor.post(change_url(demo), data)
    assert list(Correction.objects.values_list("text", flat=True)) == ["Original correction text."]
    assert as_editor.get("/admin/stories/correction/").status_code == 404  # no admin of its own


def test_correction_needs_a_published_story(draft, as_editor):
    response = as_editor.post(f"/admin/stories/story/{draft.pk}/correct/", {"kind": "correction", "text": "x"})
    assert response.status_code == 200 and "published stories" in response.content.decode()
    assert not Correction.objects.exists()


# --------------------------------------------------------------------------- revisions


def test_revisions_list_and_compare_escapes_the_diff(draft, as_editor, editor, django_assert_max_num_queries):
    draft.headline = "<script>alert('x')</script> Headline"
    saved = actions.save_story(story=draft, user=editor)
    with django_assert_max_num_queries(12):
        response = as_editor.get(f"/admin/stories/story/{draft.pk}/revisions/")
    assert response.status_code == 200
    assert [r.version for r in response.context["revisions"]] == sorted(
        Revision.objects.filter(story=draft).values_list("version", flat=True), reverse=True
    )
    with django_assert_max_num_queries(12):
        response = as_editor.get(
            f"/admin/stories/story/{draft.pk}/revisions/compare/", {"a": saved.version - 1, "b": saved.version}
        )
    html = response.content.decode()
    assert "&lt;script&gt;alert" in html and "<script>alert" not in html
    added = [line["text"] for line in response.context["lines"] if line["kind"] == "add"]
    assert any("Headline" in text and text.startswith('+  "headline"') for text in added)


def test_compare_of_unknown_revision_is_404(draft, as_editor):
    assert as_editor.get(f"/admin/stories/story/{draft.pk}/revisions/compare/", {"a": 1, "b": 999}).status_code == 404


# --------------------------------------------------------------------------- cites


def test_claim_citations_lists_every_story_citing_a_claim(demo, as_writer, django_assert_max_num_queries):
    claim_id = demo.key_facts.first().cites.first().claims.first().claim_id
    with django_assert_max_num_queries(10):
        response = as_writer.get(f"/admin/stories/story/claim/{claim_id}/citations/")
    assert response.status_code == 200
    assert {row["story"].pk for row in response.context["rows"]} == {"81"}
    assert len(response.context["rows"]) == sum(1 for _ in CiteClaim.objects.filter(claim_id=claim_id))
    assert demo.headline in response.content.decode()


def test_attach_a_cite_offers_only_the_manifests_claims_in_order(draft, as_editor, django_assert_max_num_queries):
    paragraph = draft.sections.all()[1].paragraphs.all()[0]
    manifest = ManifestFactory(title="A new benchmark report")
    first, second = (
        ClaimFactory(manifest=manifest, text="First claim."),
        ClaimFactory(manifest=manifest, text="Second claim."),
    )
    stranger = ClaimFactory(text="A claim of another manifest.")
    page = as_editor.get(f"/admin/stories/cite/add/?paragraph={paragraph.pk}")
    assert paragraph.markdown[:40] in page.content.decode()
    response = as_editor.post(
        f"/admin/stories/cite/add/?paragraph={paragraph.pk}",
        {"paragraph": paragraph.pk, "manifest": manifest.pk, "position": 5, "opened_version": draft.version},
    )
    assert response.status_code == 302
    cite = Cite.objects.get(paragraph=paragraph, manifest=manifest)
    with django_assert_max_num_queries(25):
        page = as_editor.get(f"/admin/stories/cite/{cite.pk}/change/")
    offered = {c.pk for c in page.context["inline_admin_formsets"][0].formset.forms[0].fields["claim"].queryset}
    assert offered == {first.pk, second.pk} and stranger.pk not in offered
    assert "Second claim." in page.content.decode()

    data = form_data(page)
    # positions left blank: the order of the rows is the order of the claims
    data.update(
        {
            "claims-TOTAL_FORMS": "2",
            "claims-0-claim": second.pk,
            "claims-0-position": "",
            "claims-1-claim": first.pk,
            "claims-1-position": "",
        }
    )
    response = as_editor.post(f"/admin/stories/cite/{cite.pk}/change/", data)
    assert response.status_code == 302 and response["Location"].endswith(f"{draft.pk}/change/#desk")
    assert list(cite.claims.order_by("position").values_list("claim_id", "position")) == [(second.pk, 0), (first.pk, 1)]
    story = Story.objects.get(pk=draft.pk)
    assert story.version == draft.version + 2  # adding the cite, then choosing its claims
    cites = Revision.objects.get(story=story, version=story.version).data["sections"][1]["paragraphs"][0]["cites"]
    assert {"manifest_id": manifest.pk, "claim_ids": [second.pk, first.pk]} in cites


def test_a_claim_of_another_manifest_is_refused(draft, as_editor):
    cite = draft.sections.all()[0].paragraphs.all()[0].cites.first()
    stranger = ClaimFactory(text="A claim of another manifest.")
    data = form_data(as_editor.get(f"/admin/stories/cite/{cite.pk}/change/"))
    total = int(data["claims-TOTAL_FORMS"])
    data.update(
        {"claims-TOTAL_FORMS": str(total + 1), f"claims-{total}-claim": stranger.pk, f"claims-{total}-position": 9}
    )
    response = as_editor.post(f"/admin/stories/cite/{cite.pk}/change/", data)
    assert response.status_code == 200
    assert not cite.claims.filter(claim=stranger).exists()


def test_section_page_edits_paragraphs_and_bumps_the_story(draft, as_editor, django_assert_max_num_queries):
    section = draft.sections.all()[0]
    url = f"/admin/stories/section/{section.pk}/change/"
    with django_assert_max_num_queries(15):
        page = as_editor.get(url)
    data = form_data(page)
    data["paragraphs-0-markdown"] = "A rewritten first paragraph."
    response = as_editor.post(url, data)
    assert response.status_code == 302
    story = Story.objects.get(pk=draft.pk)
    assert story.version == draft.version + 1
    assert (
        Revision.objects.get(story=story, version=story.version).data["sections"][0]["paragraphs"][0]["markdown"]
        == "A rewritten first paragraph."
    )


def test_writer_cannot_edit_the_parts_of_a_published_story(demo, as_writer):
    section = demo.sections.first()
    assert as_writer.post(f"/admin/stories/section/{section.pk}/change/", {"heading": "x"}).status_code == 403
    cite = Cite.objects.filter(paragraph__section=section).first()
    assert as_writer.post(f"/admin/stories/cite/{cite.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Section.objects.get(pk=section.pk).heading == section.heading


def test_deleting_a_cite_bumps_the_story(draft, as_editor):
    cite = Cite.objects.filter(paragraph__section__story=draft).first()
    response = as_editor.post(f"/admin/stories/cite/{cite.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302 and response["Location"].endswith(f"{draft.pk}/change/#desk")
    assert not Cite.objects.filter(pk=cite.pk).exists()
    assert Story.objects.get(pk=draft.pk).version == draft.version + 1


def test_manifest_autocomplete_finds_by_title_and_publisher_for_a_writer(draft, as_writer):
    response = as_writer.get(
        "/admin/autocomplete/",
        {"app_label": "stories", "model_name": "cite", "field_name": "manifest", "term": "RL environments"},
    )
    assert response.status_code == 200
    assert [r["id"] for r in response.json()["results"]] == ["1792067182956183080"]
    by_publisher = as_writer.get(
        "/admin/autocomplete/",
        {"app_label": "stories", "model_name": "cite", "field_name": "manifest", "term": "huggingface"},
    ).json()["results"]
    assert len(by_publisher) == Manifest.objects.filter(publisher__name__icontains="huggingface").count() > 0


def test_typed_positions_reorder_paragraphs_and_are_renumbered(draft, as_editor):
    section = draft.sections.all()[0]
    first, second = [p.pk for p in section.paragraphs.all()]
    url = f"/admin/stories/section/{section.pk}/change/"
    data = form_data(as_editor.get(url))
    data.update({"paragraphs-1-position": "0", "paragraphs-0-position": "5"})
    assert as_editor.post(url, data).status_code == 302
    assert list(section.paragraphs.order_by("position").values_list("pk", "position")) == [(second, 0), (first, 1)]
    story = Story.objects.get(pk=draft.pk)
    paragraphs = Revision.objects.get(story=story, version=story.version).data["sections"][0]["paragraphs"]
    assert paragraphs[0]["markdown"] == Section.objects.get(pk=section.pk).paragraphs.get(pk=second).markdown


def test_an_image_needs_its_alt_text(draft, as_editor):
    data = form_data(as_editor.get(change_url(draft)))
    data.update(
        {
            "images-TOTAL_FORMS": "1",
            "images-0-url": "https://example.org/chart.png",
            "images-0-alt": "",
            "images-0-position": "",
        }
    )
    response = as_editor.post(change_url(draft), data)
    assert response.status_code == 200
    assert "This field is required" in response.content.decode()
    assert not draft.images.exists() and Story.objects.get(pk=draft.pk).version == draft.version
    data["images-0-alt"] = "A bar chart of pass rates by model"
    assert as_editor.post(change_url(draft), data).status_code == 302
    assert draft.images.get().alt == "A bar chart of pass rates by model"


def test_a_key_fact_gets_a_cite_the_same_way(draft, as_editor):
    fact = draft.key_facts.first()
    had = fact.cites.count()
    manifest = ManifestFactory()
    response = as_editor.post(
        f"/admin/stories/cite/add/?key_fact={fact.pk}",
        {"key_fact": fact.pk, "manifest": manifest.pk, "position": "", "opened_version": draft.version},
    )
    assert response.status_code == 302
    cite = Cite.objects.get(key_fact=fact, manifest=manifest)
    assert cite.position == had  # blank position: after the fact's other cites
    assert Story.objects.get(pk=draft.pk).version == draft.version + 1


def test_adding_a_cite_to_a_story_saved_meanwhile_is_refused(draft, as_editor, editor):
    paragraph = draft.sections.all()[0].paragraphs.all()[0]
    manifest = ManifestFactory()
    opened = draft.version
    actions.save_story(story=Story.objects.get(pk=draft.pk), user=editor)
    response = as_editor.post(
        f"/admin/stories/cite/add/?paragraph={paragraph.pk}",
        {"paragraph": paragraph.pk, "manifest": manifest.pk, "position": "", "opened_version": opened},
    )
    assert response.status_code == 200 and "Someone else saved this story" in response.content.decode()
    assert not Cite.objects.filter(manifest=manifest).exists()


def test_a_writer_creates_a_story_at_version_one_with_its_revision(demo, as_writer, writer):
    from newsroom.models import Edition

    edition, _ = Edition.objects.get_or_create_for("2026-10-17T09")
    data = {
        "headline": "A new draft",
        "slug": "a-new-draft",
        "edition": edition.pk,
        "newsroom": demo.newsroom_id,
        "audience": "",
        "trust": "reported",
        "dek": "",
        "angle": "",
        "unresolved": "First open question",
        "useful_for": "",
        "not_for": "",
        "compare_against": "",
        "writer_agent": "",
        "writer_run_id": "",
    }
    for prefix in ["key_facts", "sections", "images", "related_links"]:
        data.update({f"{prefix}-TOTAL_FORMS": "1" if prefix == "sections" else "0", f"{prefix}-INITIAL_FORMS": "0"})
    data.update({"sections-0-heading": "What happened", "sections-0-position": ""})
    response = as_writer.post("/admin/stories/story/add/", data)
    assert response.status_code == 302
    story = Story.objects.get(slug="a-new-draft")
    assert (story.version, story.status, story.unresolved) == (1, Story.Status.DRAFT, ["First open question"])
    assert [s.heading for s in story.sections.all()] == ["What happened"]
    revision = Revision.objects.get(story=story, version=1)
    assert revision.created_by == writer and revision.data["sections"][0]["heading"] == "What happened"
    assert AuditEntry.objects.get(story=story).action == "create"


def test_story_list_and_audit_log_pages(demo, as_editor, django_assert_max_num_queries):
    with django_assert_max_num_queries(12):
        assert demo.headline in as_editor.get("/admin/stories/story/").content.decode()
    with django_assert_max_num_queries(12):
        response = as_editor.get("/admin/stories/auditentry/")
    assert response.status_code == 200 and "loaddemo" in response.content.decode()
    entry = AuditEntry.objects.first()
    assert as_editor.post(f"/admin/stories/auditentry/{entry.pk}/delete/", {"post": "yes"}).status_code == 403


class _InlineCode(HTMLParser):
    """What the site's Content-Security-Policy (no inline script or style) would block."""

    def __init__(self):
        super().__init__()
        self.blocked = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "style" or (tag == "script" and not attrs.get("src") and attrs.get("type") != "application/json"):
            self.blocked.append(f"<{tag}>")
        self.blocked += [f"<{tag} {name}=...>" for name in attrs if name == "style" or name.startswith("on")]


def test_desk_pages_have_no_inline_script_or_style(demo, draft, as_editor):
    as_editor.post(f"/admin/stories/story/{draft.pk}/run-checks/")
    paragraph = draft.sections.all()[0].paragraphs.all()[0]
    cite = paragraph.cites.first()
    revision = draft.version
    urls = [
        change_url(draft),
        "/admin/stories/story/add/",
        f"/admin/stories/section/{paragraph.section_id}/change/",
        f"/admin/stories/cite/{cite.pk}/change/",
        f"/admin/stories/cite/add/?paragraph={paragraph.pk}",
        f"/admin/stories/story/{draft.pk}/publish/",
        f"/admin/stories/story/{draft.pk}/schedule/",
        f"/admin/stories/story/{draft.pk}/revisions/",
        f"/admin/stories/story/{draft.pk}/revisions/compare/?a=1&b={revision}",
        f"/admin/stories/story/claim/{cite.claims.first().claim_id}/citations/",
    ]
    for url in urls:
        response = as_editor.get(url)
        assert response.status_code == 200, url
        parser = _InlineCode()
        parser.feed(response.content.decode())
        assert parser.blocked == [], url


@pytest.fixture
def loses_the_race(monkeypatch):
    """Another editor's save lands after this form was validated (the window SQLite's lack of
    row locks leaves open): the stored version moves on between ``clean`` and the save."""
    from stories.admin.forms import StoryVersionForm

    clean = StoryVersionForm.clean

    def clean_then_someone_saves(form):
        cleaned = clean(form)
        story = form.story_for_version()
        if story is not None and story.pk:
            Story.objects.filter(pk=story.pk).update(version=story.version + 1)
        return cleaned

    monkeypatch.setattr(StoryVersionForm, "clean", clean_then_someone_saves)


def test_a_story_save_that_loses_the_race_after_validation_writes_nothing_and_says_why(
    draft, as_editor, loses_the_race
):
    data = form_data(as_editor.get(change_url(draft)))
    data["headline"] = "The editor's headline"
    response = as_editor.post(change_url(draft), data, follow=True)
    assert response.status_code == 200
    assert "Not saved: someone else saved this story while you were saving" in response.content.decode()
    story = Story.objects.get(pk=draft.pk)
    assert story.headline == draft.headline  # rolled back with the rest of the save
    assert story.version == draft.version  # the simulated rival's bump was in the same rolled-back transaction
    assert not Revision.objects.filter(story=story, version__gt=draft.version).exists()


def test_a_cite_save_that_loses_the_race_after_validation_writes_nothing_and_says_why(draft, as_editor, loses_the_race):
    paragraph = draft.sections.all()[0].paragraphs.all()[0]
    manifest = ManifestFactory()
    url = f"/admin/stories/cite/add/?paragraph={paragraph.pk}"
    response = as_editor.post(
        url, {"paragraph": paragraph.pk, "manifest": manifest.pk, "position": "", "opened_version": draft.version}
    )
    assert response.status_code == 302 and response["Location"] == url
    page = as_editor.get(url).content.decode()
    assert "Not saved: someone else saved this story while you were saving" in page
    assert not Cite.objects.filter(manifest=manifest).exists()
    assert Story.objects.get(pk=draft.pk).version == draft.version
