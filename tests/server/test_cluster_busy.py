"""Several server processes on one PostgreSQL database (server/cluster) when one is busy, not dead: an
event loop held by CPU-bound work for longer than a lease keeps its tables (its leases are renewed
from a thread of their own), one held past the renewer's bound (`SILENCE`: stuck, not busy) loses
them to another process, and a takeover of many tables moves each table once. Every acknowledged
action is stored, each table's log has no gap. Skipped where PostgreSQL or Redis does not answer on
127.0.0.1 (CI has both).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from dbkit import REDIS, fresh_database, redis_or_skip
from livekit import TIMEOUT, within
from processkit import ServerProcess, free_port
from sqlalchemy import text
from stallkit import SCRIPT, STALL_FILE
from test_cluster import _each_plays, _Player, _stop, _stored_as_acknowledged, _wait
from test_cluster_faults import _gapless, _resumed, _tables_on

from server.cluster.leases import TTL
from server.cluster.renewer import SILENCE
from server.store.session import make_engine

pytestmark = pytest.mark.asyncio

BUSY = TTL + 1.5  # seconds the loop is held in the first test: longer than a lease, well under SILENCE
STUCK = SILENCE + 8.0  # seconds it is held in the second: past the bound, so it is stuck
STUCK_TAKEOVER = SILENCE + 5.0  # a stuck loop's tables play elsewhere this soon after it stopped
TAKEN = 40  # tables taken over at once in the third


@contextlib.asynccontextmanager
async def _stallable(tmp_path: Path, count: int) -> AsyncIterator[tuple[str, list[ServerProcess]]]:
    """``count`` processes; the first one's event loop stalls on SIGUSR1 (tests/server/stallkit.py)
    for the seconds written to ``tmp_path / "stall"``."""
    await redis_or_skip()
    async with fresh_database("postgresql", tmp_path) as url:
        env = {STALL_FILE: str(tmp_path / "stall")}
        servers = [ServerProcess(url, free_port(), tmp_path, log="server0.log", program=SCRIPT, env=env)]
        servers += [ServerProcess(url, free_port(), tmp_path, log=f"server{i}.log") for i in range(1, count)]
        try:
            await asyncio.gather(*(s.start("--redis", REDIS) for s in servers))
            yield url, servers
        finally:
            for server in servers:
                server.stop()


def _stall(server: ServerProcess, seconds: float) -> float:
    """Hold ``server``'s event loop for ``seconds``, from now (monotonic)."""
    (server.tmp / "stall").write_text(str(seconds))
    assert server.proc is not None
    server.proc.send_signal(signal.SIGUSR1)
    return time.monotonic()


async def _leases(url: str) -> dict[str, tuple[str, int]]:
    """Each table's lease: its owner and its token (1: never moved)."""
    engine = make_engine(url)
    try:
        async with engine.connect() as connection:
            rows = await connection.execute(text("SELECT table_id, owner, token FROM table_leases"))
            return {table: (owner, token) for table, owner, token in rows}
    finally:
        await engine.dispose()


async def _process_id(port: int) -> str:
    async with httpx.AsyncClient(trust_env=False, timeout=TIMEOUT) as http:
        return str((await http.get(f"http://127.0.0.1:{port}/healthz")).json()["cluster"]["process"])


async def _stored_and_gapless(url: str, players: list[_Player]) -> None:
    await _stored_as_acknowledged(url, players)
    await _gapless(url)


async def test_a_process_whose_loop_is_busy_longer_than_a_lease_keeps_its_tables_and_sockets(tmp_path: Path) -> None:
    async with _stallable(tmp_path, 2) as (url, (busy, other)):
        async with httpx.AsyncClient(trust_env=False, timeout=TIMEOUT) as http:
            made = await _tables_on(http, busy.port, 6)  # the busy process runs them all
        # half of the people through the busy process, half forwarded to it by the other
        players = [_Player(table, token, [(busy, other)[i % 2].port]) for i, (table, token) in enumerate(made)]
        tasks = [asyncio.create_task(p.play()) for p in players]
        try:
            await _wait(lambda: all(p.acked >= 2 for p in players), "every table to play", 60)
            for p in players:  # (a person's move waits through the stall; the test's client gives up sooner)
                p.paused = True
            await asyncio.sleep(0.5)
            before = await _leases(url)
            assert {owner for owner, _ in before.values()} == {await _process_id(busy.port)}
            _stall(busy, BUSY)
            await asyncio.sleep(BUSY + 2 * TTL)  # long enough for any lease that ran out to be taken
            at_stall = {p.table: p.acked for p in players}
            for p in players:
                p.paused = False
            try:
                await _wait(lambda: all(p.acked >= at_stall[p.table] + 2 for p in players), "every table", 30)
            except AssertionError as exc:
                moved = {t: lease for t, lease in (await _leases(url)).items() if lease != before[t]}
                raise AssertionError(f"{exc}; tables moved: {moved}") from None
        finally:
            await _stop(players, tasks)
        assert await _leases(url) == before  # no table moved: same owner, same token
        assert [p.connections for p in players] == [1] * len(players)  # every socket worked on
        await _stored_and_gapless(url, players)
    log = (tmp_path / "server0.log").read_text()
    assert "it stops here" not in log and "lets its tables go" not in log
    print(
        f"\nthe event loop of the process running 6 tables held {BUSY:g} s (lease {TTL:g} s): no table moved "
        "and every socket worked on"
    )


