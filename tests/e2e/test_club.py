"""A club in the browser: the first admin walks the printed link, invites a member, the member plays
on a laptop and takes the seat back on a phone, logs out everywhere, and is cut off when disabled.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browserkit import LiveServer
from pagekit import scrolls_sideways, small_targets
from playwright.sync_api import Page, Route, expect

from server.club.club import ClubConfig

pytestmark = pytest.mark.e2e

PASSWORD = "correct horse battery"


@pytest.fixture
def club(tmp_path: Path) -> Iterator[LiveServer]:
    """A new members-only club on a fresh database."""
    with LiveServer(f"sqlite+aiosqlite:///{tmp_path / 'club.db'}", ClubConfig("e2e secret")) as server:
        yield server


def use_link(page: Page, link: str, name: str | None) -> None:
    """Open an invitation (or the first-admin) link, choose the name and password, and join."""
    page.goto(link)
    if name is not None:
        page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form.club-form button[type=submit]")
    page.wait_for_url("**/")


def log_in(page: Page, name: str) -> None:
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form.club-form button[type=submit]")


def test_first_admin_invitation_second_device_and_log_out_everywhere(club: LiveServer, new_page: Any) -> None:
    link = club.wait(club.app.state.club.first_admin_link())  # what `sparrow serve` printed
    assert link is not None
    ann = new_page()
    ann.goto(club.url + "/")
    expect(ann).to_have_url(f"{club.url}/login?next=%2F")  # members only: nothing before logging in
    use_link(ann, club.url + link, "Ann")
    expect(ann.locator(".account-nav")).to_contain_text("Ann")
    expect(ann.locator(".account-nav")).to_contain_text("Admin")

    ann.goto(club.url + "/admin")
    ann.fill("#invite-form input[name=name]", "Bob")
    ann.click("#invite-form button[type=submit]")
    expect(ann.locator("#link-box")).to_be_visible()
    invitation = ann.locator("#link-out").input_value()
    assert "/welcome/" in invitation

    laptop = new_page()
    use_link(laptop, invitation, None)  # the link is for Bob: the name is filled in and fixed
    expect(laptop.locator("#player-name")).to_have_value("Bob")
    laptop.fill("#create-form input[name=name]", "Bob's table")
    laptop.click("#create-form button[type=submit]")
    laptop.wait_for_url("**/t/*")
    table = laptop.url
    expect(laptop.locator("#seat-list .badge.you")).to_have_count(1)

    phone = new_page(360, 740)  # a second device: no seat token there, only the login
    phone.goto(table)
    expect(phone.locator("input[name=password]")).to_be_visible()
    log_in(phone, "Bob")
    phone.wait_for_url(table)
    expect(phone.locator("#seat-list .badge.you")).to_have_count(1)
    expect(phone.locator("#owner-tools")).to_be_visible()
    expect(phone.locator("#conn")).not_to_contain_text("watching")

    phone.goto(club.url + "/account")
    phone.click("text=Log out everywhere")
    phone.wait_for_url("**/login")
    laptop.goto(club.url + "/")
    expect(laptop.locator("input[name=password]")).to_be_visible()  # the laptop was logged out too
    ann.goto(club.url + "/")
    expect(ann.locator(".account-nav")).to_contain_text("Ann")  # nobody else was


def test_a_disabled_member_is_cut_off_at_once(club: LiveServer, new_page: Any) -> None:
    admin = new_page()
    use_link(admin, club.url + str(club.wait(club.app.state.club.first_admin_link())), "Ann")
    admin.goto(club.url + "/admin")
    admin.fill("#invite-form input[name=name]", "Bob")
    admin.click("#invite-form button[type=submit]")
    expect(admin.locator("#link-box")).to_be_visible()
    bob = new_page()
    use_link(bob, admin.locator("#link-out").input_value(), None)
    bob.fill("#create-form input[name=name]", "Bob's table")
    bob.click("#create-form button[type=submit]")
    bob.wait_for_url("**/t/*")
    expect(bob.locator("#conn")).to_have_attribute("data-state", "open")

    admin.reload()
    row = admin.locator("#member-rows tr", has_text="Bob")
    row.get_by_role("button", name="Disable").click()
    expect(row).to_contain_text("disabled")
    expect(bob.locator("#conn")).not_to_have_attribute("data-state", "open")  # the socket was closed
    bob.reload()
    expect(bob.locator("input[name=password]")).to_be_visible()
    log_in(bob, "Bob")
    expect(bob.locator("[data-error]").first).to_contain_text("wrong name or password")
    expect(admin.locator("#audit-rows tr").first).to_contain_text("disabled")


def test_the_admin_page_fits_a_phone_and_logging_in_shows_it_is_under_way(club: LiveServer, new_page: Any) -> None:
    admin = new_page(360, 740)
    held: list[Route] = []  # the welcome request, held back while we look at the button
    admin.route("**/api/club/welcome", lambda route: held.append(route))
    admin.goto(club.url + str(club.wait(club.app.state.club.first_admin_link())))
    admin.fill("input[name=name]", "Ann")
    admin.fill("input[name=password]", PASSWORD)
    join = admin.locator("form.club-form button[type=submit]")
    join.click()
    expect(join).to_be_disabled()
    expect(join).to_have_text("Signing in…")
    assert len(held) == 1
    held[0].continue_()
    admin.wait_for_url("**/")

    admin.goto(club.url + "/admin")
    admin.fill("#invite-form input[name=name]", "Bob")
    admin.click("#invite-form button[type=submit]")
    expect(admin.locator("#link-box")).to_be_visible()
    expect(admin.locator("#audit-rows tr").first).to_be_visible()
    ann = admin.locator("#member-rows tr", has_text="Ann")
    expect(ann.get_by_role("button", name="Password reset link")).to_be_visible()
    expect(ann.locator("td").first).to_have_attribute("data-label", "Name")  # a card of labelled lines
    assert not scrolls_sideways(admin)
    for region in admin.locator(".scroll-x").all():  # nor does any of its tables, inside its box
        assert region.evaluate("box => box.scrollWidth <= box.clientWidth"), region.get_attribute("aria-label")
    assert small_targets(admin) == []

    phone = new_page(360, 740)
    held.clear()
    phone.route("**/api/club/login", lambda route: held.append(route))
    phone.goto(club.url + "/login")
    phone.fill("input[name=name]", "Ann")
    phone.fill("input[name=password]", "not the password")
    phone.click("form.club-form button[type=submit]")
    button = phone.locator("form.club-form button[type=submit]")
    expect(button).to_be_disabled()
    expect(button).to_have_text("Signing in…")
    held[0].continue_()
    expect(phone.locator("[data-error]").first).to_contain_text("wrong name or password")
    expect(button).to_be_enabled()  # a refusal gives the button back, as it was
    expect(button).to_have_text("Log in")


def test_your_account_lists_where_you_are_logged_in_and_ends_another_device(club: LiveServer, new_page: Any) -> None:
    laptop = new_page()
    use_link(laptop, club.url + str(club.wait(club.app.state.club.first_admin_link())), "Ann")
    phone = new_page(360, 740)
    phone.goto(club.url + "/")
    log_in(phone, "Ann")
    phone.wait_for_url(club.url + "/")
    laptop.goto(club.url + "/account")
    rows = laptop.locator("#session-rows tr")
    expect(rows).to_have_count(2)
    expect(rows.filter(has_text="this device")).to_have_count(1)
    other = rows.filter(has_not_text="this device")
    expect(other).to_contain_text("127.0.0.1")
    other.get_by_role("button", name="End").click()
    expect(rows).to_have_count(1)
    phone.reload()
    expect(phone.locator("input[name=password]")).to_be_visible()  # the phone was logged out
    laptop.goto(club.url + "/admin")
    expect(laptop.locator("#audit-rows tr").first).to_contain_text("ended a session")
    expect(laptop.locator("#audit-rows tr").first).to_contain_text("Ann (#1)")
    for i in range(60):
        club.wait(club.app.state.club.audit(club.app.state.club.members[1], "test line", f"line {i}", ""))
    laptop.reload()
    audit = laptop.locator("#audit-rows tr")
    expect(audit).to_have_count(50)
    expect(audit.first).to_contain_text("line 59")
    laptop.get_by_role("button", name="Older lines").click()
    expect(audit.last).to_contain_text("joined")  # the first line of all
    expect(laptop.get_by_role("button", name="Older lines")).to_be_hidden()


def test_the_admin_changes_a_limit_per_visitor_and_unlocks_a_member(club: LiveServer, new_page: Any) -> None:
    admin = new_page()
    use_link(admin, club.url + str(club.wait(club.app.state.club.first_admin_link())), "Ann")
    admin.goto(club.url + "/admin")
    sockets = admin.locator("#limits-fields input[name=sockets]")
    expect(sockets).to_have_value("none")  # (the browser tests start every server so)
    sockets.fill("40")
    admin.get_by_role("button", name="Save the limits").click()
    expect(admin.locator("#admin-notice")).to_contain_text("Limits saved")
    assert club.app.state.rates.limits.sockets == 40
    expect(admin.locator("#audit-rows tr").first).to_contain_text("sockets=40")

    admin.locator("#member-rows tr", has_text="Ann").get_by_role("button", name="Unlock logins").click()
    expect(admin.locator("#admin-notice")).to_contain_text("may log in again")
    expect(admin.locator("#audit-rows tr").first).to_contain_text("unlocked logins")


def test_a_guest_link_seats_the_guests_chosen_and_the_member_revokes_it(tmp_path: Path, new_page: Any) -> None:
    config = ClubConfig("e2e secret", mode="invite")
    with LiveServer(f"sqlite+aiosqlite:///{tmp_path / 'club.db'}", config) as club:
        ann = new_page()
        use_link(ann, club.url + str(club.wait(club.app.state.club.first_admin_link())), "Ann")
        ann.fill("#create-form input[name=name]", "Ann's table")
        ann.click("#create-form button[type=submit]")
        ann.wait_for_url("**/t/*")
        ann.select_option("#guest-count", "2")
        ann.click("#guest-link")
        links = ann.locator("#guest-links li")
        expect(links).to_have_count(1)
        expect(links.first).to_contain_text("0 of 2 seated")
        link = ann.locator("#invite-link").input_value()
        assert "?guest=" in link

        guest = new_page()
        guest.goto(link)
        expect(guest.locator("#guest-note")).to_contain_text("admits 2 guests: 2 places left")
        guest.fill("#join-name", "Carl")
        guest.click("#join-form button[type=submit]")
        expect(guest.locator("#seat-list .badge.you")).to_have_count(1)
        ann.reload()
        expect(links.first).to_contain_text("1 of 2 seated")

        links.first.get_by_role("button", name="Revoke").click()
        expect(links).to_have_count(0)
        late = new_page()
        late.goto(link)
        expect(late.locator("body")).to_contain_text("this guest link was revoked")
