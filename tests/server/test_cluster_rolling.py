"""A rolling restart (server/cluster/handover.py): each of several `sparrow serve --redis` processes
stopped with SIGTERM hands its tables to the others while they play, and its pages move their sockets
when told to, so that restarting every process in turn under play refuses no move, leaves none
unanswered, closes no socket under a page and leaves no table silent for long; `sparrow serve
--workers N` does the same on SIGHUP, a worker at a time. A process alone closes its sockets with 1012
and says so. Skipped where PostgreSQL or Redis does not answer on 127.0.0.1 (CI has both).

The acceptance figure is 30 tables under 3 processes (benchmarks/rolling.py measures it); here 12, to
spare a 2-core CI machine.
"""

from __future__ import annotations

import asyncio
import re
import signal
import time
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from clubkit import club_server
from dbkit import REDIS, fresh_database, redis_or_skip
from livekit import LiveClient, hurried_move, within
from processkit import ServerProcess, free_port
from rollkit import Page, every_table_plays, figures, open_table, restart_in_turn
from test_cluster import _cluster, _stored_as_acknowledged
from websockets.asyncio.client import connect

from server.stopping import ALONE

pytestmark = pytest.mark.asyncio

TABLES = 12  # 30 in benchmarks/rolling.py
QUIET = 1.0  # seconds no table may be silent on an idle machine (asserted with `within`'s room)


def _pages(tables: list[tuple[str, str]], ports: list[int]) -> list[Page]:
    """A seat's page and a spectator's for each table, each through its own process (the seat's
    through the table's own process for every other table: the rest are forwarded)."""
    pages = []
    for i, (table, token) in enumerate(tables):
        seat, watcher = (i + i % 2) % len(ports), (i + 1 + i % 2) % len(ports)
        pages.append(Page(table, token, ports[seat:] + ports[:seat]))
        pages.append(Page(table, None, ports[watcher:] + ports[:watcher]))
    return pages


async def _stop(pages: list[Page], tasks: list[asyncio.Task[None]]) -> None:
    for page in pages:
        page.stop = True
    await asyncio.gather(*tasks, return_exceptions=True)


async def test_restarting_three_processes_in_turn_under_play_refuses_no_move_and_closes_no_socket(
    tmp_path: Path,
) -> None:
    async with _cluster(tmp_path, 3) as (url, servers):
        ports = [s.port for s in servers]
        tables = [await open_table(ports[i % 3], f"P{i}") for i in range(TABLES)]
        pages = _pages(tables, ports)
        tasks = [asyncio.create_task(page.run()) for page in pages]
        try:
            await every_table_plays(pages, 3)
            since = time.monotonic()
            restarts = await restart_in_turn(servers, pages, "--redis", REDIS)
            await every_table_plays(pages, 2)
        finally:
            await _stop(pages, tasks)
        seen = figures(pages, restarts, since)
        print("\n" + "\n".join(seen.lines()))

        assert all(r.status in (0, -signal.SIGTERM) for r in restarts)  # (uvicorn re-raises SIGTERM)
        assert not seen.refused and seen.unanswered == 0, seen.lines()
        assert seen.closes == [], seen.lines()  # no socket closed under a page: each moved when told
        assert seen.moves >= TABLES, seen.lines()  # (every process held some of the pages' sockets)
        assert max(seen.longest.values()) < within(QUIET), seen.lines()
        await _stored_as_acknowledged(url, [p for p in pages if p.token is not None])  # type: ignore[arg-type]

    for i in range(3):
        log = (tmp_path / f"server{i}.log").read_text()
        handed = re.search(r"stopping: (\d+) table\(s\) handed over in", log)
        assert handed and int(handed[1]) > 0, log  # each had tables (those taken over meanwhile too)
        assert "could not be" not in log and "closed with 1012" not in log and "Traceback" not in log, log


async def test_a_table_handed_over_keeps_its_decision_its_clock_and_its_sockets(tmp_path: Path) -> None:
    await redis_or_skip()
    timers = {"bot_delay": 0, "claim": 60, "turn": 90, "ready": None}
    async with (
        fresh_database("postgresql", tmp_path) as url,
        club_server(url, redis=REDIS, mode="open") as leaving,
        club_server(url, redis=REDIS, mode="open") as staying,
    ):
        table, token = await open_table(leaving.port, "Ann", timers)
        here = await leaving.attach(table, token)  # this process's own socket
        there = await staying.attach(table, None)  # forwarded to the table's process
        await here.wait_for(lambda: hurried_move(here) is not None and here.game["turn"]["phase"] == "turn", "a turn")
        before = here.state["clock"]
        seq_here, seq_there = here.seq, there.seq

        for server in leaving.server.servers:  # (as `sparrow serve` does on SIGTERM: server/stopping.py)
            server.close()
        handing = asyncio.create_task(leaving.app.state.forwarding.hand_over())
        await here.frame(lambda f: f["t"] == "reconnect", "word to move the socket")  # (once the table moved)

        assert table in staying.lobby.tables and table not in leaving.lobby.tables
        snapshot = await here.frame(lambda f: f["t"] == "snapshot" and f["d"]["seq"] == seq_here + 1, "a snapshot")
        await there.frame(lambda f: f["t"] == "snapshot" and f["d"]["seq"] == seq_there + 1, "a snapshot")
        after = snapshot["d"]["state"]["clock"]
        assert after["window"] == before["window"] and after["kind"] == "turn"
        assert abs(after["deadline"] - before["deadline"]) < 1000  # not started again
        assert here.state["table"]["seats"][0]["away"] is False  # (its socket is still there)
        moved = staying.lobby.tables[table]
        version = moved.game.version
        answer = await here.act(hurried_move(here))  # for the decision it was offered before the move
        assert answer["t"] == "ack", answer
        assert here.close_code is None and there.close_code is None
        await here.close()  # (as a page does once it has a socket elsewhere)
        assert await asyncio.wait_for(handing, within(5))
        assert there.close_code is None
        deadline = time.monotonic() + within(10)
        while moved.game.version < version + 2:  # the bots play on there (their clocks were armed again)
            assert time.monotonic() < deadline, "the table did not play on where it went"
            await asyncio.sleep(0.05)  # (the table's moves, in this loop, are what it waits for)


