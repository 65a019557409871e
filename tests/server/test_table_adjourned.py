"""What nobody watches leaves memory (issue 31, point 6): an adjourned table is stored as adjourned and
leaves the server's memory; opening it (its page, GET /api/tables/{id}, a hello, a join) brings it back
from its journal at its last action, and it plays on; a restart does not load it; the lobby lists it
only to the members who sat at it and to the admin. On SQLite, and on PostgreSQL when it is reachable.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import weakref
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from clubkit import become, browser, club_server, first_admin_code, invite, socket
from dbkit import BACKENDS, REDIS, fresh_database, journal_on, redis_or_skip
from tablekit import Client, Kit

from server.cluster.identity import cluster_prefix
from server.cluster.node import Node
from server.lobby import Lobby
from server.store.journal import SqlJournal
from server.store.migrate import upgrade
from server.store.session import make_engine
from server.tables.errors import TableError
from server.tables.messages import AdjournNow, Join
from server.ws import SocketConfig

pytestmark = pytest.mark.asyncio

TIMERS = {"turn": 5, "claim": 3, "grace": 20, "bot_delay": 0.5}
DAY = 24 * 3600.0


async def adjourned_bot_game(kit: Kit) -> tuple[str, str]:
    """A game Ann started with three bots and left: it pauses, then is adjourned a day later. Its id,
    and Ann's seat token."""
    actor, (ann,) = await kit.table(humans=1, timers=TIMERS)
    await kit.advance(actor, 10)  # some moves are made
    ann.detach()
    await kit.settle(actor)
    await kit.advance(actor, 30)  # the grace period: nobody is here, it pauses
    await kit.advance(actor, DAY)
    assert actor.status == "adjourned"
    assert ann.token is not None
    return actor.id, ann.token


@pytest.mark.parametrize("backend", BACKENDS)
async def test_an_adjourned_bot_game_leaves_memory_a_restart_leaves_it_and_opening_it_plays_on(
    backend: str, tmp_path: Path
) -> None:
    async with journal_on(backend, tmp_path) as (journal, _engine):
        kit = Kit(journal)
        table, token = await adjourned_bot_game(kit)
        actor = kit.lobby.get(table)
        version, log = actor.game.version, list(actor.game.log)
        assert (await journal.load(table)).status == "adjourned"  # stored as such

        assert await kit.lobby.retire() == [table]
        assert table not in kit.lobby.tables and kit.lobby.local(table) is None
        assert actor.done and actor.status == "closed" and kit.clock.pending() == 0  # no task, no timer
        assert (await journal.load(table)).status == "adjourned"

        restarted = Lobby(clock=kit.clock, journal=journal)  # a restart does not load it
        assert await restarted.restore() == 0 and restarted.tables == {}

        shown = await restarted.show(table)  # GET /api/tables/{id}: it comes back, still adjourned
        assert shown["status"] == "adjourned" and shown["paused"] is True
        back = restarted.get(table)
        assert back is not actor and back.game.version == version and back.game.log == log
        assert kit.clock.pending() == 0  # no clock runs until someone is here

        ann = Client(back, token)
        await ann.attach()
        await kit.settle(back)
        ann.pump()
        assert back.status == "playing" and ann.state["table"]["status"] == "playing" and ann.state["seat"] == 0
        assert (await journal.load(table)).status == "playing"
        for _ in range(10):
            await kit.advance(back, 5)
        assert back.game.version > version  # bots and clocks run again
        await restarted.close()
        await kit.lobby.close()


async def test_an_adjourned_table_that_left_memory_is_freed() -> None:
    kit = Kit()
    table, _token = await adjourned_bot_game(kit)
    gone = weakref.ref(kit.lobby.get(table))
    assert await kit.lobby.retire() == [table]
    kit.clock.advance(10 * DAY)  # the fake clock lets go of the timers that were cancelled
    gc.collect()
    assert gone() is None


async def test_an_adjourned_table_stays_while_someone_is_at_it_and_a_revived_one_waits_a_while() -> None:
    kit = Kit()
    table, token = await adjourned_bot_game(kit)
    watcher = Client(kit.lobby.get(table), None)  # someone opens it before it leaves memory: it resumes
    await watcher.attach()
    await kit.settle(watcher.actor)
    assert watcher.actor.status == "playing" and await kit.lobby.retire() == []
    assert kit.journal.tables[table].status == "playing"
    await kit.lobby.close()

    kit = Kit(kit.journal)  # (restarted: it plays on, and is adjourned again a day after everyone left)
    assert await kit.lobby.restore() == 1
    actor = kit.lobby.get(table)
    watcher = Client(actor, token)
    await watcher.attach()
    watcher.detach()
    await kit.settle(actor)
    await kit.advance(actor, 60)
    await kit.advance(actor, DAY)
    assert actor.status == "adjourned"
    assert await kit.lobby.retire() == [table]

    revived = await kit.lobby.find(table)  # only looked at: it stays adjourned, then leaves again
    assert revived is not None and revived.status == "adjourned"
    kit.clock.advance(59)
    assert await kit.lobby.retire() == []
    kit.clock.advance(2)
    assert await kit.lobby.retire() == [table]
    await kit.lobby.close()


async def test_many_opening_an_adjourned_table_at_once_bring_back_one_table() -> None:
    kit = Kit()
    table, _token = await adjourned_bot_game(kit)
    await kit.lobby.retire()
    found = await asyncio.gather(*(kit.lobby.find(table) for _ in range(5)), kit.lobby.show(table))
    assert len({id(a) for a in found[:5]}) == 1 and found[0] is kit.lobby.get(table)
    assert await kit.lobby.find("nosuchtable0") is None
    kit.lobby.put_away_after = 0.0
    assert await kit.lobby.retire() == [table]
    with pytest.raises(TableError) as refused:  # a join brings it back too: the table answers it
        await kit.lobby.request(table, Join("Zed"))
    assert refused.value.reason == "table/started" and kit.lobby.local(table) is not None
    await kit.lobby.close()


