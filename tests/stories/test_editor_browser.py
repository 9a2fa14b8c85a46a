"""The editing screen in a real browser (Debian's Chromium through Playwright; skipped when
either is missing): a story built from scratch and published in at most three page loads;
the live rubric after typing an unsupported figure; axe-core on the screen and the publish
page. Screenshots are saved (``tests.screenshots``: ``make screenshots`` refreshes the
editor guide's images)."""

import datetime as dt
import os
from pathlib import Path

import pytest

from tests.screenshots import screenshots_dir

# The live server runs in a thread while Playwright's sync API runs an event loop in this one.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = screenshots_dir()
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"

playwright_sync = pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no browser at {CHROMIUM} (apt-get install chromium)"),
]

# The sources of the story written in the first test: one distinctive word per claim, to search by.
CLAIMS = {
    "kestrel": "The Kestrel planner finished 74% of the 1,200 test tasks.",
    "heron": "Heron Labs trained the Kestrel planner on 12,000 synthetic tasks.",
    "osprey": "The Osprey benchmark counts a task as done only when every step passes.",
    "plover": "Plover Research found that the planner failed most tasks longer than 30 steps.",
    "egret": "The Egret team will publish the planner's weights in January.",
}


def browser_page(*, bypass_csp: bool = False):
    """A Chromium page (1280 px wide) that records Content-Security-Policy refusals."""
    p = playwright_sync.sync_playwright().start()
    browser = p.chromium.launch(
        executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
    )
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=bypass_csp)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.csp_violations = []
    page.on("console", lambda msg: "Content Security Policy" in msg.text and page.csp_violations.append(msg.text))
    page.on("dialog", lambda dialog: dialog.accept())

    def close():
        context.close()
        browser.close()
        p.stop()

    return page, close


@pytest.fixture
def page():
    pg, close = browser_page()
    yield pg
    # Nothing on the screen may be refused by the site's Content-Security-Policy.
    assert pg.csp_violations == []
    close()


def log_in(page, live_server, user):
    """The user's session cookie in the browser (the login page is not what is tested)."""
    from django.test import Client

    client = Client()
    client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )


@pytest.fixture
def sources(db):
    from tests.factories import ClaimFactory, ManifestFactory, NewsroomFactory

    NewsroomFactory(slug="technology", title="Technology")
    today = dt.datetime.now(dt.UTC).date()
    claims = {}
    for i, (word, text) in enumerate(CLAIMS.items()):
        manifest = ManifestFactory(title=f"{word.title()} report", published_date=today - dt.timedelta(days=i % 2))
        claims[word] = ClaimFactory(manifest=manifest, text=text, self_reported=False)
    return claims


def cite(page, unit_id: str, word: str, claim):
    page.click(f"#{unit_id} .editor-add-cite")
    page.fill("#editor-search-q", word)
    page.click(f'button[aria-label="Cite claim {claim.id}"]')
    page.click("#editor-search-close")
    page.wait_for_selector(f"#{unit_id} .editor-cite:has-text('{claim.text[:20]}')")


