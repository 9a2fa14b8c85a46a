"""The desk in a real browser: an editor attaches a cite, runs the checks, publishes,
records a correction, and finds it on the public story. Drives Debian's Chromium through
Playwright (never a downloaded browser); skipped when either is missing.

Screenshots of the story page and of the rubric are saved (``tests.screenshots``: ``make
screenshots`` refreshes the editor guide's images).
"""

import json
import os
from pathlib import Path

import pytest

from tests.screenshots import screenshots_dir

# The live server runs in a thread while Playwright's sync API runs an event loop in this one.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = screenshots_dir()

playwright_sync = pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    # The flush between live-server tests empties the groups; stories.apps.ensure_groups
    # puts them back after it (post_migrate).
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no browser at {CHROMIUM} (apt-get install chromium)"),
]


@pytest.fixture
def page():
    with playwright_sync.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
        )
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        pg = context.new_page()
        pg.set_default_timeout(15_000)
        pg.csp_violations = []
        pg.on("console", lambda msg: "Content Security Policy" in msg.text and pg.csp_violations.append(msg.text))
        yield pg
        # Nothing on the desk may be refused by the site's Content-Security-Policy.
        assert pg.csp_violations == []
        context.close()
        browser.close()


@pytest.fixture
def story_missing_a_cite(draft):
    """The draft seed story with one paragraph's cite removed; returns what the cite was."""
    paragraph = draft.sections.all()[1].paragraphs.all()[0]
    cite = paragraph.cites.get()
    removed = {
        "manifest_id": cite.manifest_id,
        "title": cite.manifest.title,
        "claim_ids": [cc.claim_id for cc in cite.claims.all()],
    }
    cite.delete()
    return draft, paragraph, removed


def test_editor_cites_checks_publishes_and_corrects(live_server, page, editor, story_missing_a_cite):
    from stories.models import Correction, Story

    story, _paragraph, removed = story_missing_a_cite
    base = live_server.url

    # Log in.
    page.goto(f"{base}/admin/login/?next=/admin/stories/story/{story.pk}/change/")
    page.fill("#id_username", editor.username)
    page.fill("#id_password", "pw-for-tests-only")
    page.click("input[type=submit]")
    page.wait_for_selector("#desk")

    # The checks fail, and the finding sits next to the paragraph without cites.
    page.click("#desk-run-checks")
    page.wait_for_selector("#rubric .desk-fail")
    item = page.locator('[id="desk-sections[1].paragraphs[0]"]')
    assert "No cites" in item.inner_text() and "paragraphs_cited" in item.inner_text()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#rubric").screenshot(path=str(SCREENSHOTS / "rubric-failed.png"))
    item.screenshot(path=str(SCREENSHOTS / "finding-next-to-paragraph.png"))

    # Attach a cite: pick the manifest by title (autocomplete), then its claims in order.
    item.get_by_role("link", name="Add cite").click()
    page.click("#id_manifest + .select2 .select2-selection")
    page.fill(".select2-search__field", removed["title"][:12])
    page.locator(".select2-results__option", has_text=removed["title"]).click()
    page.click("input[name=_save]")
    page.wait_for_selector("text=Now choose its claims")
    for i, claim_id in enumerate(removed["claim_ids"]):
        page.select_option(f"select[name='claims-{i}-claim']", claim_id)
        page.fill(f"input[name='claims-{i}-position']", str(i))
    page.screenshot(path=str(SCREENSHOTS / "cite-claims.png"), full_page=True)
    page.click("input[name=_save]")
    page.wait_for_selector("#desk")
    assert removed["claim_ids"][0] in page.locator('[id="desk-sections[1].paragraphs[0]"]').inner_text()

    # Run the checks: they pass.
    page.click("#desk-run-checks")
    page.wait_for_selector("#rubric .desk-pass")
    page.locator("#rubric").screenshot(path=str(SCREENSHOTS / "rubric.png"))
    page.goto(f"{base}/admin/stories/story/{story.pk}/change/")
    page.screenshot(path=str(SCREENSHOTS / "story-change-page.png"))

    # Publish.
    page.click("#desk-publish")
    page.click("#desk-publish-submit")
    page.wait_for_selector("text=Published.")
    assert Story.objects.get(pk=story.pk).is_published

    # Record a correction.
    page.click("#desk-correct")
    page.select_option("#id_kind", "correction")
    page.fill("#id_text", "An earlier version gave the wrong number of tasks.")
    page.click("input[type=submit]")
    page.wait_for_selector("text=Correction recorded")
    assert Correction.objects.get(story=story).created_by == editor

    # Find it on the public story page, and in its desk/1 rendering (index.json).
    story = Story.objects.get(pk=story.pk)
    response = page.goto(f"{base}{story.path}")
    assert response.status == 200
    assert story.headline in page.content()
    assert "An earlier version gave the wrong number of tasks." in page.inner_text("body")
    json_response = page.goto(f"{base}{story.path}index.json")
    assert json_response.status == 200
    corrections = json.loads(json_response.text())["corrections"]
    assert [(c["kind"], c["text"]) for c in corrections] == [
        ("correction", "An earlier version gave the wrong number of tasks.")
    ]
    page.goto(f"{base}{story.path}")
    page.screenshot(path=str(SCREENSHOTS / "public-story-correction.png"), full_page=False)


def log_in(pg, base, username, next_url):
    pg.goto(f"{base}/admin/login/?next={next_url}")
    pg.fill("#id_username", username)
    pg.fill("#id_password", "pw-for-tests-only")
    pg.click("input[type=submit]")


def test_two_people_editing_the_second_save_is_refused(live_server, page, editor, draft):
    from stories.models import Story
    from tests.stories.helpers import member_of

    member_of("Writer", "walt")
    url = f"/admin/stories/story/{draft.pk}/change/"
    base = live_server.url

    # The writer opens the story in another browser context (another person).
    writer_page = page.context.browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    log_in(writer_page, base, "walt", url)
    writer_page.wait_for_selector("#id_dek")

    # The editor opens it too, and is told the writer has it open.
    log_in(page, base, editor.username, url)
    page.wait_for_selector("#desk-presence")
    assert "walt" in page.inner_text("#desk-presence")

    # The writer saves first.
    writer_page.fill("#id_dek", "The writer's sharper dek.")
    writer_page.click("input[name=_continue]")
    writer_page.wait_for_selector("text=was changed successfully")

    # The editor's save is refused, with what changed.
    page.fill("#id_headline", "The editor's headline")
    page.locator("input[name=_continue]").first.click()
    page.wait_for_selector("#desk-conflict")
    assert "The writer's sharper dek." in page.inner_text("#desk-conflict")
    page.locator("#desk-conflict").screenshot(path=str(SCREENSHOTS / "conflict.png"))
    story = Story.objects.get(pk=draft.pk)
    assert (story.headline, story.dek) == (draft.headline, "The writer's sharper dek.")
    writer_page.context.close()