async def test_an_admin_adjournment_is_stored_and_the_table_leaves_memory() -> None:
    kit = Kit()
    actor, (ann,) = await kit.table(humans=1, timers=TIMERS)
    assert await kit.lobby.request(actor.id, AdjournNow()) == {"adjourned": True}
    assert kit.journal.tables[actor.id].status == "adjourned"
    ann.pump()
    assert ann.closed is not None and ann.closed[0] == 1000
    kit.clock.advance(kit.lobby.put_away_after)
    assert await kit.lobby.retire() == [actor.id]
    with pytest.raises(TableError) as again:  # asked again, it comes back to answer: adjourned already
        await kit.lobby.request(actor.id, AdjournNow())
    assert again.value.reason == "table/not_started" and kit.lobby.get(actor.id).status == "adjourned"
    await kit.lobby.close()


# ------------------------------------------------------------------------ the lobby list, served
@pytest.mark.parametrize("backend", BACKENDS)
async def test_the_lobby_lists_an_adjourned_table_to_its_players_and_the_admin_only(
    backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with fresh_database(backend, tmp_path) as url, club_server(url) as live:
        async with browser(live) as ann, browser(live) as bob, browser(live) as cy:
            await become(ann, first_admin_code(capsys.readouterr().out))
            await become(bob, await invite(ann, "Bob"), "Bob")
            await become(cy, await invite(ann, "Cy"), "Cy")
            table = (await bob.post("/api/tables", json={"name": "Bob's"})).json()["table"]
            await bob.post(f"/api/tables/{table}/bots", json={})
            await bob.post(f"/api/tables/{table}/start", json={})
            other = (await cy.post("/api/tables", json={"name": "Cy's"})).json()["table"]  # waiting: seen by all

            async def listed(http: Any) -> dict[str, str]:
                response = await http.get("/api/tables")
                assert response.status_code == 200, response.text
                return {t["id"]: t["status"] for t in response.json()["tables"]}

            assert await listed(cy) == {table: "playing", other: "waiting"}
            assert (await ann.post(f"/api/club/tables/{table}/adjourn", json={})).json() == {"adjourned": True}
            live.lobby.put_away_after = 0.0
            assert await live.lobby.retire() == [table]
            assert table not in live.lobby.tables

            assert await listed(cy) == {other: "waiting"}  # not Cy's: not listed
            assert await listed(bob) == {table: "adjourned", other: "waiting"}
            assert await listed(ann) == {table: "adjourned", other: "waiting"}  # the admin
            entry = next(t for t in (await bob.get("/api/tables")).json()["tables"] if t["id"] == table)

            page = await cy.get(f"/t/{table}")  # its page: anyone who has the address may watch it
            assert page.status_code == 200 and table in live.lobby.tables
            assert (await cy.get(f"/api/tables/{table}")).json() == entry  # listed as it is once back

            back = await socket(live, bob)
            await back.hello(table, None)
            await back.wait_for(lambda: back.state["table"]["status"] == "playing", "the game to resume")
            assert back.state["seat"] == 0
            assert await listed(cy) == {table: "playing", other: "waiting"}


# ------------------------------------------------------------------------------------- a cluster


@contextlib.asynccontextmanager
async def _processes(url: str, count: int) -> AsyncIterator[list[tuple[Kit, Node]]]:
    """``count`` server processes (each a lobby on a fake clock, a journal and a node of its own) on
    the database ``url``, in this event loop."""
    engines = [make_engine(url) for _ in range(count)]
    await upgrade(engines[0])
    started: list[tuple[Kit, Node]] = []
    try:
        for engine in engines:
            journal = SqlJournal(engine)
            kit = Kit(journal)
            node = Node(kit.lobby, journal, REDIS, SocketConfig(), prefix=await cluster_prefix(engine))
            kit.lobby.elsewhere = node
            await node.start()
            started.append((kit, node))
        yield started
    finally:
        for kit, node in started:
            await kit.lobby.close()
            await kit.journal.close()
            await node.close()
        for engine in engines:
            await engine.dispose()


async def test_in_a_cluster_another_process_than_the_one_that_adjourned_a_table_brings_it_back(
    tmp_path: Path,
) -> None:
    await redis_or_skip()
    async with fresh_database("postgresql", tmp_path) as url, _processes(url, 2) as [(a, node_a), (b, node_b)]:
        actor, (ann,) = await a.table(humans=1, timers=TIMERS)
        table, token = actor.id, ann.token
        await a.advance(actor, 10)
        version = actor.game.version
        assert await a.lobby.request(table, AdjournNow()) == {"adjourned": True}
        a.lobby.put_away_after = 0.0
        assert await a.lobby.retire() == [table]
        assert await node_a.leases.owners([table]) == {}  # its lease is let go: nobody runs it

        shown = await b.lobby.show(table)  # asked of process B: B takes it
        assert shown["status"] == "adjourned" and b.lobby.local(table) is not None
        assert await node_b.leases.owners([table]) == {table: node_b.id}
        assert (await a.lobby.show(table))["status"] == "adjourned"  # A, asked again, asks B
        assert a.lobby.local(table) is None

        back = b.lobby.get(table)
        assert back.game.version == version
        player = Client(back, token)
        await player.attach()
        for _ in range(10):
            await b.advance(back, 5)
        player.pump()
        assert back.status == "playing" and back.game.version > version  # its writes carry B's lease token
        assert player.state["table"]["status"] == "playing"
        assert (await b.journal.load(table)).status == "playing"
