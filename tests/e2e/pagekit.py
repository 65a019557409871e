"""Steps a person takes in the browser, for the e2e tests: create a table from the lobby, fill it with
bots and start it, play a turn, and read what a page shows. Waits use Playwright's locators and
`expect` (the pages' Content-Security-Policy forbids the `eval` that `wait_for_function` needs).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from browserkit import LiveServer
from playwright.sync_api import Locator, Page, expect

from game.notation import parse_tiles
from game.view import view


def create_table(
    page: Page,
    base_url: str,
    player: str,
    *,
    table_name: str = "Test table",
    bot_delay: float = 0.05,
    fair_pause: bool = True,
    claim: int | None = None,
) -> str:
    """Create a table from the lobby page as ``player``; the page ends on the table. Returns its id.
    ``fair_pause`` False unticks the fair pause (R6.9), for a test that only waits through it; ``claim``
    sets the claim timer's seconds (for a test that looks at a claim window at its leisure)."""
    page.goto(base_url + "/")
    page.fill("#player-name", player)
    page.fill("#create-form input[name=name]", table_name)
    page.fill("#create-form input[name=bot_delay]", str(bot_delay))
    if not fair_pause:
        page.get_by_label("Fair pause").uncheck()
    if claim is not None:
        page.fill("#create-form input[name=claim]", str(claim))
    page.click("#create-form button[type=submit]")
    page.wait_for_url("**/t/*")
    expect(page.locator("#seat-list li.taken")).to_have_count(1)
    return page.url.rsplit("/", 1)[1]


def fill_with_bots_and_start(page: Page) -> None:
    """As the owner: add bots to the empty seats, start, and wait for the hand to be dealt."""
    page.click("#add-bots")
    expect(page.locator("#start")).to_be_enabled()
    page.click("#start")
    expect(page.locator("#board")).to_be_visible()


def codes(tiles: Locator) -> list[str]:
    """The tile codes of the tile elements ``tiles`` matches, in page order."""
    return [str(tile.get_attribute("data-tile")) for tile in tiles.all()]


def hand_codes(page: Page) -> list[str]:
    """The tile codes the page shows in its own hand (concealed tiles and the drawn one)."""
    return codes(page.locator("#hand [data-tile]"))


def server_view(live: LiveServer, table_id: str, seat: int | None) -> Any:
    """The engine's view of the table's game for ``seat``, read on the server's own loop."""

    def read() -> Any:
        game = live.lobby.get(table_id).game
        assert game is not None
        return view(game, seat)

    return live.call(read)


def concealed_on_server(live: LiveServer, table_id: str, seat: int) -> list[str]:
    """What the server says ``seat`` holds concealed, as tile codes."""
    return [str(tile) for tile in parse_tiles(server_view(live, table_id, seat)["seats"][seat]["concealed"])]


def same_tiles(a: list[str], b: list[str]) -> bool:
    """Equal as multisets."""
    return Counter(a) == Counter(b)


def discard_one(page: Page, *, prefer_drawn: bool = True) -> str:
    """Click a tile of the hand to discard it (the drawn tile if there is one); its code."""
    drawn = page.locator("#hand button.tile.drawn:not([disabled])")
    tile = drawn if prefer_drawn and drawn.count() else page.locator("#hand button.tile:not([disabled])").last
    code = str(tile.get_attribute("data-tile"))
    tile.click()
    return code


def play_until_result(page: Page, *, timeout: float = 90.0) -> int:
    """Play by clicking until the end-of-hand panel shows: win when offered, otherwise discard the
    drawn tile (auto-pass answers the claims). Returns the number of tiles discarded.
    """
    deadline = time.monotonic() + timeout
    result = page.locator("#result")
    win = page.locator("#actions button[data-action=win]:not([disabled])")
    discardable = page.locator("#hand button.tile:not([disabled])")
    discards = 0
    while not result.is_visible():
        assert time.monotonic() < deadline, f"the hand did not end within {timeout} s"
        if win.count():
            win.first.click()
        elif discardable.count():
            discard_one(page)
            discards += 1
        else:
            page.wait_for_timeout(20)
    return discards


def eventually(check: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    """Wait until ``check()`` holds (for state the page and the server both change)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out after {timeout} s waiting for {what}"
        time.sleep(0.05)


# Everything a finger can hit on a page: links, buttons, fields, and whatever is made focusable.
_SMALL_TARGETS = """() => {
    const small = [];
    const targets = "a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button]";
    for (const target of document.querySelectorAll(targets)) {
        const box = target.getBoundingClientRect();
        if (box.width === 0 && box.height === 0) continue; // not displayed
        if (target.closest("[hidden], dialog:not([open])")) continue;
        if (box.width < 24 || box.height < 24) {
            const words = (target.getAttribute("aria-label") || target.textContent || target.name || "").trim();
            const size = `${box.width.toFixed(1)} x ${box.height.toFixed(1)}`;
            small.push(`${target.tagName.toLowerCase()} "${words.slice(0, 40)}": ${size}`);
        }
    }
    return small;
}"""


def small_targets(page: Page) -> list[str]:
    """Every link, button or field shown on ``page`` that is under 24 x 24 px (WCAG 2.5.8), described."""
    found: list[str] = page.evaluate(_SMALL_TARGETS)
    return found


def scrolls_sideways(page: Page) -> bool:
    """The page is wider than its window: someone must scroll it sideways to read it."""
    return bool(page.evaluate("document.documentElement.scrollWidth > document.documentElement.clientWidth"))


def in_view_and_uncovered(page: Page, selector: str) -> bool:
    """The element ``selector`` finds lies wholly inside the window, and is what a tap at its centre hits."""
    found: bool = page.evaluate(
        """(selector) => {
            const target = document.querySelector(selector);
            if (!target) return false;
            const box = target.getBoundingClientRect();
            const inside = box.width > 0 && box.top >= 0 && box.left >= 0
                && box.bottom <= window.innerHeight && box.right <= window.innerWidth;
            const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
            return inside && hit !== null && (hit === target || target.contains(hit));
        }""",
        selector,
    )
    return found


def set_option(page: Page, box: str, on: bool = True) -> None:
    """Tick (or untick) the checkbox ``box`` (a CSS selector) in the table's settings menu, which
    opens from the header and closes again."""
    menu = page.locator("#settings")
    menu.locator("summary").click()
    page.set_checked(box, on)
    menu.locator("summary").click()
    expect(menu.locator(".settings-menu")).to_be_hidden()
