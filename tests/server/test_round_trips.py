"""PostgreSQL far away: an acknowledged move costs at most two sequential round trips to the database
(a pooled connection's ping, when it rested in the pool, then one statement that checks the table's
lease token and writes the action, committed as it ends: server/store/pg_records.py), counted by a
TCP proxy in front of it; and with 200 ms added to every round trip, every table of two processes plays. Skipped where
PostgreSQL or Redis does not answer on 127.0.0.1 (CI has both).
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import httpx
import pytest
from dbkit import REDIS, action_seqs, created_tables, discard_record, fresh_database, redis_or_skip
from livekit import within
from processkit import ServerProcess, free_port
from proxykit import TcpProxy
from sqlalchemy import text
from sqlalchemy.engine import make_url
from test_cluster import _human_actions, _open_table, _Player, _wait

from server.cluster.leases import Leases
from server.store.journal import SqlJournal
from server.store.migrate import upgrade
from server.store.session import RESTED, make_engine
from server.tables.journal import Record

pytestmark = pytest.mark.asyncio

MOST_ROUND_TRIPS = 2  # per acknowledged move (issue 32: "at most 2 sequential round trips")


def _through(url: str, proxy: TcpProxy) -> str:
    return make_url(url).set(port=proxy.port).render_as_string(hide_password=False)


def _deal_end(table: str, seq: int) -> Record:
    totals = [10, -10, 0, 0]
    events: list[dict[str, object]] = [
        {"type": "deal_end", "termination": "wash_out", "changes": [10, -10, 0, 0], "totals": totals}
    ]
    return Record(table, seq, 0, {"type": "discard", "tile": "1b"}, events, 2_000.0 + seq, deal=0)


async def test_an_acknowledged_move_costs_at_most_two_round_trips_to_postgresql(tmp_path: Path) -> None:
    async with fresh_database("postgresql", tmp_path) as url, TcpProxy("127.0.0.1", 5432) as proxy:
        engine = make_engine(_through(url, proxy))
        journal = SqlJournal(engine)
        try:
            await upgrade(engine)
            tables = await created_tables(journal, 2)
            leases = Leases(engine, "this process")
            for table in tables:  # held through a lease, as by one of several processes: fenced writes
                token = await leases.take(table)
                assert token is not None
                journal.tokens[table] = token
            first, second = tables
            await journal.record(discard_record(first, 1))  # (the connection prepares the statement once)

            spent: list[int] = []
            for seq in range(2, 8):
                before = proxy.round_trips
                await journal.record(discard_record(first, seq))
                spent.append(proxy.round_trips - before)
            before = proxy.round_trips  # a deal's end: the hand's row and the seats' totals too
            await journal.record(_deal_end(first, 8))
            spent.append(proxy.round_trips - before)
            before = proxy.round_trips  # two tables' moves at once: one batch, one statement
            await asyncio.gather(journal.record(discard_record(first, 9)), journal.record(discard_record(second, 1)))
            spent.append(proxy.round_trips - before)
            await asyncio.sleep(RESTED + 0.2)  # the writer's connection rests: it is pinged as it leaves the pool
            before = proxy.round_trips
            await journal.record(discard_record(first, 10))
            spent.append(proxy.round_trips - before)
            assert max(spent) <= MOST_ROUND_TRIPS, spent

            assert (await action_seqs(engine)) == {first: list(range(1, 11)), second: [1]}
            async with engine.connect() as connection:
                hands = (await connection.execute(text("SELECT game_id, number, totals FROM hands"))).all()
                scores = await connection.execute(
                    text("SELECT seat, score FROM seats WHERE game_id = :t"), {"t": first}
                )
                game = (
                    await connection.execute(
                        text("SELECT version, hands, scores FROM games WHERE id = :t"), {"t": first}
                    )
                ).one()
            assert [tuple(h) for h in hands] == [(first, 0, [10, -10, 0, 0])]
            assert dict(scores.all()) == {0: 10, 3: 0}  # the seats taken (created_tables: 0 and 3)
            assert tuple(game) == (10, 1, [10, -10, 0, 0])
        finally:
            await journal.close()
            await engine.dispose()


async def test_with_200_ms_per_database_round_trip_every_table_of_two_processes_plays(tmp_path: Path) -> None:
    await redis_or_skip()
    async with fresh_database("postgresql", tmp_path) as url, TcpProxy("127.0.0.1", 5432) as proxy:
        far = _through(url, proxy)
        servers = [ServerProcess(far, free_port(), tmp_path, log=f"server{i}.log") for i in range(2)]
        players: list[_Player] = []
        tasks: list[asyncio.Task[None]] = []
        try:
            await asyncio.gather(*(s.start("--redis", REDIS) for s in servers))
            proxy.latency = 0.2
            ports = [s.port for s in servers]
            async with httpx.AsyncClient(trust_env=False, timeout=within(60)) as http:
                # three tables made through each process, each played through the other
                made = await asyncio.gather(*(_open_table(http, ports[i % 2], f"P{i}") for i in range(6)))
            for i, (table, token) in enumerate(made):
                players.append(_Player(table, token, [ports[(i + 1) % 2], ports[i % 2]]))
            tasks = [asyncio.create_task(p.play()) for p in players]
            await _wait(lambda: all(p.acked >= 3 for p in players), "three acknowledged moves at every table", 240)
        finally:
            for p in players:
                p.stop = True
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 30)
            for server in servers:
                server.stop()
        stored = await _human_actions(url)
        assert all(stored.get(p.table, 0) >= p.acked for p in players), (stored, [p.acked for p in players])
