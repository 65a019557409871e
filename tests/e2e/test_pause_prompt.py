"""The fair pause in the browser (R6.9): after a bot's discard that Ann cannot claim, her table asks
her nothing (no question, no Pass button, no clock of hers), and play goes on by itself when the
pause ends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browserkit import LiveServer
from pagekit import eventually, server_view
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


def test_a_seat_that_cannot_claim_is_asked_nothing_and_play_goes_on(
    live: LiveServer, new_page: Any, artifacts: Path
) -> None:
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

    def pass_only() -> Any:
        view = server_view(live, table_id, 0)
        turn = view["turn"] or {}
        only = turn.get("phase") == "claim" and [a["type"] for a in view["legal_actions"]] == ["pass"]
        return turn if only else None

    eventually(lambda: pass_only() is not None, "a discard Ann can only pass on", timeout=20)
    window = pass_only()
    assert window is not None
    expect(page.locator(".pond-zone .discards li.latest")).to_have_count(1)
    expect(page.locator(".claim-line")).to_be_visible()  # what was discarded is still said …
    expect(page.locator(".claim-ask")).to_have_count(0)  # … but nothing is asked of her
    expect(page.locator("#actions button")).to_have_count(0)
    expect(page.locator("#countdown")).to_be_hidden()  # nothing to decide, so no clock runs for her
    page.screenshot(path=artifacts / "fair-pause-360.png")
    # the pause ended without her: play went on
    eventually(lambda: (server_view(live, table_id, 0)["turn"] or {}) != window, "play to go on", timeout=10)
