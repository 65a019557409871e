"""The club's admin and a member's account: renaming keeps the record, an admin frees seats at a
table that has not started and closes tables, sets the defaults the lobby offers and the other sites
allowed to use the server; non-admins can do none of it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from clubkit import ann_and_bob, browser, club_server, login, socket
from livekit import LiveServer

pytestmark = pytest.mark.asyncio


@pytest_asyncio.fixture
async def club(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> AsyncIterator[tuple[LiveServer, httpx.AsyncClient, httpx.AsyncClient]]:
    """A club with its admin Ann and a member Bob, each logged in in a browser of their own."""
    async with club_server(f"sqlite+aiosqlite:///{tmp_path / 'club.db'}") as live:
        async with ann_and_bob(live, capsys) as (ann, bob):
            yield live, ann, bob


async def test_a_renamed_member_keeps_their_record_and_their_old_name(club: Any) -> None:
    live, ann, bob = club
    table = (await bob.post("/api/tables", json={"name": "Bob's"})).json()["table"]
    taken = await bob.post("/api/club/name", json={"name": "ann"})
    assert taken.status_code == 409 and taken.json()["error"]["reason"] == "club/name_taken"
    renamed = await bob.post("/api/club/name", json={"name": "Robert"})
    assert renamed.status_code == 200 and renamed.json()["member"]["name"] == "Robert"
    assert (await login(bob, "Robert")).status_code == 200
    assert (await login(bob, "Bob")).status_code == 401
    async with browser(live) as guest:  # the old name stays his: no one else may take it
        await ann.post("/api/club/mode", json={"mode": "open"})
        refused = await guest.post(f"/api/tables/{table}/join", json={"name": "Bob"})
        assert refused.status_code == 409 and refused.json()["error"]["reason"] == "seat/member_name"
    again = await bob.post(f"/api/tables/{table}/join", json={})
    assert again.json()["seat"] == 0  # still his seat


async def test_an_admin_frees_any_seat_before_the_start_and_closes_tables(club: Any) -> None:
    live, ann, bob = club
    table = (await bob.post("/api/tables", json={"name": "Bob's"})).json()["table"]
    assert (await bob.post(f"/api/tables/{table}/bots", json={})).status_code == 200
    watching = await socket(live, bob)
    await watching.hello(table, None)

    refused = await bob.post(f"/api/club/tables/{table}/remove", json={"seat": 1})
    assert refused.status_code == 403 and refused.json()["error"]["reason"] == "auth/not_admin"
    freed = await ann.post(f"/api/club/tables/{table}/remove", json={"seat": 0})  # the owner's own seat
    assert freed.status_code == 200 and freed.json() == {"removed": 0}
    assert await watching.closed() == 1000
    shown = (await ann.get(f"/api/tables/{table}")).json()
    assert shown["seats"][0] is None and shown["seats"][1]["name"] == "Bot 1"

    closed = await ann.post(f"/api/club/tables/{table}/close", json={})
    assert closed.status_code == 200
    assert (await ann.get(f"/api/tables/{table}")).status_code == 404
    log = (await ann.get("/api/club/admin")).json()["audit"]
    assert [line["action"] for line in log[:2]] == ["closed table", "removed from table"]


async def test_the_lobby_offers_the_defaults_the_admin_set(club: Any) -> None:
    live, ann, bob = club
    saved = await ann.post("/api/club/defaults", json={"ruleset": "classical", "timers": {"turn": 45, "claim": 9}})
    assert saved.status_code == 200, saved.text
    page = (await bob.get("/")).text
    assert 'name="turn" min="3" max="600" value="45"' in page and 'name="claim" min="1" max="120" value="9"' in page
    bad = await ann.post("/api/club/defaults", json={"ruleset": "classical", "timers": {"claim": 0}})
    assert bad.status_code == 400 and bad.json()["error"]["reason"] == "table/bad_timers"
    assert (await bob.post("/api/club/defaults", json={"ruleset": "classical"})).status_code == 403


async def test_sites_the_admin_allows_may_use_the_server(club: Any) -> None:
    live, ann, bob = club
    other = "https://friends.example"
    refused = await bob.post("/api/tables", json={"name": "T"}, headers={"origin": other})
    assert refused.status_code == 403
    bad = await ann.post("/api/club/origins", json={"origins": ["not a site"]})
    assert bad.status_code == 400 and bad.json()["error"]["reason"] == "club/bad_origin"
    saved = await ann.post("/api/club/origins", json={"origins": [other]})
    assert saved.json() == {"origins": ["https://friends.example:443"]}
    allowed = await bob.post("/api/tables", json={"name": "T"}, headers={"origin": other})
    assert allowed.status_code == 200, allowed.text


async def test_an_admin_adjourns_a_game_and_the_next_visitor_resumes_it(club: Any) -> None:
    live, ann, bob = club
    table = (await bob.post("/api/tables", json={"name": "Bob's"})).json()["table"]
    await bob.post(f"/api/tables/{table}/bots", json={})
    assert (await ann.post(f"/api/club/tables/{table}/adjourn", json={})).status_code == 409  # not started
    await bob.post(f"/api/tables/{table}/start", json={})
    playing = await socket(live, bob)
    await playing.hello(table, None)
    adjourned = await ann.post(f"/api/club/tables/{table}/adjourn", json={})
    assert adjourned.status_code == 200 and adjourned.json() == {"adjourned": True}
    assert await playing.closed() == 1000
    assert (await ann.get(f"/api/tables/{table}")).json()["status"] == "adjourned"
    back = await socket(live, bob)
    await back.hello(table, None)
    await back.wait_for(lambda: back.state["table"]["status"] == "playing", "the game to resume")
    assert back.state["seat"] == 0


async def test_a_member_id_that_is_not_plain_digits_is_no_member(club: Any) -> None:
    live, ann, bob = club
    for member in ("²", "٢", "1" * 13, "-2"):  # "²" passes str.isdigit but not int(): it was a 500
        for path in (f"/api/club/members/{member}", f"/api/club/members/{member}/reset"):
            refused = await ann.post(path, json={"disabled": True})
            assert refused.status_code == 404 and refused.json()["error"]["reason"] == "club/no_member", path
    assert (await ann.post("/api/club/members/2", json={"admin": False})).status_code == 200


async def test_a_mode_or_ruleset_that_is_not_a_name_is_refused(club: Any) -> None:
    live, ann, bob = club
    for bad in ([], {}, ["open"], {"a": 1}):  # a list or an object was a 500 (unhashable in the set of names)
        refused = await ann.post("/api/club/mode", json={"mode": bad})
        assert refused.status_code == 400 and refused.json()["error"]["reason"] == "club/bad_mode", bad
        refused = await ann.post("/api/club/defaults", json={"ruleset": bad})
        assert refused.status_code == 400 and refused.json()["error"]["reason"] == "table/bad_rules", bad
