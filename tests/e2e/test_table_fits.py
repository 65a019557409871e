"""The whole table on one screen: at a laptop's, a phone's (upright and on its side) and a tablet's
size, a hand played against bots never makes the page scroll, every tile of your hand and of every
seat's discards is on the screen with nothing over it, the end of the hand shows *Next hand* on the
screen, and a discard that opens a window where you can only pass moves nothing on the page."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest
from browserkit import LiveServer
from pagekit import eventually, in_view_and_uncovered, scrolls_sideways, server_view
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.e2e

SIZES = [(1366, 768), (1280, 720), (360, 740), (390, 844), (768, 1024), (740, 360)]

# What a person would notice: the page scrolling, a tile of a named region (your hand, a seat's
# discards) off the screen, or something else at a tile's centre (covering it).
LAYOUT = """() => {
  const vw = window.innerWidth, vh = window.innerHeight, doc = document.documentElement;
  const problems = [];
  if (doc.scrollWidth > vw || doc.scrollHeight > vh) {
    problems.push(`the page scrolls: ${doc.scrollWidth}×${doc.scrollHeight}`);
  }
  // the end of the hand's sheet lies over the table on purpose: then only the scrolling is checked
  if (!document.getElementById("result").hidden) return { problems, sheet: true };
  const regions = [...document.querySelectorAll('[aria-label="Your hand"], ol[aria-label$="\\'s discards"]')];
  let tiles = 0;
  for (const region of regions) {
    for (const tile of region.querySelectorAll("[data-tile]")) {
      tiles += 1;
      const r = tile.getBoundingClientRect();
      const where = `${region.getAttribute("aria-label")}: ${tile.getAttribute("aria-label")}`;
      if (r.left < 0 || r.top < 0 || r.right > vw + 0.5 || r.bottom > vh + 0.5) {
        problems.push(`${where} is off the screen at ${Math.round(r.left)},${Math.round(r.top)}`);
        continue;
      }
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (!hit || !(hit === tile || tile.contains(hit))) {
        problems.push(`${where} is covered by ${hit ? hit.outerHTML.slice(0, 80) : "nothing"}`);
      }
    }
  }
  return { problems, regions: regions.length, tiles };
}"""

ON_SCREEN = """(el) => {
  const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth
    && !!hit && (hit === el || el.contains(hit));
}"""
WHERE = """(el) => {
  const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return `at ${[r.left, r.top, r.right, r.bottom].map(Math.round)} in ${innerWidth}×${innerHeight}, `
    + `under ${hit ? hit.outerHTML.slice(0, 100) : "nothing"}`;
}"""


def assert_on_screen(page: Page, what: str, locator: Any) -> None:
    """``locator`` is on the screen with nothing over it, once the page has settled (a second)."""
    deadline = time.monotonic() + 1.0
    while not page.evaluate(ON_SCREEN, locator.element_handle()):
        where = page.evaluate(WHERE, locator.element_handle())
        assert time.monotonic() < deadline, f"{what} is not on the screen: {where}"
        page.wait_for_timeout(50)


def seat_page(
    live: LiveServer, page: Page, timers: dict[str, float], overrides: dict[str, object] | None = None
) -> tuple[str, str]:
    """Ann's table (she deals) with three bots, her seat in this browser, auto-pass on; started."""
    body = {"name": "Fits", "player": "Ann", "timers": timers, "overrides": overrides or {}}
    seat = page.request.post(f"{live.url}/api/tables", data=body).json()
    table_id, token = seat["table"], seat["token"]
    assert page.request.post(f"{live.url}/api/tables/{table_id}/bots", data={"token": token}).ok
    page.goto(live.url + "/")
    page.evaluate(
        "([key, value]) => { localStorage.setItem(key, value); localStorage.setItem('sparrow.autopass', '1'); }",
        [f"sparrow.seat.{table_id}", json.dumps(seat)],
    )
    page.goto(f"{live.url}/t/{table_id}")
    assert page.request.post(f"{live.url}/api/tables/{table_id}/start", data={"token": token}).ok
    expect(page.locator("#hand button.tile").first).to_be_visible()
    return table_id, token


def assert_fits(page: Page, when: str) -> None:
    found = page.evaluate(LAYOUT)
    if found.get("sheet"):
        assert not found["problems"], f"{when}: {found['problems']}"
        return
    assert found["regions"] == 5, f"{when}: the hand and four discard lists, found {found['regions']} regions"
    assert found["tiles"] >= 13, when
    assert not found["problems"], f"{when}: {found['problems'][:5]}"


@pytest.mark.parametrize("width, height", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_a_hand_fits_the_screen_at_every_moment(live: LiveServer, new_page: Any, width: int, height: int) -> None:
    page = new_page(width, height)
    seat_page(live, page, {"bot_delay": 0, "turn": 600, "claim": 120, "ready": 600}, {"claim_pause": False})
    # the regions keep their accessible names: an outside check finds them by these
    expect(page.get_by_role("group", name="Your hand")).to_be_visible()
    for name in ("Ann", "Bot 1", "Bot 2", "Bot 3"):
        expect(page.get_by_role("list", name=f"{name}'s discards")).to_have_count(1)
    result = page.locator("#result")
    discard = page.locator("#hand button.tile:not([disabled])")
    win = page.locator("#actions button[data-action=win]:not([disabled])")
    samples = 0
    deadline = time.monotonic() + 120
    while not result.is_visible():
        assert time.monotonic() < deadline, "the hand did not end within 120 s"
        if win.count():
            win.first.click()
        elif discard.count():
            assert_fits(page, f"turn {samples} at {width}×{height}")
            samples += 1
            page.keyboard.press("d")  # discard the drawn tile (a click's checks take long on a busy machine)
            assert_fits(page, f"after discard {samples} at {width}×{height}")
        else:
            page.wait_for_timeout(20)
    assert samples >= 5
    # the end of the hand: a sheet over the table, its button on the screen, nothing scrolls
    ready = result.locator("button[data-action=ready]")
    expect(ready).to_be_visible()
    assert_on_screen(page, "Next hand", ready)
    scroll = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
    assert scroll[0] <= width and scroll[1] <= height, scroll
    # the details fold out inside the sheet, and Next hand stays on the screen
    for summary in result.locator("details.more > summary").all():
        summary.click()
    assert_on_screen(page, "Next hand, with the details open,", ready)
    ready.click()
    expect(result).to_be_hidden()
    expect(discard.first).to_be_visible()
    assert page.evaluate("window.scrollY") == 0  # a new hand starts with the table in view
    assert_fits(page, f"the next hand at {width}×{height}")


BOXES = """() => {
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return [r.left, r.top, r.width, r.height].map(Math.round);
  };
  const out = {};
  for (const sel of ["#controls", ".prompt-row", "#actions", "#hand", "#me", ".pond", "#board"]) {
    const el = document.querySelector(sel);
    if (el) out[sel] = box(el);
  }
  document.querySelectorAll("#hand [data-tile]").forEach((t, i) => { out[`hand ${i}`] = box(t); });
  document.querySelectorAll(".board .seat").forEach((s) => { out[`seat ${s.dataset.seat}`] = box(s); });
  document.querySelectorAll(".pond-zone").forEach((z) => {
    out[`zone ${z.dataset.seat}`] = box(z);
    z.querySelectorAll("[data-tile]").forEach((t, i) => { out[`discard ${z.dataset.seat}.${i}`] = box(t); });
  });
  return out;
}"""

WATCH_SHIFTS = """() => {
  window.__shift = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.__shift += entry.value;
  }).observe({ type: "layout-shift" });
}"""


@pytest.mark.parametrize("width, height", [(360, 740), (1366, 768)], ids=["phone", "laptop"])
def test_a_discard_you_can_only_pass_on_moves_nothing(live: LiveServer, new_page: Any, width: int, height: int) -> None:
    page = new_page(width, height)
    table_id, _ = seat_page(live, page, {"bot_delay": 1, "turn": 600, "claim": 120, "pause": 3})
    page.evaluate("localStorage.setItem('sparrow.autopass', '0')")
    page.reload()
    expect(page.locator("#hand [data-tile]").first).to_be_visible()

    def turn() -> dict[str, Any]:
        view = server_view(live, table_id, 0)
        return {**(view["turn"] or {}), "legal": [a["type"] for a in view["legal_actions"]]}

    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:  # until a bot's discard leaves Ann nothing but pass
        now = turn()
        if now.get("phase") == "turn" and now.get("seat") == 0:
            if page.locator("#hand button.tile:not([disabled])").count():
                page.keyboard.press("d")
            page.wait_for_timeout(50)
            continue
        if now.get("phase") != "turn":  # a claim window: pass on a claim she could make, wait out the rest
            if now["legal"] and now["legal"] != ["pass"] and page.locator("#actions button.action-pass").count():
                page.locator("#actions button.action-pass").click()
            page.wait_for_timeout(50)
            continue
        bot = now["seat"]  # a bot thinks for a second: where everything is while nothing is asked of Ann
        page.wait_for_timeout(300)
        if turn() != now:
            continue
        page.evaluate(WATCH_SHIFTS)
        before = page.evaluate(BOXES)
        eventually(lambda b=bot: turn().get("from") == b or turn().get("phase") != "turn", "the bot's discard")
        after_turn = turn()
        if after_turn.get("phase") != "claim" or after_turn.get("from") != bot or after_turn["legal"] != ["pass"]:
            continue
        page.wait_for_timeout(300)  # the page has drawn the window
        after = page.evaluate(BOXES)
        assert turn() == after_turn, "the window closed before it was measured"
        moved = {key: (before[key], after[key]) for key in before if key in after and before[key] != after[key]}
        assert not moved, moved
        assert page.evaluate("window.__shift") == 0
        # nothing asked of her: no question and no button
        expect(page.locator("#actions button")).to_have_count(0)
        expect(page.locator("#prompt")).not_to_contain_text(re.compile("claim it|nothing for you"))
        return
    pytest.fail("no bot discarded a tile Ann could only pass on")


def test_on_a_phone_the_chat_opens_from_the_header_and_counts_unread_messages(live: LiveServer, new_page: Any) -> None:
    ann = new_page(360, 740)
    body = {"name": "Chatty", "player": "Ann", "timers": {"bot_delay": 0, "turn": 600}}
    seat = ann.request.post(f"{live.url}/api/tables", data=body).json()
    table_id, token = seat["table"], seat["token"]
    bob_seat = ann.request.post(f"{live.url}/api/tables/{table_id}/join", data={"name": "Bob"}).json()
    assert ann.request.post(f"{live.url}/api/tables/{table_id}/bots", data={"token": token}).ok
    bob = new_page(1366, 768)
    for page, held in ((ann, seat), (bob, bob_seat)):
        page.goto(live.url + "/")
        page.evaluate(
            "([key, value]) => localStorage.setItem(key, value)", [f"sparrow.seat.{table_id}", json.dumps(held)]
        )
        page.goto(f"{live.url}/t/{table_id}")
    assert ann.request.post(f"{live.url}/api/tables/{table_id}/start", data={"token": token}).ok
    expect(ann.locator("#board")).to_be_visible()
    toggle = ann.get_by_role("button", name=re.compile("^Chat"))
    expect(toggle).to_be_visible()  # in the one header row
    expect(ann.locator("#chat")).to_be_hidden()  # not under the table: the page does not scroll
    unread = ann.locator("#chat-unread")
    expect(unread).to_be_hidden()

    for text in ("Good luck!", "Nice wall."):  # Bob, on a laptop, has the chat beside his table
        bob.fill("#chat-input", text)
        bob.press("#chat-input", "Enter")
    expect(unread).to_have_text("2")
    expect(toggle).to_have_accessible_name("Chat, 2 unread")
    toggle.click()
    expect(ann.locator("#chat-log li").last).to_contain_text("Nice wall.")
    expect(unread).to_be_hidden()  # read
    ann.fill("#chat-input", "Thanks")
    ann.press("#chat-input", "Enter")
    expect(bob.locator("#chat-log li").last).to_contain_text("Thanks")
    ann.press("#chat-input", "Escape")  # closes it, and her own message was no news
    expect(ann.locator("#chat")).to_be_hidden()
    expect(unread).to_be_hidden()
    scroll = ann.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
    assert scroll == [360, 740]


# Each name in the waiting room's seat list: how many lines its text takes.
NAME_LINES = """() => [...document.querySelectorAll("#seat-list .who")].map((who) => {
  const range = document.createRange();
  range.selectNodeContents(who);
  const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
  return [who.textContent, lines.size, Math.round(who.getBoundingClientRect().width)];
})"""


def test_on_a_phone_the_waiting_room_keeps_names_whole_and_the_chat_opens_from_the_header(
    live: LiveServer, new_page: Any
) -> None:
    page = new_page(360, 740)
    body = {"name": "Waiting", "player": "Ann", "timers": {"bot_delay": 0}}
    seat = page.request.post(f"{live.url}/api/tables", data=body).json()
    table_id, token = seat["table"], seat["token"]
    assert page.request.post(f"{live.url}/api/tables/{table_id}/bots", data={"token": token}).ok
    page.goto(live.url + "/")
    page.evaluate("([key, value]) => localStorage.setItem(key, value)", [f"sparrow.seat.{table_id}", json.dumps(seat)])
    page.goto(f"{live.url}/t/{table_id}")
    expect(page.locator("#seat-list li.taken")).to_have_count(4)
    expect(page.get_by_role("button", name="Remove Bot 3 from seat 4")).to_be_visible()  # the owner's widest row
    names = page.evaluate(NAME_LINES)
    assert [name for name, _, _ in names] == ["Ann", "Bot 1", "Bot 2", "Bot 3"]
    assert all(lines == 1 for _, lines, _ in names), f"names broken over lines (name, lines, width): {names}"
    assert not scrolls_sideways(page)
    # the chat: from the header, on the screen, and back
    toggle = page.get_by_role("button", name=re.compile("^Chat"))
    assert in_view_and_uncovered(page, "#chat-toggle"), "the header's Chat is off the screen or covered"
    toggle.click()
    expect(page.locator("#chat-input")).to_be_visible()
    assert in_view_and_uncovered(page, "#chat-input")
    page.fill("#chat-input", "Ready when you are")
    page.press("#chat-input", "Enter")
    expect(page.locator("#chat-log li").last).to_contain_text("Ready when you are")
    page.press("#chat-input", "Escape")
    expect(page.locator("#chat")).to_be_hidden()


# Each seat's place in the pond, its discards' boxes, and the width of a discard.
PONDS = """() => [...document.querySelectorAll(".pond-zone")].map((zone) => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  return { seat: zone.dataset.seat, zone: box(zone), tiles: [...zone.querySelectorAll("[data-tile]")].map(box) };
})"""


def test_on_a_phone_on_its_side_each_seats_discards_stay_apart(live: LiveServer, new_page: Any) -> None:
    page = new_page(740, 360)
    seat_page(live, page, {"bot_delay": 0, "turn": 600, "claim": 120, "ready": 600}, {"claim_pause": False})
    discard = page.locator("#hand button.tile:not([disabled])")
    for _ in range(3):  # everyone has discarded when Ann's turn comes round again
        expect(discard.first).to_be_visible()
        page.keyboard.press("d")
        expect(page.locator(".pond-zone[data-seat='0'] [data-tile]")).not_to_have_count(0)
    expect(discard.first).to_be_visible()
    zones = page.evaluate(PONDS)
    assert len(zones) == 4
    assert all(zone["tiles"] for zone in zones), "every seat has discarded"
    width = min(t[2] - t[0] for zone in zones for t in zone["tiles"])
    for zone in zones:  # every discard lies in its seat's place...
        z = zone["zone"]
        for t in zone["tiles"]:
            assert z[0] - 0.5 <= t[0] and t[2] <= z[2] + 0.5 and z[1] - 0.5 <= t[1] and t[3] <= z[3] + 0.5, zone
    for a in zones:  # ...and places side by side keep at least 40 % of a tile between them
        for b in zones:
            side_by_side = min(a["zone"][3], b["zone"][3]) - max(a["zone"][1], b["zone"][1]) > 1
            if a is not b and side_by_side and a["zone"][2] <= b["zone"][0] + 0.5:
                gap = b["zone"][0] - a["zone"][2]
                assert gap >= 0.4 * width, f"seat {a['seat']}'s and seat {b['seat']}'s discards {gap:.1f} px apart"
