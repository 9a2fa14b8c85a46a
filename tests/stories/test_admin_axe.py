"""The desk's admin pages in a real browser: axe-core finds no critical or serious
accessibility violation, and the layout neither overflows nor overlaps at 1280 and 1920 px.

Drives Debian's Chromium through Playwright (never a downloaded browser) and injects the
axe-core npm package (``npm ci`` installs it from package-lock.json); skipped when either
is missing.
"""

import json
import os
from pathlib import Path

import pytest

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = "/usr/bin/chromium"
AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"

playwright_sync = pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no browser at {CHROMIUM} (apt-get install chromium)"),
    pytest.mark.skipif(not AXE.exists(), reason="axe-core is not installed: run `npm ci` at the repository root"),
]

PASSWORD = "pw-for-tests-only"


@pytest.fixture
def browser():
    with playwright_sync.sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
        )
        yield chromium
        chromium.close()


def _logged_in(browser, live_server, user, width):
    # bypass_csp: axe is injected as a script of its own; the pages themselves run none inline.
    context = browser.new_context(viewport={"width": width, "height": 900}, bypass_csp=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")
    return page


def _serious(page) -> list[dict]:
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [
        {"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]][:5]}
        for v in result["violations"]
        if v["impact"] in ("critical", "serious")
    ]


@pytest.fixture
def desk(draft, editor):
    from stories import actions

    editor.set_password(PASSWORD)
    editor.save()
    actions.submit_for_review(story=draft, user=editor)
    return draft, editor


def test_the_desk_pages_have_no_critical_or_serious_axe_violation(live_server, browser, desk):
    draft, editor = desk
    page = _logged_in(browser, live_server, editor, 1280)
    cite = draft.sections.all()[0].paragraphs.all()[0].cites.first()
    pages = {
        "story change page": f"/admin/stories/story/{draft.pk}/change/",
        "review queue": "/admin/stories/story/review/",
        "story list": "/admin/stories/story/",
        "add story page": "/admin/stories/story/add/",
        "cite page": f"/admin/stories/cite/{cite.pk}/change/",
        "refusal page": "/admin/stories/story/nonexistent/publish/",
    }
    found = {}
    for name, path in pages.items():
        page.goto(live_server.url + path)
        violations = _serious(page)
        if violations:
            found[name] = violations
    assert found == {}, json.dumps(found, indent=1)


@pytest.mark.parametrize("width", [1280, 1920])
def test_the_change_page_neither_overflows_nor_overlaps(live_server, browser, desk, width):
    draft, editor = desk
    page = _logged_in(browser, live_server, editor, width)
    for path in [f"/admin/stories/story/{draft.pk}/change/", "/admin/stories/story/review/", "/admin/stories/story/"]:
        page.goto(live_server.url + path)
        scroll, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert scroll <= inner, f"{path} overflows at {width}px: {scroll} > {inner}"
    page.goto(f"{live_server.url}/admin/stories/story/{draft.pk}/change/")
    tools = page.locator("#content .object-tools").bounding_box()
    for heading in ("#content > h1", "#content > h2"):
        box = page.locator(heading).first.bounding_box()
        if box is None or tools is None:
            continue
        overlap = not (
            tools["x"] + tools["width"] <= box["x"]
            or box["x"] + box["width"] <= tools["x"]
            or tools["y"] + tools["height"] <= box["y"]
            or box["y"] + box["height"] <= tools["y"]
        )
        assert not overlap, f"the buttons row overlaps {heading} at {width}px: {tools} / {box}"
