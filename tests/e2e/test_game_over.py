"""The end of a game: final standings for whoever watches, and the owner's "Play again with the same
seats"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browserkit import LiveServer
from pagekit import eventually, server_view
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.e2e


def quick_game(live: LiveServer, page: Page) -> dict[str, Any]:
    """An East round of Ann (not at the table: with no grace a bot plays for her) and three bots,
    started; Ann's seat (``table``, ``token``)."""
    api = page.request
    body = {
        "name": "Quick",
        "player": "Ann",
        "overrides": {"game_length": "east"},
        "timers": {"bot_delay": 0, "grace": 0},
    }
    seat: dict[str, Any] = api.post(f"{live.url}/api/tables", data=body).json()
    table_id, token = seat["table"], seat["token"]
    assert api.post(f"{live.url}/api/tables/{table_id}/bots", data={"token": token}).ok
    assert api.post(f"{live.url}/api/tables/{table_id}/start", data={"token": token}).ok
    return seat


def test_a_finished_game_shows_the_final_standings(live: LiveServer, new_page: Any, artifacts: Path) -> None:
    player = new_page()
    seat = quick_game(live, player)
    table_id = seat["table"]

    # Someone watches on a phone. Ann's browser holds her token; she comes to the table, then leaves
    # it: with no grace, a bot plays her seat, and as someone is still at the table (watching) the
    # East round runs to its end (a table nobody is at would pause).
    watcher = new_page(360, 780)
    watcher.goto(f"{live.url}/t/{table_id}")
    player.goto(live.url + "/")
    player.evaluate(
        "([key, value]) => localStorage.setItem(key, value)", [f"sparrow.seat.{table_id}", json.dumps(seat)]
    )
    player.goto(f"{live.url}/t/{table_id}")
    expect(player.locator("#conn")).to_have_text("Connected")
    player.context.close()
    eventually(lambda: live.call(lambda: live.lobby.get(table_id).status) == "over", "the game to end", timeout=40)

    panel = watcher.locator("#result")
    expect(panel.locator("h2")).to_have_text("Game over")
    scores = [s["score"] for s in server_view(live, table_id, None)["seats"]]
    names = ["Ann", "Bot 1", "Bot 2", "Bot 3"]
    ranked = sorted(range(4), key=lambda s: -scores[s])
    rows = panel.locator(".standings-table tbody tr")
    expect(rows).to_have_count(4)
    for row, s in zip(rows.all(), ranked, strict=True):
        expect(row.locator("td").nth(2)).to_have_text(str(scores[s]))
        expect(row.locator("td").nth(3)).to_have_text(f"{scores[s] - 2000:+d}" if scores[s] != 2000 else "0")
        if scores.count(scores[s]) == 1:
            expect(row.locator("td").nth(1)).to_have_text(names[s])
    expect(panel.locator("a.button")).to_have_text("Back to the lobby")
    panel.screenshot(path=artifacts / "game-over-360.png")


def test_the_owner_plays_again_with_the_same_seats(live: LiveServer, new_page: Any) -> None:
    ann = new_page()
    seat = quick_game(live, ann)
    table_id = seat["table"]
    watcher = new_page(360, 780)  # someone watches, so the table plays on while Ann's seat is a bot's
    watcher.goto(f"{live.url}/t/{table_id}")
    eventually(lambda: live.call(lambda: live.lobby.get(table_id).status) == "over", "the game to end", timeout=40)

    ann.goto(live.url + "/")
    ann.evaluate("([key, value]) => localStorage.setItem(key, value)", [f"sparrow.seat.{table_id}", json.dumps(seat)])
    ann.goto(f"{live.url}/t/{table_id}")  # back at the table when it is over: her seat, her button
    expect(watcher.locator("#result .play-again")).to_have_count(0)  # the owner's alone
    ann.locator("#result .play-again").click()
    ann.wait_for_url(lambda url: table_id not in url and "/t/" in url)
    new_id = ann.url.rsplit("/", 1)[1]
    expect(ann.locator("#seat-list .badge.you")).to_have_count(1)
    expect(ann.locator("#seat-list li.taken")).to_have_count(4)
    expect(ann.locator("#start")).to_be_enabled()
    watch = watcher.locator("#result a", has_text="Watch their next game")
    expect(watch).to_have_attribute("href", f"/t/{new_id}")
