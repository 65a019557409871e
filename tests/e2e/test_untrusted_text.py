"""Names and chat come from other people: markup in them is shown as text and never runs, even with
the pages' Content-Security-Policy switched off (the fixture fails the test if any dialog opens).
"""

from __future__ import annotations

from typing import Any

import pytest
from browserkit import LiveServer
from pagekit import create_table
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

IMG = "<img src=x onerror=alert(1)>"
SVG = "<svg onload=alert(1)>"  # a display name is at most 24 characters


def test_markup_in_names_and_chat_is_shown_as_text(live: LiveServer, new_page: Any) -> None:
    page = new_page(1280, 900, bypass_csp=True)
    table_id = create_table(page, live.url, SVG, table_name=IMG)
    expect(page.locator("#table-name")).to_have_text(IMG)
    expect(page.locator("#seat-list .who").first).to_have_text(SVG)
    assert IMG in page.title()

    page.fill("#chat-input", IMG)
    page.press("#chat-input", "Enter")
    line = page.locator("#chat-log li").last
    expect(line.locator(".text")).to_have_text(IMG)
    expect(line.locator(".who")).to_have_text(SVG)

    lobby = new_page(360, 780, bypass_csp=True)
    lobby.goto(live.url + "/")
    item = lobby.locator(f".table-item[data-table='{table_id}']")
    expect(item.locator(".table-item-name")).to_have_text(IMG)
    expect(item.locator(".table-item-seats")).to_have_text(SVG)

    missing = new_page(1280, 900, bypass_csp=True)
    missing.goto(f"{live.url}/t/{IMG}")
    expect(missing.locator("h1")).to_have_text("No such table")

    for shown in (page, lobby, missing):
        shown.wait_for_timeout(100)  # time for an injected onerror/onload to fire, if one were there
        expect(shown.locator("main img, main svg")).to_have_count(0)