async def test_a_process_that_does_not_answer_is_passed_over_for_the_next(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    await redis_or_skip()
    async with (
        fresh_database("postgresql", tmp_path) as url,
        club_server(url, redis=REDIS, mode="open") as leaving,
        club_server(url, redis=REDIS, mode="open") as staying,
    ):
        node = leaving.app.state.forwarding
        mute = aioredis.from_url(REDIS)  # a process on the bus that says nothing (a release that does not hand over)
        listening = mute.pubsub()
        await listening.subscribe(node.bus.channel("0-mute"))  # (first in line: it runs no table either)
        try:
            table, token = await open_table(leaving.port, "Ann")
            here = await leaving.attach(table, token)
            for server in leaving.server.servers:
                server.close()
            handing = asyncio.create_task(node.hand_over())
            await here.frame(lambda f: f["t"] == "reconnect", "word to move the socket")  # (after 10 s)
            assert table in staying.lobby.tables and here.close_code is None
            await here.close()
            assert await asyncio.wait_for(handing, within(10))
        finally:
            await listening.aclose()
            await mute.aclose()
    assert "did not read table" in caplog.text and "could not be" not in caplog.text


async def test_a_process_alone_closes_its_sockets_with_1012_and_says_so(tmp_path: Path) -> None:
    async with fresh_database("sqlite", tmp_path) as url:
        server = ServerProcess(url, free_port(), tmp_path)
        await server.start()
        try:
            table, token = await open_table(server.port, "Ann")
            client = LiveClient(await connect(f"ws://127.0.0.1:{server.port}/ws", proxy=None))
            await client.hello(table, token)
            status = await asyncio.to_thread(server.signal, signal.SIGTERM)
            assert await client.closed() == 1012  # the page reconnects by itself
        finally:
            server.stop()
    assert status in (0, -signal.SIGTERM)  # (uvicorn re-raises SIGTERM once shut down)
    assert ALONE in server.log.read_text()


async def test_workers_restart_one_at_a_time_on_sighup_under_play(tmp_path: Path) -> None:
    await redis_or_skip()
    async with fresh_database("postgresql", tmp_path) as url:
        server = ServerProcess(url, free_port(), tmp_path)
        await server.start("--redis", REDIS, "--workers", "2")
        assert server.proc is not None
        pages: list[Page] = []
        tasks: list[asyncio.Task[None]] = []
        try:
            tables = [await open_table(server.port, f"P{i}") for i in range(6)]
            pages = [Page(table, token, [server.port]) for table, token in tables]
            pages += [Page(table, None, [server.port]) for table, _ in tables]
            tasks = [asyncio.create_task(page.run()) for page in pages]
            await every_table_plays(pages, 3)
            since = time.monotonic()
            server.proc.send_signal(signal.SIGHUP)
            deadline = time.monotonic() + within(120)
            while "worker 1 restarted" not in server.log.read_text():
                assert server.proc.poll() is None, server.log.read_text()
                assert time.monotonic() < deadline, "the workers were not restarted:\n" + server.log.read_text()
                await asyncio.sleep(0.2)  # (a child process offers nothing to await)
            await every_table_plays(pages, 2)
        finally:
            await _stop(pages, tasks)
            try:
                status = await asyncio.to_thread(server.signal, signal.SIGTERM)
            finally:
                server.stop()
        seen = figures(pages, [], since)
        print("\n" + "\n".join(seen.lines()))
        assert status == 0
        assert not seen.refused and seen.unanswered == 0 and seen.closes == [], seen.lines()
        assert max(seen.longest.values()) < within(QUIET), seen.lines()
    log = server.log.read_text()
    assert "worker 0 restarted" in log and "worker 1 restarted" in log
    assert log.count("has no admin yet") == 1 and "Traceback" not in log
    assert "restarting the 2 workers one at a time (SIGHUP)" in log
