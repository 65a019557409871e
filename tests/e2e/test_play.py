"""A person plays a whole hand against three bots, only by clicking, and reads the end of the hand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browserkit import LiveServer
from pagekit import (
    codes,
    concealed_on_server,
    create_table,
    fill_with_bots_and_start,
    play_until_result,
    same_tiles,
    server_view,
    set_option,
)
from playwright.sync_api import expect

from game.notation import parse_tiles

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("width, height", [(1366, 768), (360, 740)], ids=["laptop", "phone"])
def test_hand_against_bots_played_by_clicking_ends_with_score_and_payments(
    live: LiveServer, new_page: Any, artifacts: Path, width: int, height: int
) -> None:
    page = new_page(width, height)
    page.goto(live.url + "/")
    page.screenshot(path=artifacts / f"lobby-{width}.png", full_page=True)
    table_id = create_table(page, live.url, "Ann")
    fill_with_bots_and_start(page)
    set_option(page, "#autopass")  # claims pass themselves; a win is still offered
    expect(page.locator("#hand button.tile").first).to_be_visible()
    page.screenshot(path=artifacts / f"table-{width}.png", full_page=True)

    panel = page.locator("#result")
    for _ in range(3):  # a wash-out scores nothing: play on to a hand somebody wins
        assert play_until_result(page) > 0
        result: Any = server_view(live, table_id, None)["result"]
        if result["winner"] is not None:
            break
        expect(panel.locator("h2")).to_contain_text("wash-out")
        panel.locator("button[data-action=ready]").click()
        expect(panel).to_be_hidden()
    assert result["winner"] is not None, "three wash-outs in a row"
    # every hand revealed: four cards, each with that seat's tiles face up
    expect(panel.locator(".reveal")).to_have_count(4)
    hand = ".reveal-tiles > .tiles:not(.meld):not(.bonus-row) [data-tile]"  # not the declared sets
    for seat in range(4):
        shown = panel.locator(f".reveal[data-seat='{seat}'] {hand}")
        assert same_tiles(codes(shown), concealed_on_server(live, table_id, seat))
    expect(panel.locator("h2")).to_contain_text("wins")
    score = result["scores"][result["winner"]]
    # the winner's tiles are laid out in the sets and pair that were scored
    groups = panel.locator(".reveal.winner .reveal-tiles > .group")
    expect(groups).to_have_count(len(score["groups"]))
    for group, written in zip(groups.all(), score["groups"], strict=True):
        assert same_tiles(codes(group.locator("[data-tile]")), [t.code for t in parse_tiles(written)])
    rows = panel.locator(".reveal.winner .score-items tbody tr")
    expect(rows).to_have_count(len(score["items"]))
    for row, item in zip(rows.all(), score["items"], strict=True):
        expect(row.locator(".rule")).to_have_text(item["rule"])
        expect(row.locator(".text")).to_have_text(item["text"])
    expect(panel.locator(".reveal.winner tfoot .total")).to_have_text(str(score["value"]))
    expect(panel.locator(".reveal.winner tfoot .arith")).to_contain_text(score["arithmetic"])
    payments = panel.locator(".payments tbody tr")
    expect(payments).to_have_count(len(result["payments"]))
    for row, payment in zip(payments.all(), result["payments"], strict=True):
        expect(row.locator(".num")).to_have_text(str(payment["amount"]))
        expect(row.locator(".text")).to_have_text(payment["text"])
    expect(panel.locator(".changes li")).to_have_count(4)
    expect(panel.locator("button[data-action=ready]")).to_be_visible()
    page.screenshot(path=artifacts / f"end-{width}.png", full_page=True)

    # the next hand starts from the panel's button
    page.locator("#result button[data-action=ready]").click()
    expect(panel).to_be_hidden()
