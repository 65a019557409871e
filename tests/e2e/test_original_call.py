"""Original Call in the browser (R5.4): with the first discard of a hand one tile from ready, the
table offers an Original Call button; pressing it discards that tile, and every seat's panel shows
the declaration."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browserkit import LiveServer
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

SEED = 1528  # the dealer's 14 tiles are one discard (N) from a ready hand


def test_the_dealer_declares_original_call_with_a_button(live: LiveServer, new_page: Any, artifacts: Path) -> None:
    page = new_page(1280, 900)
    body = {
        "name": "Call",
        "player": "Ann",
        "overrides": {"original_call": True},
        "timers": {"bot_delay": 0, "turn": 600},
    }
    seat = live.wait(live.lobby.create(body, seed=SEED))
    table_id, token = seat["table"], seat["token"]
    assert page.request.post(f"{live.url}/api/tables/{table_id}/bots", data={"token": token}).ok
    page.goto(live.url + "/")
    page.evaluate("([key, value]) => localStorage.setItem(key, value)", [f"sparrow.seat.{table_id}", json.dumps(seat)])
    page.goto(f"{live.url}/t/{table_id}")
    assert page.request.post(f"{live.url}/api/tables/{table_id}/start", data={"token": token}).ok
    call = page.locator("button.action-original-call")
    expect(call).to_have_count(1)
    expect(call).to_have_accessible_name("Original Call North wind")
    page.screenshot(path=artifacts / "original-call-offered.png")
    call.click()
    expect(page.locator(".badge", has_text="Original Call")).to_have_count(1, timeout=10_000)
    expect(call).to_have_count(0)
    assert live.call(lambda: live.lobby.get(table_id).game.deal.calls[0]) == "declared"
