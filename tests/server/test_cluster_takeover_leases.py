"""A process's takeover of a table (server/cluster/node.py) while its renewer has not renewed yet (the
database has just come back, or the renewer died), or its lobby's claim of a table it brings back or
makes: the table runs here only with its lease, and a lease just taken is not let go as if it were
about to run out. On PostgreSQL, skipped where it does
not answer on 127.0.0.1 (CI has one); the node is not started (no Redis, no ticks): the test drives
its steps.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import pytest
from dbkit import REDIS, journal_on
from tablekit import Kit
from test_table_adjourned import adjourned_bot_game

from server.cluster import node as node_module
from server.cluster.node import Node
from server.cluster.renewer import Renewal
from server.store.journal import SqlJournal
from server.tables.errors import TableError
from server.tables.journal import StoredTable
from server.ws import SocketConfig

pytestmark = pytest.mark.asyncio


async def _orphan(journal: SqlJournal) -> str:
    """A table stored playing that no process holds (no lease row): any process may take it over."""
    kit = Kit(journal)
    actor, _ = await kit.table(humans=1)
    await kit.advance(actor, 3)
    return actor.id


def _node(journal: SqlJournal) -> Node:
    return Node(Kit(journal).lobby, journal, REDIS, SocketConfig(), prefix="test:takeover:")


def _renewals_failing_since(node: Node, seconds: float) -> None:
    """The renewer's latest renewal failed, its last good one held the leases until ``seconds`` ago."""
    now = time.monotonic()
    node.renewer.good = Renewal(now - node.ttl - seconds, {}, until=now - seconds)
    node.renewer.last = Renewal(now - 0.5, {}, failed=True)


def _slow_load(journal: SqlJournal) -> asyncio.Event:
    """Make ``journal.load`` wait until the event returned is set (a takeover reading a long log)."""
    load, go = journal.load, asyncio.Event()

    async def slow(table: str) -> StoredTable | None:
        await go.wait()
        return await load(table)

    journal.load = slow  # type: ignore[method-assign]
    return go


async def test_a_table_let_go_while_its_takeover_reads_it_does_not_run_here_without_its_lease(tmp_path: Path) -> None:
    async with journal_on("postgresql", tmp_path) as (journal, _engine):
        table = await _orphan(journal)
        taker = SqlJournal(journal.engine)
        node = _node(taker)
        try:
            go = _slow_load(taker)
            taking = asyncio.create_task(node._take(table, asyncio.Semaphore(1), [1]))
            while table not in taker.tokens:  # the lease is taken; the log is being read
                await asyncio.sleep(0.01)
            token = taker.tokens[table]
            node._stale(table)  # let go meanwhile (here: a write refused; or the renewals failing)
            go.set()
            await taking
            # Either it runs here with its lease, or not at all: never in the lobby without a token
            # (its writes unfenced, its lease renewed by nobody, soon run by another process too).
            assert (node.lobby.local(table) is not None) == (table in taker.tokens), (token, taker.tokens)
            assert node.describe()["tables_here"] == len(node.lobby.tables)
        finally:
            await node.lobby.close()
            await taker.close()


async def test_a_lease_just_taken_is_not_let_go_for_renewals_that_failed_before_it(tmp_path: Path) -> None:
    async with journal_on("postgresql", tmp_path) as (journal, _engine):
        tables = [await _orphan(journal) for _ in range(2)]
        taker = SqlJournal(journal.engine)
        node = _node(taker)
        try:
            # The database is back: the renewer's last renewals failed during the outage (its leases,
            # if it had any, ran out long ago), and it has not tried again yet; the loop takes over.
            _renewals_failing_since(node, 10.0)
            go = _slow_load(taker)
            taking = asyncio.create_task(node._take(tables[0], asyncio.Semaphore(1), [1]))
            while tables[0] not in taker.tokens:
                await asyncio.sleep(0.01)
            node._heed_renewals()  # the loop's beat, while the log is being read
            go.set()
            await taking
            await node._take(tables[1], asyncio.Semaphore(1), [1])
            node._heed_renewals()
            # Both leases were taken a moment ago: they hold for a lease, renewed or not.
            assert set(taker.tokens) == set(tables) and set(node.lobby.tables) == set(tables)
            assert node.describe()["tables_here"] == 2

            # Still no renewal a lease later: those leases may run out now, and the tables are let go.
            taken_at = time.monotonic() - node.ttl
            node._held_until = {t: taken_at + node.ttl for t in tables}
            node._heed_renewals()
            assert taker.tokens == {} and node.lobby.tables == {}
        finally:
            await node.lobby.close()
            await taker.close()


async def test_a_table_let_go_while_the_lobby_brings_it_back_or_stores_it_does_not_run_here(tmp_path: Path) -> None:
    async with journal_on("postgresql", tmp_path) as (journal, _engine):
        adjourned, _ = await adjourned_bot_game(Kit(journal))
        taker = SqlJournal(journal.engine)
        node = _node(taker)
        node.lobby.elsewhere = node
        try:
            go = _slow_load(taker)  # opened: claimed, then read
            finding = asyncio.create_task(node.lobby.find(adjourned))
            while adjourned not in taker.tokens:
                await asyncio.sleep(0.01)
            node._stale(adjourned)  # let go while it is read
            go.set()
            assert await finding is None
            assert node.lobby.local(adjourned) is None and adjourned not in taker.tokens

            created, stored = taker.table_created, asyncio.Event()

            async def slow_created(table: StoredTable) -> None:
                await created(table)
                stored.set()
                await asyncio.sleep(0.2)

            taker.table_created = slow_created  # type: ignore[method-assign]
            creating = asyncio.create_task(node.lobby.create({"name": "T", "player": "Ann"}))
            await stored.wait()
            (new,) = taker.tokens
            node._stale(new)  # let go while it is stored
            with pytest.raises(TableError) as refused:
                await creating
            assert refused.value.status == 503
            assert node.lobby.tables == {} and taker.tokens == {}
        finally:
            await node.lobby.close()
            await taker.close()


async def test_tables_nobody_holds_are_taken_over_while_redis_is_out_of_reach(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # Redis only shares the work out among the processes; the leases are the database's. A process
    # that died during an outage leaves tables the survivors take, a few a tick, without Redis.
    monkeypatch.setattr(node_module, "TAKEN_PER_TICK", 2)
    async with journal_on("postgresql", tmp_path) as (journal, _engine):
        tables = {await _orphan(journal) for _ in range(3)}
        taker = SqlJournal(journal.engine)
        node = Node(Kit(taker).lobby, taker, "redis://127.0.0.1:1/0", SocketConfig(), prefix="test:takeover:")
        try:
            with caplog.at_level(logging.INFO, logger="sparrow.cluster"):
                await node._take_orphans()  # Redis refuses: a RedisError, not the end of the step
                assert len(node.lobby.tables) == 2 and set(taker.tokens) == set(node.lobby.tables) <= tables
                await node._take_orphans()
                assert set(node.lobby.tables) == tables and set(taker.tokens) == tables
            said = [r for r in caplog.records if "cannot reach Redis" in r.getMessage()]
            assert len(said) <= 1 and not any(r.exc_info for r in caplog.records)  # the bus's one line at most
        finally:
            await node.lobby.close()
            await taker.close()
