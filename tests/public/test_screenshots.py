"""The demo story page in headless Chromium, at desktop and phone widths.

Saves ``story-desktop.png`` and ``story-phone.png`` (and the cite popover) for people to
look at (``tests.screenshots``: ``make screenshots`` refreshes the docs' images), and
asserts what a reader would trip over: sideways scrolling on a phone, a marker that does
not lead to its source, a popover that does not open.
"""

import os

import pytest

from tests.screenshots import screenshots_dir

CHROMIUM = "/usr/bin/chromium"
OUT = screenshots_dir()
URL = "/stories/2026-10-16/agent-training-stack/"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="no Chromium at /usr/bin/chromium"),
]


@pytest.fixture
def browser(async_unsafe):
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
        )
        yield b
        b.close()


@pytest.mark.parametrize("name,width,height", [("desktop", 1280, 900), ("phone", 390, 844)])
def test_story_page_screenshot(browser, live_server, demo, name, width, height):
    page = browser.new_page(viewport={"width": width, "height": height}, device_scale_factor=1)
    page.goto(live_server.url + URL)
    assert page.title().startswith("Agent training gets practical")
    assert page.evaluate("getComputedStyle(document.body).fontFamily").startswith("Georgia"), (
        "the stylesheet did not load"
    )
    # nothing wider than the screen
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    OUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(OUT / f"story-{name}.png"), full_page=True)
    page.screenshot(path=str(OUT / f"story-{name}-top.png"))
    page.close()


def test_cite_marker_opens_claims_and_works_without_script(browser, live_server, demo):
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(live_server.url + URL)
    marker = page.locator("sup.cite a").nth(5)  # first paragraph of the first section
    marker.click()
    popover = page.locator(".cite-popover")
    popover.wait_for()
    assert "What RL environments actually fix" in popover.inner_text()
    assert "not a bad model" in popover.inner_text() or len(popover.locator("li").all()) == 3
    OUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(OUT / "story-phone-cite.png"))
    page.keyboard.press("Escape")
    assert popover.count() == 0
    # focus goes back to the marker the reader opened
    assert page.evaluate("document.activeElement === document.querySelectorAll('sup.cite a')[5]")
    # with the script, the sources list is folded until a link leads to a source
    assert not page.locator("#claim-1792067413462310158").is_visible()
    marker.click()
    page.locator(".cite-popover a", has_text="Go to the source").click()
    assert page.url.endswith("#source-1")
    page.locator("#claim-1792067413462310158").wait_for(state="visible")
    page.close()

    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(live_server.url + URL)
    page.locator("sup.cite a").nth(5).click()
    assert page.url.endswith("#source-1")
    # without the script every cited claim is shown in the sources list
    assert page.locator("#claim-1792067413462310158").is_visible()
    context.close()