async def test_a_process_whose_loop_is_stuck_past_the_bound_loses_its_tables_and_writes_no_more(
    tmp_path: Path,
) -> None:
    async with _stallable(tmp_path, 2) as (url, (stuck, other)):
        async with httpx.AsyncClient(trust_env=False, timeout=TIMEOUT) as http:
            made = await _tables_on(http, stuck.port, 6)
        players = [_Player(table, token, [other.port]) for table, token in made]  # forwarded to it
        tasks = [asyncio.create_task(p.play()) for p in players]
        try:
            await _wait(lambda: all(p.acked >= 2 for p in players), "every table to play", 60)
            stalled_at = _stall(stuck, STUCK)
            await _each_plays(players, 2, 30)
            resumed = _resumed(players, stalled_at)
            assert max(resumed.values()) < within(STUCK_TAKEOVER), resumed
            assert min(resumed.values()) > TTL, resumed  # (it was stuck, not dead: its leases were renewed a while)
            # It wakes with tables it believes its own, and lets them go: every table plays on elsewhere.
            await asyncio.sleep(max(0.0, stalled_at + STUCK + 2 - time.monotonic()))
            woke = {p.table: p.acked for p in players}
            await _wait(lambda: all(p.acked >= woke[p.table] + 2 for p in players), "play to go on", 30)
        finally:
            await _stop(players, tasks)
        owner = await _process_id(other.port)
        assert {lease[0] for lease in (await _leases(url)).values()} == {owner}
        await _stored_and_gapless(url, players)
    print(
        f"\nthe event loop of the process running 6 tables stuck {STUCK:g} s: every table played again in the "
        f"other within {min(resumed.values()):.1f}-{max(resumed.values()):.1f} s of the stall's start "
        f"(bound {SILENCE:g} s, lease {TTL:g} s)"
    )


async def test_a_takeover_of_many_tables_moves_each_once(tmp_path: Path) -> None:
    async with _stallable(tmp_path, 3) as (url, servers):
        dead, survivors = servers[0], servers[1:]
        async with httpx.AsyncClient(trust_env=False, timeout=TIMEOUT) as http:
            made = await _tables_on(http, dead.port, TAKEN)
        # people through both survivors: each forwards half of them, and runs some after the takeover
        players = [_Player(table, token, [survivors[i % 2].port]) for i, (table, token) in enumerate(made)]
        target = dict.fromkeys((p.table for p in players), 2)

        async def pace() -> None:  # each person stops once the table has played enough (this machine has 2 cores)
            while True:
                for p in players:
                    p.paused = p.acked >= target[p.table]
                await asyncio.sleep(0.05)

        tasks = [asyncio.create_task(p.play()) for p in players]
        pacing = asyncio.create_task(pace())
        try:
            await _wait(lambda: all(p.acked >= 2 for p in players), "every table to play", 120)
            killed_at = time.monotonic()
            assert dead.signal(signal.SIGKILL) == -signal.SIGKILL
            target = {p.table: p.acked + 2 for p in players}  # (`pace` lets each person play that far)
            await _each_plays(players, 2, 120)
            resumed = _resumed(players, killed_at)
            target = {p.table: p.acked + 2 for p in players}  # and plays on, with no table moving again
            await _wait(lambda: all(p.acked >= target[p.table] for p in players), "every table", 60)
        finally:
            pacing.cancel()
            await _stop(players, [*tasks, pacing])
        leases = await _leases(url)
        owners = {await _process_id(s.port) for s in survivors}
        assert {owner for owner, _ in leases.values()} == owners  # both took a share
        assert sorted(token for _, token in leases.values()) == [2] * len(made)  # each moved once
        await _stored_and_gapless(url, players)
        for server in survivors:
            assert "it stops here" not in server.log.read_text()
    print(
        f"\n{TAKEN} tables on a process killed, 2 survivors: each table moved once, every one playing again "
        f"within {max(resumed.values()):.1f} s of the kill (median {sorted(resumed.values())[TAKEN // 2]:.1f} s)"
    )
