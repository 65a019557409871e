"""Two people at one table in two browsers (plus a spectator): each sees only their own concealed
tiles, each sees the other's discards, and a reload takes the seat back.
"""

from __future__ import annotations

from typing import Any

import pytest
from browserkit import LiveServer
from pagekit import (
    concealed_on_server,
    create_table,
    discard_one,
    eventually,
    fill_with_bots_and_start,
    hand_codes,
    same_tiles,
)
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.e2e


def last_discard(page: Page, seat: int) -> Any:
    """The tile element of ``seat``'s latest discard, as ``page`` shows it."""
    return page.locator(f".pond-zone[data-seat='{seat}'] .discards li").last.locator("[data-tile]")


def test_two_players_see_their_own_tiles_and_each_others_discards(live: LiveServer, new_page: Any) -> None:
    ann = new_page(1280, 900)
    table_id = create_table(ann, live.url, "Ann")
    bob = new_page(360, 780)  # Bob plays on a phone
    bob.goto(f"{live.url}/t/{table_id}")
    bob.fill("#join-name", "Bob")
    bob.click("#join-form button[type=submit]")
    expect(bob.locator("#seat-list .badge.you")).to_have_count(1)
    expect(ann.locator("#seat-list li.taken")).to_have_count(2)
    fill_with_bots_and_start(ann)
    expect(bob.locator("#board")).to_be_visible()

    # each hand is its owner's alone: the other seat's concealed tiles are only backs in the DOM
    for page, me, other in ((ann, 0, 1), (bob, 1, 0)):
        eventually(
            lambda p=page, s=me: same_tiles(hand_codes(p), concealed_on_server(live, table_id, s)), f"seat {me}'s hand"
        )
        expect(page.locator(".concealed [data-tile]")).to_have_count(0)
        panel = page.locator(f".seat[data-seat='{other}']")
        expect(panel.locator(".concealed .tile.back")).to_have_count(len(concealed_on_server(live, table_id, other)))
        page.keyboard.press("a")  # auto-pass claims, from the keyboard
        expect(page.locator("#autopass")).to_be_checked()

    # Ann deals and discards with the keyboard alone; Bob sees the tile land in her discards
    ann.keyboard.press("h")
    ann.keyboard.press("ArrowRight")
    code = ann.locator("#hand button.tile:focus").get_attribute("data-tile")
    ann.keyboard.press("Enter")
    expect(last_discard(bob, 0)).to_have_attribute("data-tile", str(code))

    # play on until it is Bob's turn (Ann discards when the turn comes back to her), then Bob discards
    bob_turn = bob.locator("#hand button.tile:not([disabled])")
    ann_turn = ann.locator("#hand button.tile:not([disabled])")

    def bobs_turn() -> bool:
        if ann_turn.count():
            discard_one(ann)
        return bob_turn.count() > 0

    eventually(bobs_turn, "Bob's turn", timeout=20)
    code = discard_one(bob)
    expect(last_discard(ann, 1)).to_have_attribute("data-tile", code)

    # a spectator (no token) sees the table but no concealed tile at all, and cannot write in the chat
    watcher = new_page(1280, 900)
    watcher.goto(f"{live.url}/t/{table_id}")
    expect(watcher.locator("#board")).to_be_visible()
    expect(watcher.locator("#conn")).to_contain_text("watching")
    expect(watcher.locator(".seat .concealed .tile.back").first).to_be_visible()
    expect(watcher.locator(".concealed [data-tile], #hand [data-tile]")).to_have_count(0)
    expect(watcher.locator("#chat-input")).to_be_disabled()

    # Bob reloads: the token kept in this browser takes the seat back
    bob.reload()
    expect(bob.locator("#conn")).to_have_text("Connected")
    eventually(lambda: same_tiles(hand_codes(bob), concealed_on_server(live, table_id, 1)), "Bob's hand after a reload")
