"""A table is supervised (lesson 15): whatever fails inside its actor, it is rebuilt from its journal
to the last stored action and plays on; one that cannot be rebuilt closes its sockets; stopping never
waits on a wedged table."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from dbkit import BACKENDS, fresh_database
from livekit import within
from tablekit import Client, Kit

from server.store.journal import SqlJournal
from server.store.migrate import upgrade
from server.store.session import make_engine
from server.tables.actor import INTERNAL_ERROR
from server.tables.messages import Act, Chat

pytestmark = pytest.mark.asyncio

HUGE = 18446744073709551616  # 2**64: orjson cannot encode it


async def test_an_act_whose_id_cannot_be_encoded_leaves_the_table_playing() -> None:
    """The outside tester's message, posted straight to the actor as if the parser let it through:
    it used to kill the actor (the refusal re-encoded the id and failed again)."""
    kit = Kit()
    actor, clients = await kit.table(humans=4)
    seat = actor.game.deal.current
    c = clients[seat]
    actor.post(Act(c.conn, HUGE, {"type": "discard", "tile": "zz"}, actor.window))
    actor.post(Chat(c.conn, HUGE, "hello"))
    await kit.settle(actor)
    assert not actor.done and actor.status == "playing"
    c.pump()
    request = c.act(c.legal[0])
    await kit.settle(actor)
    c.pump()
    assert c.answers[request]["t"] == "ack" and actor.game.version == 1


async def test_a_table_that_keeps_failing_closes_its_sockets(caplog: pytest.LogCaptureFixture) -> None:
    kit = Kit()
    actor, clients = await kit.table(humans=4)

    async def broken(msg: Any) -> None:
        raise RuntimeError("always")

    actor.handle = broken  # type: ignore[method-assign]
    for n in range(10):
        clients[0].chat(f"line {n}")
    await asyncio.wait_for(actor._task, within(5))  # type: ignore[arg-type]
    assert actor.status == "closed"
    clients[0].pump()
    assert clients[0].closed is not None and clients[0].closed[0] == INTERNAL_ERROR
    assert any("it closes" in r.getMessage() and actor.id in r.getMessage() for r in caplog.records)
    with pytest.raises(Exception, match="not_found|no table"):
        kit.lobby.get(actor.id)
    await asyncio.wait_for(kit.lobby.close(), within(5))


async def test_a_table_that_cannot_be_read_back_closes() -> None:
    kit = Kit()
    actor, clients = await kit.table(humans=4)
    del kit.journal.tables[actor.id]  # the journal lost it
    original = actor._deadline

    async def broken(window: int) -> None:
        raise RuntimeError("boom")

    actor._deadline = broken  # type: ignore[method-assign]
    await kit.advance(actor, 60)
    actor._deadline = original  # type: ignore[method-assign]
    assert actor.status == "closed" and actor.done
    clients[1].pump()
    assert clients[1].closed is not None and clients[1].closed[0] == INTERNAL_ERROR


async def test_stop_does_not_wait_on_a_wedged_table() -> None:
    kit = Kit()
    actor, clients = await kit.table(humans=4)
    forever = asyncio.Event()

    async def wedged(msg: Any) -> None:
        await forever.wait()

    actor.handle = wedged  # type: ignore[method-assign]
    clients[0].chat("hi")
    await asyncio.sleep(0)
    await asyncio.wait_for(actor.stop(1012, wait=0.2), within(5))
    assert actor.done and actor.status == "closed"
    clients[0].pump()
    assert clients[0].closed is not None and clients[0].closed[0] == 1012


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_table_is_rebuilt_from_the_database(backend: str, tmp_path: Path) -> None:
    """The same rebuild with the SQL journal: the table comes back to its last stored action."""
    async with fresh_database(backend, tmp_path) as url:
        engine = make_engine(url)
        await upgrade(engine)
        journal = SqlJournal(engine)
        try:
            kit = Kit(journal)
            actor, clients = await kit.table(humans=2)
            while actor.game.version < 6:
                await kit.advance(actor, 31)
            version, digest = actor.game.version, actor.game.log[:]
            stored = await journal.load(actor.id)
            assert stored is not None and len(stored.actions) == version
            actor.post(Act(clients[0].conn, HUGE, {"type": "fly"}, actor.window))  # posted past the parser
            actor._fail = None  # type: ignore[assignment]  # the error path itself fails too
            await kit.settle(actor)
            assert actor.status == "playing" and actor.game.log[:version] == digest  # then play went on
            for c in clients:
                assert "snapshot" in [f["t"] for f in c.pump()]
            assert await journal.load("no-such-table") is None
            await kit.lobby.close()
        finally:
            await journal.close()
            await engine.dispose()


async def test_spectators_keep_watching_after_a_rebuild() -> None:
    kit = Kit()
    actor, clients = await kit.table(humans=2)
    watcher = Client(actor, None)
    await watcher.attach()
    await kit.settle(actor)
    watcher.pump()
    actor.post(Chat(watcher.conn, HUGE, "hi"))
    actor._fail = None  # type: ignore[assignment]
    await kit.settle(actor)
    assert [f["t"] for f in watcher.pump()][-1] == "snapshot"
    assert watcher.state["seat"] is None and watcher.state["game"]["seats"][0]["tiles"] in (13, 14)
