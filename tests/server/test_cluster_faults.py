"""Several server processes on one PostgreSQL database (server/cluster) when the database's sessions
misbehave: a process hung inside a transaction, holding its lease rows, cannot keep its tables from
the others; one killed while Redis is out of reach leaves its tables to the others all the same; a
row locked by anyone delays the takeover of that table only; after the database was out of reach,
every table plays again. Every acknowledged action is stored, each table's log has no gap. Skipped
where PostgreSQL or Redis does not answer on 127.0.0.1 (CI has both).
"""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path

import asyncpg
import httpx
import pytest
from clubkit import club_server
from dbkit import PG_ADMIN, REDIS, fresh_database, redis_or_skip
from livekit import TIMEOUT, within
from proxykit import TcpProxy
from sqlalchemy import text
from test_cluster import TIMERS, _cluster, _each_plays, _Player, _stop, _stored_as_acknowledged, _wait

from server.cluster.leases import TTL
from server.store.session import make_engine, postgresql_options

pytestmark = pytest.mark.asyncio

TAKEOVER = TTL + 5.0  # a hung or vanished process's tables play elsewhere this soon (lease, then 5 s)


async def _tables_on(http: httpx.AsyncClient, port: int, count: int) -> list[tuple[str, str]]:
    """``count`` tables made through the process at ``port`` (which runs them), three bots at each."""
    base = f"http://127.0.0.1:{port}/api/tables"
    made: list[tuple[str, str]] = []
    for i in range(count):
        body = {"player": f"P{i}", "timers": TIMERS, "overrides": {"claim_pause": False}}
        table = (await http.post(base, json=body)).json()
        await http.post(f"{base}/{table['table']}/bots", json={"token": table["token"], "level": "easy"})
        assert (await http.post(f"{base}/{table['table']}/start", json={"token": table["token"]})).status_code == 200
        made.append((table["table"], table["token"]))
    return made


async def _gapless(url: str) -> None:
    engine = make_engine(url)
    try:
        async with engine.connect() as connection:
            rows = await connection.execute(text("SELECT game_id, seq FROM actions ORDER BY game_id, seq"))
            seqs: dict[str, list[int]] = {}
            for table, seq in rows:
                seqs.setdefault(table, []).append(seq)
    finally:
        await engine.dispose()
    assert seqs and all(found == list(range(1, len(found) + 1)) for found in seqs.values())


async def cut_off(url: str, seconds: float) -> float:
    """End every session on the database at ``url`` and refuse new ones for ``seconds``; when it
    answers again (monotonic)."""
    name = url.rsplit("/", 1)[1]
    admin = await asyncpg.connect(PG_ADMIN)
    try:
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        await admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", name)
        await asyncio.sleep(seconds)
    finally:
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        await admin.close()
    return time.monotonic()


def _resumed(players: list[_Player], since: float) -> dict[str, float]:
    """Seconds from ``since`` to each table's second acknowledged action after it (the first may have
    been on its way from the stopped process), for the tables that played twice since."""
    after = {p.table: [t - since for t in p.acked_at if t > since] for p in players}
    return {table: times[1] for table, times in after.items() if len(times) >= 2}


