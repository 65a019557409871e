"""Picture tiles, drawn as SVG by the page itself, and the "simple tiles" a player may prefer (the
choice is remembered); either way every tile is named for a screen reader."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from browserkit import LiveServer
from pagekit import create_table, fill_with_bots_and_start, set_option
from playwright.sync_api import expect

from game.notation import parse_tiles

pytestmark = pytest.mark.e2e

NAME = re.compile(
    r"^(Discard )?([1-9] (bamboo|characters|dots)|(East|South|West|North) wind|(Red|Green|White) dragon)$"
)


def test_tiles_are_pictures_or_simple_as_the_player_chooses(live: LiveServer, new_page: Any, artifacts: Path) -> None:
    page = new_page(360, 740)
    create_table(page, live.url, "Ann")
    fill_with_bots_and_start(page)
    hand = page.locator("#hand button.tile")
    expect(hand.first).to_be_visible()
    first = hand.first
    code = str(first.get_attribute("data-tile"))
    assert parse_tiles(code)  # a real tile code …
    assert NAME.match(str(first.get_attribute("aria-label")))  # … named for people
    # pictures by default: each tile shows its drawing from the page's own sprite, not the text face
    expect(first.locator("svg.pic")).to_be_visible()
    expect(first.locator(".face")).to_be_hidden()
    href = first.locator("svg.pic use").get_attribute("href")
    assert href == f"#tile-art-{code}"
    assert page.locator(f"svg.tile-sprite symbol#tile-art-{code} *").count() > 0  # drawn, not fetched
    box = first.bounding_box()
    assert box is not None and box["width"] >= 28  # legible on a phone
    page.screenshot(path=artifacts / "tiles-pictures-360.png")

    set_option(page, "#simple-tiles")
    expect(first.locator(".face")).to_be_visible()
    expect(first.locator("svg.pic")).to_be_hidden()
    page.reload()
    expect(page.locator("#simple-tiles")).to_be_checked()  # remembered
    expect(page.locator("#hand button.tile").first.locator(".face")).to_be_visible()
    page.screenshot(path=artifacts / "tiles-simple-360.png")


def test_on_a_phone_the_hand_stays_on_screen_and_nothing_scrolls(live: LiveServer, new_page: Any) -> None:
    page = new_page(360, 740)
    create_table(page, live.url, "Ann")
    fill_with_bots_and_start(page)
    hand = page.locator("#hand")
    expect(hand.locator(".tile").first).to_be_visible()
    for where in ("window.scrollTo(0, 0)", "window.scrollTo(0, document.body.scrollHeight)"):
        page.evaluate(where)
        page.wait_for_timeout(100)
        box = hand.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 740, (where, box)
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
    # the pond, above the hand: nothing is hidden under the hand
    zone = page.locator(".pond-zone[data-seat='0']")
    zone.scroll_into_view_if_needed()
    zone_box, hand_box = zone.bounding_box(), hand.bounding_box()
    assert zone_box is not None and hand_box is not None
    assert zone_box["y"] + zone_box["height"] <= page.locator("#controls").bounding_box()["y"] + 1  # type: ignore[index]


def test_a_player_drags_tiles_into_an_order_of_their_own_and_sorts_again(live: LiveServer, new_page: Any) -> None:
    page = new_page()
    create_table(page, live.url, "Ann")
    fill_with_bots_and_start(page)
    hand = page.locator("#hand .hand-tiles .tile")
    expect(hand.first).to_be_visible()
    before = [hand.nth(i).get_attribute("data-tile") for i in range(hand.count())]
    expect(page.locator("#sort-hand")).to_be_hidden()
    hand.nth(0).drag_to(hand.nth(4))
    after = [hand.nth(i).get_attribute("data-tile") for i in range(hand.count())]
    assert after == [*before[1:5], before[0], *before[5:]]
    hand.nth(4).focus()
    page.keyboard.press("Alt+ArrowLeft")  # and from the keyboard
    moved = [hand.nth(i).get_attribute("data-tile") for i in range(hand.count())]
    assert moved == [*before[1:4], before[0], before[4], *before[5:]]
    page.locator("#sort-hand").click()
    assert [hand.nth(i).get_attribute("data-tile") for i in range(hand.count())] == before
