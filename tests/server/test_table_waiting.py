"""Tables waiting for players: one nobody is at closes after a while, as an admin would close it (so an
abandoned table does not hold a place in the lobby for ever, nor come back on every restart), and one
person (a member, or an address) may have only so many waiting at once."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from clubkit import ann_and_bob, browser, club_server
from livekit import LiveServer
from tablekit import Client, Kit

from server.lobby import EXPIRE_AFTER, MAX_WAITING, Lobby
from server.tables.errors import TableError
from server.tables.messages import AddBots, Leave, Start

pytestmark = pytest.mark.asyncio


class Cluster:
    """The other processes, as far as a lobby's leases go: every table is claimed, and let go."""

    def __init__(self) -> None:
        self.let_go_of: list[str] = []

    async def claim(self, table_id: str) -> None:
        pass

    def holds(self, table_id: str) -> bool:
        return True

    async def call(self, table_id: str, op: str, args: dict[str, object]) -> object:
        raise TableError("table/not_found", "no such table", status=404)

    def tables(self) -> list[tuple[float, dict[str, object]]]:
        return []

    async def let_go(self, table_ids: list[str]) -> None:
        self.let_go_of += table_ids


async def waiting(kit: Kit, person: str | None = None, player: str = "Ann") -> tuple[str, str]:
    """A new table waiting for players: its id and its owner's token."""
    made = await kit.lobby.create({"name": "T", "player": player}, person=person)
    return str(made["table"]), str(made["token"])


async def test_a_waiting_table_nobody_is_at_closes_after_a_while_and_is_not_restored() -> None:
    kit = Kit()
    kit.lobby.elsewhere = cluster = Cluster()
    alone, _ = await waiting(kit)  # its page was never opened
    watched, _ = await waiting(kit)
    watcher = Client(kit.lobby.get(watched), None)
    await watcher.attach()
    left, ann = await waiting(kit)
    was_here = Client(kit.lobby.get(left), ann)
    await was_here.attach()
    playing, (bob,) = await kit.table(humans=1, seed=3)
    bob.detach()  # nobody at a started table: it pauses, and is adjourned after a day, never closed (it leaves
    # memory, stored as adjourned: test_table_adjourned)
    await kit.settle(playing)

    kit.clock.advance(EXPIRE_AFTER / 2)
    was_here.detach()
    await kit.settle(kit.lobby.get(left))
    kit.clock.advance(EXPIRE_AFTER / 2 - 1)
    assert await kit.lobby.retire() == []
    kit.clock.advance(2)
    assert await kit.lobby.retire() == [alone]
    assert cluster.let_go_of == [alone]  # its lease goes (several processes)
    kit.clock.advance(EXPIRE_AFTER / 2)
    assert await kit.lobby.retire() == [left]  # counted from when its last socket left

    for gone in (alone, left):
        with pytest.raises(TableError) as refused:
            kit.lobby.get(gone)
        assert refused.value.status == 404
        assert kit.journal.tables[gone].status == "stopped"
        assert all(t["id"] != gone for t in kit.lobby.all_tables())
    await kit.advance(playing, 24 * 3600.0)
    assert playing.status == "adjourned" and await kit.lobby.retire() == [playing.id]
    assert kit.journal.tables[playing.id].status == "adjourned"
    assert kit.lobby.get(watched).status == "waiting"  # someone is looking at it

    restarted = Lobby(clock=kit.clock, journal=kit.journal)
    assert await restarted.restore() == 1
    assert set(restarted.tables) == {watched}
    await restarted.close()


async def test_a_restored_waiting_table_gets_the_whole_delay_again() -> None:
    kit = Kit()
    table, _ = await waiting(kit)
    kit.clock.advance(EXPIRE_AFTER - 60)
    restarted = Lobby(clock=kit.clock, journal=kit.journal)  # a restart, just before it would have closed
    assert await restarted.restore() == 1
    kit.clock.advance(120)
    assert await restarted.retire() == []  # its people get time to come back
    kit.clock.advance(EXPIRE_AFTER)
    assert await restarted.retire() == [table]
    await restarted.close()