async def test_a_process_hung_inside_a_transaction_holds_no_table_hostage(tmp_path: Path) -> None:
    async with _cluster(tmp_path, 2) as (url, (hung, other)):
        async with httpx.AsyncClient(trust_env=False, timeout=TIMEOUT) as http:
            made = await _tables_on(http, hung.port, 6)  # the hung process runs them all
        players = [_Player(table, token, [other.port]) for table, token in made]  # forwarded to it
        tasks = [asyncio.create_task(p.play()) for p in players]
        dsn = url.replace("+asyncpg", "")
        # Its journal's writer caught mid-transaction, its lease row read FOR SHARE (as each write
        # reads it), on a session of the server's own settings; and a row locked by a session that is
        # not the server's (a person at psql), with no bounds, until the test lets it go.
        its_own = await asyncpg.connect(dsn, **postgresql_options())
        outsider = await asyncpg.connect(dsn)
        held, locked = players[0].table, players[1].table
        try:
            await _wait(lambda: all(p.acked >= 2 for p in players), "every table to play", 60)
            await its_own.execute("BEGIN")
            await its_own.execute("SELECT 1 FROM table_leases WHERE table_id = $1 FOR SHARE", held)
            await outsider.execute("BEGIN")
            await outsider.execute("SELECT 1 FROM table_leases WHERE table_id = $1 FOR UPDATE", locked)
            assert hung.proc is not None
            hung.proc.send_signal(signal.SIGSTOP)
            stopped_at = time.monotonic()
            free = [p for p in players if p.table != locked]
            at_stop = {p.table: p.acked for p in players}
            try:
                await _wait(lambda: all(p.acked >= at_stop[p.table] + 2 for p in free), "the free tables to play", 30)
            except AssertionError as exc:
                behind = [(p.table, p.acked, p.doing) for p in free if p.acked <= at_stop[p.table]]
                raise AssertionError(f"{exc}: {behind}") from None
            resumed = _resumed(free, stopped_at)
            assert max(resumed.values()) < within(TAKEOVER), resumed
            assert players[1].acked <= at_stop[locked] + 1  # still locked: not taken over, nor run twice
            await outsider.execute("ROLLBACK")
            released_at = time.monotonic()
            await _wait(lambda: players[1].acked >= at_stop[locked] + 2, "the locked table to play once let go", 10)
            back = next(t for t in players[1].acked_at if t > released_at) - released_at
            assert back < within(5.0), back
        finally:
            await _stop(players, tasks)
            await outsider.close()
            its_own.terminate()
        await _stored_as_acknowledged(url, players)
        await _gapless(url)
        print(
            f"\none process of 2 stopped inside a transaction: its 5 free tables played again within "
            f"{max(resumed.values()):.1f} s (the one it held locked: {resumed[held]:.1f} s); a row locked "
            f"by an outsider: its table played {back:.1f} s after the lock went (lease {TTL:g} s)"
        )


OUTAGE = 8.0  # seconds the database is out of reach: longer than a lease, so every process lets go
BACK_WITHIN = 10.0  # seconds after the database's return by which every table plays again


async def _outage_survived(players: list[_Player], url: str) -> float:
    """Once every table plays, the database is out of reach for `OUTAGE` seconds; every table must
    play again within `BACK_WITHIN` seconds of its return. The seconds the last one took."""
    await _wait(lambda: all(p.acked >= 2 for p in players), "every table to play", 60)
    back_at = await cut_off(url, OUTAGE)
    await _each_plays(players, 2, 30)
    resumed = _resumed(players, back_at)
    assert max(resumed.values()) < within(BACK_WITHIN), resumed
    return max(resumed.values())


async def test_after_the_database_was_out_of_reach_every_table_plays_again_in_every_process(tmp_path: Path) -> None:
    async with _cluster(tmp_path, 2) as (url, servers):
        ports = [s.port for s in servers]
        async with httpx.AsyncClient(trust_env=False, timeout=TIMEOUT) as http:
            made = [*await _tables_on(http, ports[0], 3), *await _tables_on(http, ports[1], 3)]
        # half of the people through the process that runs their table, half through the other
        players = [_Player(table, token, [ports[i % 2], ports[1 - i % 2]]) for i, (table, token) in enumerate(made)]
        tasks = [asyncio.create_task(p.play()) for p in players]
        try:
            took = await _outage_survived(players, url)
            for server in servers:  # the outage is said once as it starts and once as it ends, no traceback
                log = server.log.read_text()
                assert "Traceback" not in log and "Exception in ASGI" not in log, log[-3000:]
                for said in (
                    "cluster: the database cannot be reached",
                    "sparrow.store: the database cannot write",
                    "sparrow.storage: the database cannot answer",
                    "the database lock's connection dropped; postgresql",
                    "cluster: the database answers again",
                    "sparrow.store: the database writes again",
                ):
                    assert log.count(said) <= 1, (said, log[-3000:])
            async with httpx.AsyncClient(trust_env=False, timeout=TIMEOUT) as http:
                health = [(await http.get(f"http://127.0.0.1:{port}/healthz")) for port in ports]
            assert [h.status_code for h in health] == [200, 200]
            # every table is held by exactly one process, and counted there (none runs without its lease)
            here = [h.json()["cluster"] for h in health]
            assert sum(c["tables_here"] for c in here) == len(players), (here, [(p.table, p.doing) for p in players])
            assert all(s.proc is not None and s.proc.poll() is None for s in servers)  # no process restarted
        finally:
            await _stop(players, tasks)
        await _stored_as_acknowledged(url, players)
        await _gapless(url)
    print(
        f"\n2 processes, the database out of reach {OUTAGE:g} s: every table played again within "
        f"{took:.1f} s of its return"
    )