def test_a_story_is_built_from_scratch_and_published_in_three_page_loads(live_server, page, editor, sources):
    from stories.models import Revision, Story

    loads = []
    page.on("load", lambda: loads.append(page.url))
    log_in(page, live_server, editor)

    page.goto(f"{live_server.url}/admin/stories/story/add/")  # page load 1
    page.select_option("#editor-newsroom", "technology")
    page.fill("#editor-headline", "A small planner finishes most of its tasks")
    page.fill("#editor-dek", "What the Kestrel planner does, and where it fails.")

    page.click("#editor-add-key-fact")
    page.fill("#unit-k0-text", CLAIMS["kestrel"])
    cite(page, "unit-k0", "kestrel", sources["kestrel"])

    page.click("#editor-add-section")
    page.fill("#editor-s0-heading", "What it does")
    page.fill("#unit-s0-p0-text", CLAIMS["heron"])
    cite(page, "unit-s0-p0", "heron", sources["heron"])
    page.click("#section-0 .editor-add-paragraph")
    page.fill("#unit-s0-p1-text", CLAIMS["osprey"])
    cite(page, "unit-s0-p1", "osprey", sources["osprey"])

    page.click("#editor-add-section")
    page.fill("#editor-s1-heading", "Where it fails")
    page.fill("#unit-s1-p0-text", CLAIMS["plover"])
    cite(page, "unit-s1-p0", "plover", sources["plover"])
    page.click("#section-1 .editor-add-paragraph")
    page.fill("#unit-s1-p1-text", CLAIMS["egret"])
    cite(page, "unit-s1-p1", "egret", sources["egret"])

    page.wait_for_selector("#editor-checks-summary.desk-pass")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "editor-new-story.png"), full_page=True)

    page.click("#editor-save")
    page.wait_for_selector("#editor-save-status:has-text('Saved: version 1')")
    story = Story.objects.get(slug="a-small-planner-finishes-most-of-its-tasks")
    assert story.version == 1 and Revision.objects.filter(story=story).count() == 1
    assert [len(s.paragraphs.all()) for s in story.sections.all()] == [2, 2]
    assert page.url.endswith(f"/admin/stories/story/{story.pk}/editor/")  # no page load

    page.click("#editor-publish")  # page load 2
    page.wait_for_selector("#publish-checks .desk-pass")
    assert page.locator("[name=override_reason]").count() == 0  # nothing failed: no override offered
    page.screenshot(path=str(SCREENSHOTS / "editor-publish.png"), full_page=True)
    page.click("#desk-publish-submit")  # page load 3
    page.wait_for_selector("text=Published.")

    story = Story.objects.get(pk=story.pk)
    assert story.is_published
    assert len(loads) <= 3, loads


def test_the_live_rubric_names_an_unsupported_figure_as_it_is_typed(live_server, page, editor, draft):
    log_in(page, live_server, editor)
    page.goto(f"{live_server.url}/admin/stories/story/{draft.pk}/editor/")
    page.wait_for_selector("#editor-checks-summary.desk-pass")
    page.locator("#unit-s1-p0-text").press("End")
    page.locator("#unit-s1-p0-text").type(" It scored 900 points.")
    finding = page.locator("#unit-s1-p0 .editor-finding.error", has_text="900 is not stated by any cited claim")
    finding.wait_for()
    assert "Section 2, paragraph 1: 900 is not stated by any cited claim" in finding.inner_text()
    page.wait_for_selector("#editor-checks-summary.desk-fail")
    # The claims it was compared against, one click away.
    page.click("#unit-s1-p0 .editor-compared summary")
    compared = page.locator("#unit-s1-p0 .editor-compared li").first
    assert compared.is_visible() and compared.inner_text()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#unit-s1-p0").screenshot(path=str(SCREENSHOTS / "editor-live-finding.png"))
    # Leaving now would lose the edit: the browser asks first (accepted here).
    assert page.evaluate(
        "() => { const e = new Event('beforeunload', {cancelable: true}); "
        "window.dispatchEvent(e); return e.defaultPrevented; }"
    )


@pytest.mark.skipif(not AXE.exists(), reason="axe-core is not installed: run `npm ci` at the project root")
def test_axe_finds_no_critical_or_serious_violation(live_server, editor, uncited_draft):
    page, close = browser_page(bypass_csp=True)  # axe is injected as a script of the test's own
    try:
        log_in(page, live_server, editor)
        for url, ready in (
            (f"/admin/stories/story/{uncited_draft.pk}/editor/", "#editor-checks-summary.desk-fail"),
            ("/admin/stories/story/add/", "#editor-headline"),
            (f"/admin/stories/story/{uncited_draft.pk}/publish/", "#publish-checks"),
        ):
            page.goto(live_server.url + url)
            page.wait_for_selector(ready)
            page.add_script_tag(path=str(AXE))
            violations = page.evaluate("async () => (await axe.run(document)).violations")
            bad = [
                (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
                for v in violations
                if v["impact"] in ("critical", "serious")
            ]
            assert bad == [], (url, bad)
    finally:
        close()
