"""A claim window on a phone's screen: dealt from a stacked wall, the player's left-hand neighbour
discards a tile she can claim in one, two or three chows (with a pung, a kong and a win besides); at a
phone's size upright and on its side, every claim button, *Pass* and her clock lie wholly on the
screen with nothing clipping them, and the prompt shows the offered tile and whose discard it is in
words that fit their box. Once she claims, the table's "Pung!" is not over the set she just made.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from browserkit import TIMEOUT_MS, LiveServer
from gamekit import stacked_wall
from pagekit import eventually
from playwright.sync_api import Page, expect

from game import Action, ActionType, Game, Rules, Wall
from server.tables import seating

pytestmark = pytest.mark.e2e

BOTS = ["1289b 2468c 2468d N", "1289b 2468c 2468d N", "1289b 2468c 2468d S"]
DRAWS = "E W W 5b"  # Ann's 14th (she discards it), then each bot's draw, which it discards: Bot 3's is 5b
# Ann's 13 tiles, by what Bot 3's 5 bamboo offers her
HANDS = {
    "one chow": "46b 111c 999d 2357c 1d",
    "two chows and a pung": "45567b 111c 999d 28c",
    "three chows, pung, kong and win": "3455567b 111c 999d",
}
CHOWS = {"one chow": 1, "two chows and a pung": 2, "three chows, pung, kong and win": 3}
STACKS: dict[int, list[str]] = {}  # a table's seed → the hands its first deal deals


def steady(game: Game, seat: int) -> Action:
    """The bots' policy here: pass every claim, discard the tile just drawn, be ready for the next hand."""
    actions = game.legal_actions(seat)
    for action in actions:
        if action.type in (ActionType.PASS, ActionType.READY):
            return action
    discards = [a for a in actions if a.type is ActionType.DISCARD]
    return next((a for a in discards if a.tile == game.deal.drawn), discards[-1])


@pytest.fixture(scope="module")
def stacked(live: LiveServer) -> Iterator[LiveServer]:
    """The module's server with steady bots, where a table whose seed is in ``STACKS`` deals its first
    hand from that stacked wall (a game made for any other seed is the seeded shuffle)."""
    made = seating.Game

    def game(rules: Rules | None = None, seed: int | str = 0, **kw: Any) -> Game:
        if seed in STACKS:
            rules = rules or Rules()
            first = stacked_wall(STACKS[int(seed)], DRAWS, rules=rules)
            later = rules  # the later deals: a seeded shuffle, as `stacked_game` deals them
            return made(rules, seed, walls=lambda n: first if n == 0 else Wall.shuffled(f"{seed}/{n}", later), **kw)
        return made(rules, seed, **kw)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(seating, "Game", game)
        patch.setattr(live.lobby, "bot", steady)
        yield live


def claim_window(live: LiveServer, page: Page, ann: str, seed: int) -> str:
    """Ann's table from ``ann``'s hand and the bots' stacked hands, her seat in ``page``; she discards
    her 14th tile and the bots theirs, up to Bot 3's 5 bamboo. Returns the table's id."""
    STACKS[seed] = [ann, *BOTS]
    body = {
        "name": "Claims",
        "player": "Ann",
        "timers": {"bot_delay": 0, "turn": 600, "claim": 120},
        "overrides": {"claim_pause": False},
    }
    seat = live.wait(live.lobby.create(body, seed=seed))
    table_id, token = seat["table"], seat["token"]
    assert page.request.post(f"{live.url}/api/tables/{table_id}/bots", data={"token": token}).ok
    page.goto(live.url + "/")
    page.evaluate(
        "([key, value]) => { localStorage.setItem(key, value); localStorage.setItem('sparrow.autopass', '0'); }",
        [f"sparrow.seat.{table_id}", json.dumps(seat)],
    )
    page.goto(f"{live.url}/t/{table_id}")
    assert page.request.post(f"{live.url}/api/tables/{table_id}/start", data={"token": token}).ok
    page.locator("#hand button.tile.drawn").click()  # her 14th, the east wind
    expect(page.locator("#actions button[data-action=pass]")).to_be_visible()
    return table_id


