"""Members' names: they follow the PRECIS nickname profile (RFC 8266), a name that looks like a
member's ("Аnn" with a Cyrillic А beside "Ann") is refused everywhere a name is chosen, a member
renames themselves once a month (an admin renames anyone at any time), and a member's rename never
takes the name a guest plays under.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from clubkit import PASSWORD, ann_and_bob, browser, club_server, invite
from livekit import LiveServer

from server.club.names import likeness, member_name
from server.tables.errors import TableError

CYRILLIC_ANN = "\u0410nn"  # "Аnn": its first letter is the Cyrillic capital A


@pytest_asyncio.fixture
async def club(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> AsyncIterator[tuple[LiveServer, httpx.AsyncClient, httpx.AsyncClient]]:
    """A club with its admin Ann and a member Bob, each logged in in a browser of their own."""
    async with club_server(f"sqlite+aiosqlite:///{tmp_path / 'club.db'}") as live:
        async with ann_and_bob(live, capsys) as (ann, bob):
            yield live, ann, bob


def _reason(answer: httpx.Response) -> str:
    reason: str = answer.json()["error"]["reason"]
    return reason


@pytest.mark.asyncio
async def test_a_name_that_looks_like_a_members_is_refused_wherever_a_name_is_chosen(club: Any) -> None:
    live, ann, bob = club
    for look_alike in (CYRILLIC_ANN, "ANN", "\uff21nn"):  # Cyrillic А; capitals; a fullwidth Ａ
        named = await ann.post("/api/club/invitations", json={"name": look_alike, "days": 1})
        assert named.status_code == 409 and _reason(named) in ("club/name_look_alike", "club/name_taken")
    refused = await ann.post("/api/club/invitations", json={"name": CYRILLIC_ANN, "days": 1})
    assert refused.json()["error"]["message"] == f"the name {CYRILLIC_ANN!r} looks like 'Ann', a member's name"

    code = await invite(ann)  # for anyone: the name is chosen on the welcome page
    await ann.post("/api/club/signup-code", json={"code": "the club code"})
    async with browser(live) as someone:
        welcome = await someone.post(
            "/api/club/welcome", json={"code": code, "name": CYRILLIC_ANN, "password": PASSWORD}
        )
        assert welcome.status_code == 409 and _reason(welcome) == "club/name_look_alike"
        body = {"code": "the club code", "name": "B\u043eb", "password": PASSWORD}  # Cyrillic о
        signup = await someone.post("/api/club/signup", json=body)
        assert signup.status_code == 409 and _reason(signup) == "club/name_look_alike"
    renamed = await bob.post("/api/club/name", json={"name": CYRILLIC_ANN})
    assert renamed.status_code == 409 and _reason(renamed) == "club/name_look_alike"

    await ann.post("/api/club/mode", json={"mode": "open"})
    table = (await ann.post("/api/tables", json={"name": "Ann's"})).json()["table"]
    async with browser(live) as guest:
        sat = await guest.post(f"/api/tables/{table}/join", json={"name": CYRILLIC_ANN})
        assert sat.status_code == 409 and _reason(sat) == "seat/member_name"
        assert (await guest.post(f"/api/tables/{table}/join", json={"name": "Anna"})).status_code == 200
    members = [m["name"] for m in (await ann.get("/api/club/admin")).json()["members"]]
    assert members == ["Ann", "Bob"]


@pytest.mark.asyncio
async def test_members_names_follow_the_precis_nickname_profile(club: Any) -> None:
    live, ann, bob = club
    for bad in ("Bob\u3164", "\u115fBob", "\u0378Eve"):  # invisible Hangul fillers, an unassigned code point
        refused = await bob.post("/api/club/name", json={"name": bad})
        assert refused.status_code == 400 and _reason(refused) == "club/bad_name", bad
    refused = await bob.post("/api/club/name", json={"name": "Bob\u3164"})  # looks like "Bob"
    assert refused.json()["error"]["message"] == "your name may not hold the character HANGUL FILLER"
    renamed = await bob.post(
        "/api/club/name", json={"name": "  \uff24ora\u3000Lee "}
    )  # fullwidth Ｄ, ideographic space
    assert renamed.status_code == 200 and renamed.json()["member"]["name"] == "Dora Lee"


def test_likeness_treats_case_and_look_alike_letters_as_one() -> None:
    assert likeness("Admin") == likeness("\u0410dmin") == likeness("ADMIN") == likeness("admin")
    assert likeness("AIice") == likeness("alice")  # a capital I for a small l
    assert likeness("Ann") != likeness("Anne")
    with pytest.raises(TableError) as bad:
        member_name("Ann\u3164")
    assert bad.value.reason == "club/bad_name"


@pytest.mark.asyncio
async def test_a_member_renames_themselves_once_a_month_and_an_admin_renames_anyone(club: Any) -> None:
    live, ann, bob = club
    assert (await bob.post("/api/club/name", json={"name": "Robert"})).status_code == 200
    again = await bob.post("/api/club/name", json={"name": "Rob"})
    assert again.status_code == 409 and _reason(again) == "club/rename_too_soon"
    assert "the next rename can be from" in again.json()["error"]["message"]
    bob_id = (await bob.get("/api/me")).json()["member"]["id"]
    by_member = await bob.post(f"/api/club/members/{bob_id}/name", json={"name": "Rob"})
    assert by_member.status_code == 403 and _reason(by_member) == "auth/not_admin"
    by_admin = await ann.post(f"/api/club/members/{bob_id}/name", json={"name": "Rob"})
    assert by_admin.status_code == 200 and by_admin.json()["member"]["name"] == "Rob"
    look_alike = await ann.post(f"/api/club/members/{bob_id}/name", json={"name": CYRILLIC_ANN})
    assert look_alike.status_code == 409 and _reason(look_alike) == "club/name_look_alike"
    assert (await ann.post("/api/club/name", json={"name": "Annie"})).status_code == 200  # her own first rename
    audit = (await ann.get("/api/club/admin")).json()["audit"]
    assert [(line["actor"], line["action"], line["target"]) for line in audit[:3]] == [
        ("Annie", "renamed", "Annie"),
        ("Ann", "renamed", "Rob"),
        ("Robert", "renamed", "Robert"),
    ]


@pytest.mark.asyncio
async def test_a_member_cannot_rename_themselves_to_the_name_a_guest_sits_under(club: Any) -> None:
    live, ann, bob = club
    await ann.post("/api/club/mode", json={"mode": "open"})
    table = (await ann.post("/api/tables", json={"name": "Ann's"})).json()["table"]
    async with browser(live) as guest:
        sat = await guest.post(f"/api/tables/{table}/join", json={"name": "Zed"})
        assert sat.status_code == 200
        taken = await bob.post("/api/club/name", json={"name": "zed"})
        assert taken.status_code == 409 and _reason(taken) == "club/guest_name"
        by_admin = await ann.post(
            f"/api/club/members/{(await bob.get('/api/me')).json()['member']['id']}/name", json={"name": "Zed"}
        )
        assert by_admin.status_code == 409 and _reason(by_admin) == "club/guest_name"
        shown = (await guest.get(f"/api/tables/{table}")).json()
        assert shown["seats"][sat.json()["seat"]]["name"] == "Zed"  # the guest keeps their seat and name
        left = await guest.post(f"/api/tables/{table}/leave", json={"token": sat.json()["token"]})
        assert left.status_code == 200
        back = await guest.post(f"/api/tables/{table}/join", json={"name": "Zed"})  # and can sit under it again
        assert back.status_code == 200
    assert (await bob.get("/api/me")).json()["member"]["name"] == "Bob"


@pytest.mark.asyncio
async def test_a_member_cannot_rename_themselves_to_a_look_alike_of_the_name_a_guest_sits_under(club: Any) -> None:
    live, ann, bob = club
    await ann.post("/api/club/mode", json={"mode": "open"})
    table = (await ann.post("/api/tables", json={"name": "Ann's"})).json()["table"]
    bob_id = (await bob.get("/api/me")).json()["member"]["id"]
    async with browser(live) as guest:
        sat = await guest.post(f"/api/tables/{table}/join", json={"name": "Zed"})
        assert sat.status_code == 200
        for look_alike in ("Z\u0435d", "\u0396ED"):  # a Cyrillic е; a Greek capital Zeta, in capitals
            taken = await bob.post("/api/club/name", json={"name": look_alike})
            assert taken.status_code == 409 and _reason(taken) == "club/name_look_alike", look_alike
            assert "a guest plays under" in taken.json()["error"]["message"]
            by_admin = await ann.post(f"/api/club/members/{bob_id}/name", json={"name": look_alike})
            assert by_admin.status_code == 409 and _reason(by_admin) == "club/name_look_alike", look_alike
        assert (await bob.get("/api/me")).json()["member"]["name"] == "Bob"
        shown = (await guest.get(f"/api/tables/{table}")).json()
        assert shown["seats"][sat.json()["seat"]]["name"] == "Zed"  # the guest keeps their seat and name
    renamed = await bob.post("/api/club/name", json={"name": "Zeb"})  # a name that only resembles it is free
    assert renamed.status_code == 200 and renamed.json()["member"]["name"] == "Zeb"
