"""The table tells you when it waits for you: the tab's title flashes when a claim becomes possible
and on your turn; when your clock runs out you are told what the server did for you; a call is
announced over the caller's side; and "tap twice to discard" lifts a tile before it goes."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from browserkit import LiveServer
from pagekit import create_table, discard_one, fill_with_bots_and_start
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

AXE = Path(__file__).parent / "node_modules" / "axe-core" / "axe.min.js"
NAME_MISMATCH = """async () => {
  const found = await axe.run("#actions", { runOnly: ["label-content-name-mismatch", "button-name"] });
  return found.violations.map((v) => ({ rule: v.id, where: v.nodes.map((n) => n.html) }));
}"""


def test_the_title_flashes_when_a_claim_becomes_possible(live: LiveServer, new_page: Any) -> None:
    page = new_page(bypass_csp=True)  # (axe is injected below as the test's own script)
    # (no 1.5 s wait after each discard; a claim window that stays open while the test looks at it)
    create_table(page, live.url, "Ann", fair_pause=False, claim=120)
    fill_with_bots_and_start(page)
    claim = page.locator("#actions button[data-action=pung], #actions button[data-action=chow]")
    titles: set[str] = set()
    deadline = time.monotonic() + 40
    while not claim.count():  # play on, discarding, until a bot's discard can be claimed
        assert time.monotonic() < deadline, "no claim became possible"
        titles.add(page.title())
        if page.locator("#result").is_visible():
            page.locator("#result button.ready").click()
        elif page.locator("#hand button.tile:not([disabled])").count():
            discard_one(page)
        page.wait_for_timeout(30)
    # a claim button's name is what it shows (its word, key hint and tiles): axe finds no mismatch
    assert AXE.exists(), "make test installs axe-core"
    page.add_script_tag(path=str(AXE))
    mismatched = page.evaluate(NAME_MISMATCH)
    assert claim.count(), "the claim window closed before it was checked"
    assert not mismatched, mismatched
    assert any(t.startswith("● Your turn") for t in titles)  # it flashed on her turns too
    seen = set()
    deadline = time.monotonic() + 20
    while "● You can claim" not in seen and time.monotonic() < deadline:  # the title alternates every second
        seen.add(page.title())
        page.wait_for_timeout(100)
    assert "● You can claim" in seen, seen


def test_a_timeout_says_what_was_done_for_you_and_tap_twice_lifts_first(live: LiveServer, new_page: Any) -> None:
    page = new_page(360, 740)
    api = page.request
    body = {"name": "Slow", "player": "Ann", "timers": {"turn": 3, "bot_delay": 0}}
    seat = api.post(f"{live.url}/api/tables", data=body).json()
    table_id, token = seat["table"], seat["token"]
    assert api.post(f"{live.url}/api/tables/{table_id}/bots", data={"token": token}).ok
    page.goto(live.url + "/")
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"sparrow.seat.{table_id}", json.dumps(seat)])
    page.evaluate("() => localStorage.setItem('sparrow.taptwice', '1')")
    page.goto(f"{live.url}/t/{table_id}")
    expect(page.locator("#tap-twice")).to_be_checked()
    assert api.post(f"{live.url}/api/tables/{table_id}/start", data={"token": token}).ok

    # Ann is the dealer: she does nothing, and after 3 s the server discards for her
    notice = page.locator("#notice")
    expect(notice).to_contain_text("Time ran out:", timeout=8000)
    expect(notice).to_contain_text("discarded for you")

    # on her next turn, a first tap lifts the tile and a second discards it
    tile = page.locator("#hand button.tile.drawn:not([disabled])")
    expect(tile).to_have_count(1, timeout=15000)
    before = page.locator(".pond-zone[data-seat='0'] .discards li").count()
    tile.click()
    expect(page.locator("#hand .tile.lifted")).to_have_count(1)
    assert page.locator(".pond-zone[data-seat='0'] .discards li").count() == before
    page.locator("#hand .tile.lifted").click()
    expect(page.locator(".pond-zone[data-seat='0'] .discards li")).to_have_count(before + 1)
