"""Take the README's screenshots: `.venv/bin/python docs/screenshots/shoot.py` (needs /usr/bin/chromium).

A live server (the browser tests' own, tests/e2e/browserkit.py) on a fresh members-only club: the
first admin logs in, creates a table, fills it with bots and plays; the pictures are taken at
1366×768 and 360×740, with picture tiles and with simple tiles.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE.parents[1] / "tests" / "e2e")]

from browserkit import CHROMIUM, CHROMIUM_ARGS, LiveServer  # noqa: E402
from pagekit import discard_one, play_until_result, set_option  # noqa: E402
from playwright.sync_api import Page, sync_playwright  # noqa: E402

from server.club.club import ClubConfig  # noqa: E402

PASSWORD = "correct horse battery"


def play_a_while(page: Page, discards: int) -> None:
    """Discard ``discards`` times (auto-pass answers claims), then stop on the next turn of ours."""
    set_option(page, "#autopass")
    done = 0
    while done < discards:
        if page.locator("#result").is_visible():
            return
        if page.locator("#hand button.tile:not([disabled])").count():
            discard_one(page)
            done += 1
        page.wait_for_timeout(120)
    page.locator("#hand button.tile:not([disabled])").first.wait_for()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, LiveServer(f"sqlite+aiosqlite:///{tmp}/c.db", ClubConfig("s")) as live:
        link = live.wait(live.app.state.club.first_admin_link())
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            for width, height, tag in ((1366, 768, ""), (360, 740, "-phone")):
                context = browser.new_context(viewport={"width": width, "height": height})
                page = context.new_page()
                page.goto(f"{live.url}/")
                if not tag:
                    page.screenshot(path=HERE / "login.png")
                    page.goto(f"{live.url}{link}")
                    page.fill("input[name=name]", "Ann")
                    page.fill("input[name=password]", PASSWORD)
                    page.click("form.club-form button[type=submit]")
                else:
                    page.fill("input[name=name]", "Ann")
                    page.fill("input[name=password]", PASSWORD)
                    page.click("form.club-form button[type=submit]")
                page.wait_for_url(f"{live.url}/")
                if not tag:
                    page.screenshot(path=HERE / "lobby.png")
                page.fill("#create-form input[name=name]", "Friday night")
                page.fill("#create-form input[name=bot_delay]", "0.05")
                page.click("#create-form button[type=submit]")
                page.wait_for_url("**/t/*")
                page.click("#add-bots")
                page.click("#start")
                play_a_while(page, 5)
                page.evaluate("window.scrollTo(0, 0)")
                page.wait_for_timeout(400)
                page.screenshot(path=HERE / f"table{tag}.png")
                set_option(page, "#simple-tiles")
                page.screenshot(path=HERE / f"table-simple{tag}.png")
                set_option(page, "#simple-tiles", on=False)
                if not tag:
                    play_until_result(page, timeout=90)
                    page.locator("#result").scroll_into_view_if_needed()
                    page.wait_for_timeout(300)
                    page.locator("#result").screenshot(path=HERE / "end-of-hand.png")
                    page.goto(f"{live.url}/admin")
                    page.fill("#invite-form input[name=name]", "Bob")
                    page.click("#invite-form button[type=submit]")
                    page.locator("#link-box").wait_for()
                    page.screenshot(path=HERE / "admin.png")
                context.close()
            browser.close()
    print(f"screenshots written to {HERE}")


if __name__ == "__main__":
    main()