# Each element that must be seen: where it lies outside the window or outside an ancestor that clips
# (overflow other than visible), described; and the prompt's own overflow.
CLIPPED = """() => {
  const vw = window.innerWidth, vh = window.innerHeight, problems = [];
  const name = (el) =>
    (el.getAttribute("aria-label") || el.textContent || el.id).trim().replace(/\\s+/g, " ").slice(0, 40);
  const round = (r) => [r.left, r.top, r.right, r.bottom].map(Math.round).join(",");
  const targets = [...document.querySelectorAll("#actions button"), document.getElementById("countdown"),
    document.getElementById("prompt")];
  for (const el of targets) {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) { problems.push(`${name(el)} has no size: ${round(r)}`); continue; }
    if (r.left < 0 || r.top < 0 || r.right > vw + 0.5 || r.bottom > vh + 0.5) {
      problems.push(`${name(el)} is off the ${vw}×${vh} screen at ${round(r)}`);
    }
    for (let up = el.parentElement; up && up !== document.documentElement; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (style.overflowX === "visible" && style.overflowY === "visible") continue;
      const c = up.getBoundingClientRect();
      if (r.left < c.left - 0.5 || r.top < c.top - 0.5 || r.right > c.right + 0.5 || r.bottom > c.bottom + 0.5) {
        const clipper = `${up.tagName.toLowerCase()}.${up.className}`;
        problems.push(`${name(el)} at ${round(r)} is clipped by ${clipper} at ${round(c)}`);
      }
    }
  }
  const prompt = document.getElementById("prompt");
  if (prompt.scrollWidth > prompt.clientWidth || prompt.scrollHeight > prompt.clientHeight) {
    const [sw, sh, cw, ch] = [prompt.scrollWidth, prompt.scrollHeight, prompt.clientWidth, prompt.clientHeight];
    problems.push(`the prompt's ${sw}×${sh} overflow its ${cw}×${ch}`);
  }
  if (document.documentElement.scrollWidth > vw) problems.push("the page scrolls sideways");
  return problems;
}"""

SIZES = [(360, 740), (390, 844), (740, 360)]


@pytest.mark.parametrize("width, height", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("hand", list(HANDS), ids=[k.replace(" ", "-").replace(",", "") for k in HANDS])
def test_every_claim_button_pass_and_the_clock_are_on_the_screen_unclipped(
    stacked: LiveServer, new_page: Any, width: int, height: int, hand: str
) -> None:
    page = new_page(width, height)
    seed = 5000 + 10 * SIZES.index((width, height)) + list(HANDS).index(hand)
    claim_window(stacked, page, HANDS[hand], seed)
    actions = page.locator("#actions")
    expect(actions.locator("button[data-action=chow]")).to_have_count(CHOWS[hand])
    for kind in ("win", "kong", "pung"):
        expect(actions.locator(f"button[data-action={kind}]")).to_have_count(1 if kind in hand else 0)
    expect(page.locator("#countdown")).to_be_visible()
    expect(page.locator("#countdown .secs")).to_have_text(re.compile(r"^\d+ s$"))
    # the prompt: whose discard, in words, and the tile itself with its name
    prompt = page.locator("#prompt")
    expect(prompt).to_contain_text("Bot 3 discarded")
    expect(prompt.get_by_role("img", name="5 bamboo")).to_be_visible()
    problems = page.evaluate(CLIPPED)
    assert not problems, problems


# Watch for the next call bubble: once it is drawn, where it lies, and where her set and hand lie
# (`window.__bubble`).
WATCH_BUBBLE = """() => {
  window.__bubble = null;
  const seen = new MutationObserver((changes) => {
    for (const change of changes) for (const node of change.addedNodes) {
      if (!(node instanceof Element) || !node.classList.contains("call-bubble")) continue;
      seen.disconnect();
      requestAnimationFrame(() => requestAnimationFrame(() => {
        const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
        window.__bubble = {
          text: node.textContent,
          bubble: box(node),
          mine: [...document.querySelectorAll("#me [data-tile]")].map((t) => [t.getAttribute("aria-label"), box(t)]),
          hand: [...document.querySelectorAll("#hand [data-tile]")].map((t) => [t.getAttribute("aria-label"), box(t)]),
        };
      }));
      return;
    }
  });
  seen.observe(document.getElementById("board"), { childList: true, subtree: true });
}"""


def overlap(a: list[float], b: list[float]) -> bool:
    """Two boxes (left, top, right, bottom) share some area."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("width, height", [(360, 740), (740, 360)], ids=["360x740", "740x360"])
def test_the_call_bubble_leaves_your_new_set_and_hand_in_sight(
    stacked: LiveServer, new_page: Any, width: int, height: int
) -> None:
    page = new_page(width, height)
    page.emulate_media(reduced_motion="reduce")  # the bubble holds still while it is measured
    claim_window(stacked, page, HANDS["two chows and a pung"], 6000 + width)
    page.evaluate(WATCH_BUBBLE)
    page.locator("#actions button[data-action=pung]").click()
    eventually(lambda: bool(page.evaluate("window.__bubble")), "the call bubble", timeout=TIMEOUT_MS / 1000)
    found = page.evaluate("window.__bubble")
    assert found["text"] == "Pung!"
    expect(page.locator("#me [data-tile]")).to_have_count(3)  # her pung, on her seat
    mine = [name for name, box in found["mine"] if overlap(found["bubble"], box)]
    hand = [name for name, box in found["hand"] if overlap(found["bubble"], box)]
    assert len(found["mine"]) == 3, found
    assert not mine and not hand, f"the bubble at {found['bubble']} covers {mine} of her set and {hand} of her hand"
