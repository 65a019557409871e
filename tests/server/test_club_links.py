"""Links a club controls: a guest link seats the number of guests its member chose (one unless they
said otherwise) and then refuses others with a clear message; its member or an admin revokes it. The
admin page lists every outstanding invitation, reset link, guest link and the sign-up code, and each
can be revoked; the sign-up code may end on a date or admit only N people.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from clubkit import PASSWORD, ann_and_bob, become, browser, club_server, first_admin_code, invite
from dbkit import BACKENDS, fresh_database
from livekit import LiveServer

from server.club.links import code_hash
from server.club.store import ClubStore
from server.store.session import make_engine

pytestmark = pytest.mark.asyncio


@pytest_asyncio.fixture(params=BACKENDS)
async def club(
    request: pytest.FixtureRequest, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> AsyncIterator[tuple[LiveServer, httpx.AsyncClient, httpx.AsyncClient]]:
    """A club taking guests by link, with its admin Ann and a member Bob, each in a browser."""
    async with fresh_database(request.param, tmp_path) as url, club_server(url, mode="invite") as live:
        async with ann_and_bob(live, capsys) as (ann, bob):
            yield live, ann, bob


async def _guest_link(member: httpx.AsyncClient, table: str, **body: Any) -> dict[str, Any]:
    made = await member.post(f"/api/tables/{table}/guest", json=body)
    assert made.status_code == 200, made.text
    answer: dict[str, Any] = made.json()
    return answer


async def test_a_guest_link_seats_one_guest_and_tells_the_next_one_it_is_used(club: Any) -> None:
    live, ann, bob = club
    table = (await bob.post("/api/tables", json={"name": "Bob's"})).json()["table"]
    page = (await bob.get(f"/t/{table}")).text  # the member chooses how many guests a link seats
    assert '<select id="guest-count">' in page and 'data-revoke="/api/club/links/LINK/revoke"' in page
    link = await _guest_link(bob, table)
    assert link["guests"] == 1
    async with browser(live) as first, browser(live) as second, browser(live) as third:
        page = await first.get(link["link"])
        assert page.status_code == 200 and "admits 1 guest:" in page.text and "1 place left" in page.text
        assert (await second.get(link["link"])).status_code == 200  # may look before the place is taken
        refused = await first.post(f"/api/tables/{table}/join", json={"name": "Carl", "seat": 0})  # Bob's seat
        assert refused.json()["error"]["reason"] == "seat/taken"  # a refused seat does not use the place
        seated = await first.post(f"/api/tables/{table}/join", json={"name": "Carl"})
        assert seated.status_code == 200, seated.text

        late = await second.post(f"/api/tables/{table}/join", json={"name": "Dora"})
        assert late.status_code == 409 and late.json()["error"]["reason"] == "club/guest_link_used"
        assert "was for 1 guest" in late.json()["error"]["message"]
        shown = await third.get(link["link"])
        assert shown.status_code == 409 and "was for 1 guest, and every place is taken" in shown.text
        assert (
            await third.get(f"/api/tables/{table}", params={"guest": link["link"].split("=")[1]})
        ).status_code == 409

        again = await first.get(link["link"])  # the guest who took the place keeps their way in
        assert again.status_code == 200 and "you have your place" in again.text
        assert (await first.get(f"/api/tables/{table}")).status_code == 200
    shown = (await bob.get(f"/api/tables/{table}")).json()
    assert [s["name"] if s else None for s in shown["seats"]] == ["Bob", "Carl", None, None]


async def test_a_guest_link_seats_the_number_its_member_chose(club: Any) -> None:
    live, ann, bob = club
    table = (await bob.post("/api/tables", json={"name": "Bob's"})).json()["table"]
    for wrong in (0, 4, "2", True, 1.5):
        refused = await bob.post(f"/api/tables/{table}/guest", json={"guests": wrong})
        assert refused.status_code == 400 and refused.json()["error"]["reason"] == "club/bad_guests"
    link = await _guest_link(bob, table, guests=2)
    answers = []
    for name in ("Carl", "Dora", "Emil"):
        async with browser(live) as guest:
            page = await guest.get(link["link"])
            joined = await guest.post(f"/api/tables/{table}/join", json={"name": name})
            answers.append((page.status_code, joined.status_code))
    assert answers == [(200, 200), (200, 200), (409, 401)]  # the third is not let in at all


async def test_the_member_who_made_a_guest_link_or_an_admin_revokes_it(club: Any, capsys: Any) -> None:
    live, ann, bob = club
    table = (await bob.post("/api/tables", json={"name": "Bob's"})).json()["table"]
    first, second = await _guest_link(bob, table, guests=3), await _guest_link(bob, table)
    listed = (await bob.get(f"/api/tables/{table}/guest")).json()["links"]  # the table page lists them, to revoke
    assert [(link["id"], link["guests"], link["used"]) for link in listed] == [
        (first["id"], 3, 0),
        (second["id"], 1, 0),
    ]
    async with browser(live) as carl:
        await become(carl, await invite(ann, "Carl"), "Carl")
        assert (await carl.get(f"/api/tables/{table}/guest")).json() == {"links": []}  # Bob's are his own
        refused = await carl.post(f"/api/club/links/{first['id']}/revoke", json={})
        assert refused.status_code == 403 and refused.json()["error"]["reason"] == "auth/not_admin"
    async with browser(live) as guest:
        await guest.get(first["link"])
        assert (await guest.post(f"/api/tables/{table}/join", json={"name": "Dora"})).status_code == 200
        assert (await bob.post(f"/api/club/links/{first['id']}/revoke", json={})).json() == {"revoked": first["id"]}
        gone = await guest.get(f"/api/tables/{table}")  # a seated guest too: the link lets nobody in any more
        assert gone.status_code == 403 and gone.json()["error"]["reason"] == "club/guest_link_revoked"
        page = await guest.get(first["link"])
        assert page.status_code == 403 and "this guest link was revoked" in page.text
    assert [link["id"] for link in (await bob.get(f"/api/tables/{table}/guest")).json()["links"]] == [second["id"]]
    assert (await ann.post(f"/api/club/links/{second['id']}/revoke", json={})).status_code == 200
    assert (await bob.get(f"/api/tables/{table}/guest")).json() == {"links": []}
    again = await ann.post(f"/api/club/links/{second['id']}/revoke", json={})
    assert again.status_code == 404 and again.json()["error"]["reason"] == "club/no_link"
    async with browser(live) as guest:
        assert (await guest.get(second["link"])).status_code == 403


async def test_the_admin_lists_every_outstanding_link_and_revokes_each(club: Any) -> None:
    live, ann, bob = club
    table = (await bob.post("/api/tables", json={"name": "Bob's"})).json()["table"]
    invited = await invite(ann, "Dora")
    anyone = await invite(ann)
    bob_id = (await bob.get("/api/me")).json()["member"]["id"]
    reset = (await ann.post(f"/api/club/members/{bob_id}/reset", json={})).json()["link"].rsplit("/", 1)[1]
    guest = await _guest_link(bob, table, guests=2)
    until = (datetime.now(UTC) + timedelta(days=3)).date().isoformat()
    saved = await ann.post("/api/club/signup-code", json={"code": "the club code", "until": until, "uses": 5})
    assert saved.status_code == 200 and saved.json() == {"signup": True}

    outstanding = (await ann.get("/api/club/admin")).json()["outstanding"]
    invitations = {(i["kind"], i["name"]): i for i in outstanding["invitations"]}
    assert set(invitations) == {("member", "Dora"), ("member", None), ("reset", "Bob")}
    assert all(i["by"] == "Ann" for i in invitations.values())
    links = {link["kind"]: link for link in outstanding["links"]}
    assert links["guest"]["table"] == table and links["guest"]["by"] == "Bob" and links["guest"]["uses"] == 2
    assert links["signup"]["uses"] == 5 and links["signup"]["used"] == 0
    end = datetime.fromisoformat(until).replace(tzinfo=UTC) + timedelta(days=1)
    assert links["signup"]["expires"] == int(end.timestamp() * 1000)

    assert (await bob.post(f"/api/club/invitations/{invitations[('member', 'Dora')]['id']}/revoke")).status_code == 403
    for invitation in invitations.values():
        revoked = await ann.post(f"/api/club/invitations/{invitation['id']}/revoke", json={})
        assert revoked.status_code == 200, revoked.text
    for link in links.values():
        assert (await ann.post(f"/api/club/links/{link['id']}/revoke", json={})).status_code == 200
    assert (await ann.get("/api/club/admin")).json()["outstanding"] == {"invitations": [], "links": []}

    async with browser(live) as someone:
        for code in (invited, anyone, reset):
            used = await someone.post("/api/club/welcome", json={"code": code, "name": "Eve", "password": PASSWORD})
            assert used.status_code == 404 and used.json()["error"]["reason"] == "club/bad_invitation"
        assert (await someone.get(guest["link"])).status_code == 403
        signup = await someone.post(
            "/api/club/signup", json={"code": "the club code", "name": "Eve", "password": PASSWORD}
        )
        assert signup.status_code == 403 and signup.json()["error"]["reason"] == "club/bad_code"
    audit = [(line["action"], line["target"]) for line in (await ann.get("/api/club/admin")).json()["audit"][:5]]
    assert ("revoked", "sign-up code") in audit and ("revoked", f"guest link to {table}") in audit


async def test_a_sign_up_code_for_n_people_admits_n(club: Any) -> None:
    live, ann, bob = club
    for wrong in ({"uses": 0}, {"uses": "3"}, {"until": "2020-01-01"}, {"until": "tomorrow"}):
        refused = await ann.post("/api/club/signup-code", json={"code": "the club code", **wrong})
        assert refused.status_code == 400 and refused.json()["error"]["reason"] in ("club/bad_uses", "club/bad_date")
    today = datetime.now(UTC).date().isoformat()  # through the end of today
    assert (
        await ann.post("/api/club/signup-code", json={"code": "the club code", "until": today, "uses": 2})
    ).status_code == 200
    answers = []
    for name, password in (
        ("Carl", "short"),
        ("Carl", PASSWORD),
        ("Bob", PASSWORD),
        ("Dora", PASSWORD),
        ("Emil", PASSWORD),
    ):
        async with browser(live) as someone:
            body = {"code": "the club code", "name": name, "password": password}
            answers.append((await someone.post("/api/club/signup", json=body)).json())
    # a refused sign-up (a short password, a member's name) leaves its place to the next person
    assert [a.get("member", {}).get("name") or a["error"]["reason"] for a in answers] == [
        "input/bad_password"
        if answers[0]["error"]["reason"] == "input/bad_password"
        else answers[0]["error"]["reason"],
        "Carl",
        "club/name_taken",
        "Dora",
        "club/bad_code",
    ]
    assert "admitted all it may" in answers[4]["error"]["message"]
    assert (await ann.get("/api/club/admin")).json()["signup"] is False


@pytest.mark.asyncio
async def test_a_sign_up_code_set_before_codes_were_records_still_works(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'club.db'}"
    async with club_server(url) as live, browser(live) as ann:
        await become(ann, first_admin_code(capsys.readouterr().out))
    engine = make_engine(url)
    try:  # as an earlier version stored it: a setting holding the code's hash
        await ClubStore(engine).set_setting("signup", {"code_hash": code_hash("the old club code")})
    finally:
        await engine.dispose()
    async with club_server(url) as live, browser(live) as carl:
        joined = await carl.post(
            "/api/club/signup", json={"code": "the old club code", "name": "Carl", "password": PASSWORD}
        )
        assert joined.status_code == 200, joined.text
    async with club_server(url) as live, browser(live) as ann:  # adopted once: a restart changes nothing
        assert (await ann.post("/api/club/login", json={"name": "Ann", "password": PASSWORD})).status_code == 200
        links = (await ann.get("/api/club/admin")).json()["outstanding"]["links"]
        assert [(link["kind"], link["used"], link["uses"], link["expires"]) for link in links] == [
            ("signup", 1, None, None)
        ]