async def test_a_takeover_that_cannot_read_a_table_lets_it_go_and_takes_it_again(tmp_path: Path) -> None:
    async with _cluster(tmp_path, 2) as (url, (dead, survivor)):
        async with httpx.AsyncClient(trust_env=False, timeout=TIMEOUT) as http:
            made = await _tables_on(http, dead.port, 4)
        players = [_Player(table, token, [survivor.port]) for table, token in made]
        tasks = [asyncio.create_task(p.play()) for p in players]
        outsider = await asyncpg.connect(url.replace("+asyncpg", ""))
        try:
            await _wait(lambda: all(p.acked >= 2 for p in players), "every table to play", 60)
            assert dead.signal(signal.SIGKILL) == -signal.SIGKILL
            await outsider.execute("BEGIN")  # the survivor cannot read the tables it takes over
            await outsider.execute("LOCK TABLE actions IN ACCESS EXCLUSIVE MODE")
            at_kill = {p.table: p.acked for p in players}
            await asyncio.sleep(TAKEOVER)  # the leases run out; the takeovers fail on the lock
            await outsider.execute("ROLLBACK")
            released_at = time.monotonic()
            try:
                await _wait(lambda: all(p.acked >= at_kill[p.table] + 2 for p in players), "every table", 20)
            except AssertionError as exc:
                behind = [(p.table, p.acked, p.doing) for p in players if p.acked < at_kill[p.table] + 2]
                raise AssertionError(f"{exc}: {behind}") from None
            back = max(_resumed(players, released_at).values())
        finally:
            await _stop(players, tasks)
            await outsider.close()
        await _stored_as_acknowledged(url, players)
        await _gapless(url)
    print(f"\na takeover blocked by a table lock: every table played again within {back:.1f} s of the lock's end")


async def test_a_process_left_with_no_table_says_it_is_healthy_once_the_database_writes_again(
    tmp_path: Path,
) -> None:
    # A process whose tables all went elsewhere during an outage writes nothing of its own afterwards:
    # nothing found that the database wrote again, and its /healthz answered 503 for good.
    await redis_or_skip()
    async with fresh_database("postgresql", tmp_path) as url, club_server(url, redis=REDIS) as live:
        live.app.state.lobby.journal.trouble = "writes are failing: the outage this process saw"
        assert (await live.http.get("/healthz")).status_code == 503
        async with asyncio.timeout(within(5)):  # the next tick's renewal (of nothing) probes with a write
            while (await live.http.get("/healthz")).status_code != 200:
                await asyncio.sleep(0.1)
        assert live.app.state.lobby.journal.trouble is None


async def test_a_process_killed_while_redis_is_out_of_reach_leaves_its_tables_to_the_others(tmp_path: Path) -> None:
    # Redis only shares a takeover out among the processes; the leases are the database's.
    await redis_or_skip()
    async with TcpProxy("127.0.0.1", int(REDIS.rsplit(":", 1)[1].split("/")[0])) as proxy:
        async with _cluster(tmp_path, 2, redis=f"redis://{proxy.url_part}/0") as (url, (dead, survivor)):
            async with httpx.AsyncClient(trust_env=False, timeout=TIMEOUT) as http:
                made = await _tables_on(http, dead.port, 3) + await _tables_on(http, survivor.port, 1)
            # Every page through the survivor: those at the dead process's tables are forwarded to it
            # until Redis goes (1012), then refused until the survivor runs those tables itself.
            players = [_Player(table, token, [survivor.port]) for table, token in made]
            tasks = [asyncio.create_task(p.play()) for p in players]
            try:
                await _wait(lambda: all(p.acked >= 2 for p in players), "every table to play", 60)
                proxy.cut()
                assert dead.signal(signal.SIGKILL) == -signal.SIGKILL
                killed_at, at_kill = time.monotonic(), {p.table: p.acked for p in players}
                try:
                    await _wait(lambda: all(p.acked >= at_kill[p.table] + 2 for p in players), "every table", TAKEOVER)
                except AssertionError as exc:
                    behind = [(p.table, p.acked, p.doing) for p in players if p.acked < at_kill[p.table] + 2]
                    raise AssertionError(f"{exc}: {behind}") from None
                assert proxy.mode == "cut"  # (Redis out of reach all along)
                back = max(_resumed(players, killed_at).values())
            finally:
                await _stop(players, tasks)
            await _stored_as_acknowledged(url, players)
            await _gapless(url)
    print(f"\na process killed with Redis out of reach: every table played again within {back:.1f} s of the kill")
