"""The owner fills the seats with bots of the level they pick, then frees a bot's seat before the
start, so a friend who arrives late can sit."""

from __future__ import annotations

from typing import Any

import pytest
from browserkit import LiveServer
from pagekit import create_table
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


def test_the_owner_removes_a_bot_and_a_late_friend_sits(live: LiveServer, new_page: Any) -> None:
    ann = new_page(360, 780)
    table_id = create_table(ann, live.url, "Ann")
    ann.get_by_label("Bots' level").select_option("strong")
    ann.click("#add-bots")
    expect(ann.locator("#seat-list li.taken")).to_have_count(4)
    expect(ann.locator("#seat-list .badge", has_text="bot · strong")).to_have_count(3)
    ann.get_by_role("button", name="Remove Bot 3 from seat 4").click()
    expect(ann.locator("#seat-list li.taken")).to_have_count(3)
    friend = new_page()
    friend.goto(f"{live.url}/t/{table_id}")
    friend.fill("#join-name", "Cy")
    friend.click("#join-form button[type=submit]")
    expect(ann.locator("#seat-list li.taken")).to_have_count(4)
    expect(ann.locator("#seat-list")).to_contain_text("Cy")
    expect(ann.locator("#start")).to_be_enabled()
    ann.click("#start")
    expect(ann.locator("section.seat .seat-head", has_text="bot · strong")).to_have_count(2)  # at the table too