async def test_one_person_may_have_only_so_many_tables_waiting_and_starting_or_leaving_one_frees_a_place() -> None:
    kit = Kit()
    mine = [await waiting(kit, "address 203.0.113.5") for _ in range(MAX_WAITING)]
    before = (set(kit.lobby.tables), set(kit.journal.tables))
    with pytest.raises(TableError) as refused:
        await waiting(kit, "address 203.0.113.5")
    assert (refused.value.reason, refused.value.status) == ("table/too_many", 429)
    assert f"you already have {MAX_WAITING} tables waiting for players" in refused.value.message
    assert (set(kit.lobby.tables), set(kit.journal.tables)) == before  # nothing was made
    await waiting(kit, "address 203.0.113.6")  # someone else still can
    await waiting(kit, None)  # and so can the server itself (nobody's)

    (first, owner), (second, other) = mine[:2]
    await kit.lobby.request(first, AddBots(owner))
    await kit.lobby.request(first, Start(owner))
    third, _ = await waiting(kit, "address 203.0.113.5")  # a started table is no longer waiting
    with pytest.raises(TableError):
        await waiting(kit, "address 203.0.113.5")
    await kit.lobby.request(second, Leave(other))  # a table one has left is not one's own
    await waiting(kit, "address 203.0.113.5")
    with pytest.raises(TableError):
        await waiting(kit, "address 203.0.113.5")
    await kit.lobby.close_table(third)
    await waiting(kit, "address 203.0.113.5")


async def test_a_rematch_counts_as_a_new_table_waiting() -> None:
    kit = Kit()
    old, (ann,) = await kit.table(humans=1, seed=7, overrides={"game_length": "east"}, timers={"turn": 3})
    while old.status == "playing":
        await kit.advance(old, 3)
        ann.pump()
    token = ann.token
    for _ in range(MAX_WAITING):
        await waiting(kit, "member 1")

    with pytest.raises(TableError) as refused:
        await kit.lobby.rematch(old.id, token, None, "member 1")
    assert refused.value.reason == "table/too_many"
    assert old.rematch is None
    again = await kit.lobby.rematch(old.id, token, None, "member 2")  # not stuck "being set up"
    new = kit.lobby.get(str(again["table"]))
    assert new.waiting_for == "member 2" and new.status == "waiting"


@pytest_asyncio.fixture
async def club(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> AsyncIterator[tuple[LiveServer, httpx.AsyncClient, httpx.AsyncClient]]:
    """A club with its admin Ann and a member Bob, each logged in in a browser of their own."""
    async with club_server(f"sqlite+aiosqlite:///{tmp_path / 'club.db'}", mode="open") as live:
        async with ann_and_bob(live, capsys) as (ann, bob):
            yield live, ann, bob


async def test_the_sixth_table_an_address_opens_is_refused_and_members_count_on_their_own(club: Any) -> None:
    live, ann, bob = club
    one, other = {"x-forwarded-for": "203.0.113.5"}, {"x-forwarded-for": "203.0.113.6"}
    body = {"name": "T", "player": "Zed"}
    async with browser(live) as guest:  # not logged in: known by the address a proxy passes on
        for _ in range(MAX_WAITING):
            assert (await guest.post("/api/tables", json=body, headers=one)).status_code == 200
        count = len(live.lobby.tables)
        refused = await guest.post("/api/tables", json=body, headers=one)
        assert refused.status_code == 429
        assert refused.json()["error"]["reason"] == "table/too_many"
        assert len(live.lobby.tables) == count
        assert (await guest.post("/api/tables", json=body, headers=other)).status_code == 200
    for _ in range(MAX_WAITING):  # members from that same address: each has places of their own
        assert (await ann.post("/api/tables", json={"name": "T"}, headers=one)).status_code == 200
    assert (await ann.post("/api/tables", json={"name": "T"}, headers=one)).status_code == 429
    assert (await bob.post("/api/tables", json={"name": "T"}, headers=one)).status_code == 200


async def test_the_page_of_a_table_that_closed_waiting_says_it_is_gone(club: Any) -> None:
    live, ann, _ = club
    table = (await ann.post("/api/tables", json={"name": "Never played"})).json()["table"]
    actor = live.lobby.get(table)
    actor._left_at -= EXPIRE_AFTER  # nobody has been at it for the whole delay
    assert await live.lobby.retire() == [table]
    page = await ann.get(f"/t/{table}")
    assert page.status_code == 404 and "No such table" in page.text
    assert (await ann.get(f"/api/tables/{table}")).status_code == 404
    listed = (await ann.get("/api/games")).json()
    assert all(g["id"] != table for g in listed["games"])  # it had no game: nothing in the history
