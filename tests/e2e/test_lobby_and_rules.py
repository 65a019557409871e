"""The lobby and the rule book in the browser: the create form's seating draw and fair pause switches
reach the table's rules; /rules shows without one console error (nothing the CSP blocks); both pages
fit a phone with every link, button and field at least 24 x 24 px."""

from __future__ import annotations

from typing import Any

import pytest
from browserkit import LiveServer
from pagekit import scrolls_sideways, small_targets
from playwright.sync_api import expect

from game.rules import Rules

pytestmark = pytest.mark.e2e


def _rules_of(live: LiveServer, table_id: str) -> Rules:
    return live.call(lambda: live.lobby.get(table_id).settings.ruleset.rules)


def test_the_create_form_draws_the_seats_and_pauses_fairly_unless_unticked(live: LiveServer, new_page: Any) -> None:
    page = new_page(360, 740)
    page.goto(live.url + "/")
    page.fill("#player-name", "Ann")
    draw, pause = page.get_by_label("Draw the seats"), page.get_by_label("Fair pause")
    expect(draw).to_be_checked()
    expect(pause).to_be_checked()
    page.click("#create-form button[type=submit]")
    page.wait_for_url("**/t/*")
    rules = _rules_of(live, page.url.rsplit("/", 1)[1])
    assert rules.seat_draw and rules.claim_pause

    page.goto(live.url + "/")
    page.get_by_label("Draw the seats").uncheck()
    page.get_by_label("Fair pause").uncheck()
    page.click("#create-form button[type=submit]")
    page.wait_for_url("**/t/*")
    rules = _rules_of(live, page.url.rsplit("/", 1)[1])
    assert not rules.seat_draw and not rules.claim_pause


def test_the_lobby_and_the_rule_book_fit_a_phone_with_targets_of_24_px(live: LiveServer, new_page: Any) -> None:
    for width, height in ((360, 740), (1280, 900)):
        page = new_page(width, height)  # a console error (a blocked inline style, say) fails the test
        page.goto(live.url + "/")
        expect(page.get_by_role("link", name="Leaderboard")).to_be_visible()
        expect(page.get_by_label("Draw the seats")).to_be_visible()
        assert small_targets(page) == [], f"the lobby at {width} px"
        assert not scrolls_sideways(page)
        page.get_by_role("link", name="R2.6").click()  # the form's rule link, to the seating draw
        page.wait_for_url("**/rules#R2.6")
        expect(page.locator("[id='R2.6']")).to_contain_text("seating draw")
        expect(page.locator("[id='R2.6']")).to_be_in_viewport()
        expect(page.locator(".rulebook td.align-right").first).to_have_css("text-align", "right")
        assert small_targets(page) == [], f"the rule book at {width} px"
        assert not scrolls_sideways(page)
