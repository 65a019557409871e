"""The fair pause in the browser (R6.9): after a bot's discard that Ann cannot claim, her table says
so plainly instead of asking her to claim, shows no clock of hers, and play goes on by itself when
the pause ends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browserkit import LiveServer
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


def test_a_seat_that_cannot_claim_is_told_so_and_play_goes_on(live: LiveServer, new_page: Any, artifacts: Path) -> None:
    page = new_page(360, 780)
    body = {"name": "Pause", "player": "Ann", "timers": {"bot_delay": 0, "pause": 3, "turn": 600}}
    seat = page.request.post(f"{live.url}/api/tables", data=body).json()
    table_id, token = seat["table"], seat["token"]
    assert page.request.post(f"{live.url}/api/tables/{table_id}/bots", data={"token": token}).ok
    page.goto(live.url + "/")
    page.evaluate("([key, value]) => localStorage.setItem(key, value)", [f"sparrow.seat.{table_id}", json.dumps(seat)])
    page.goto(f"{live.url}/t/{table_id}")
    assert page.request.post(f"{live.url}/api/tables/{table_id}/start", data={"token": token}).ok
    discard = page.locator("button.action-discard-drawn")
    expect(discard).to_be_visible()
    discard.click()  # Ann, the dealer, discards her drawn tile; then the bots play
    told = page.locator(".claim-ask", has_text="nothing for you")
    expect(told).to_be_visible(timeout=20_000)
    expect(page.locator("button.action-pass")).to_be_visible()
    expect(page.locator("#countdown")).to_be_hidden()  # nothing to decide, so no clock runs for her
    page.screenshot(path=artifacts / "fair-pause-360.png")
    expect(told).to_be_hidden(timeout=10_000)  # the pause ended without her: play went on
