"""The lobby page lists the newest 100 public tables, and *More tables* shows the next page."""

from __future__ import annotations

from typing import Any

import pytest
from browserkit import LiveServer
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


def test_the_lobby_shows_a_page_of_tables_and_more_on_demand(live: LiveServer, new_page: Any) -> None:
    for i in range(101):
        live.wait(live.lobby.create({"name": f"Table {i}", "player": "Ann"}))  # (no person: no limit)
    page = new_page(1280, 900)
    page.goto(live.url + "/")
    items = page.locator("#table-list .table-item")
    expect(items).to_have_count(100)
    expect(items.first.locator(".table-item-name")).to_have_text("Table 100")  # newest first
    more = page.get_by_role("button", name="More tables")
    expect(more).to_be_visible()
    more.click()
    expect(items).to_have_count(101)
    expect(items.last.locator(".table-item-name")).to_have_text("Table 0")
    expect(more).to_be_hidden()
