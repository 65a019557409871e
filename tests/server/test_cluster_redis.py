"""Two server processes whose Redis goes out of reach (through a TCP proxy of the test's own, which
it cuts and mends): each logs one line as the outage starts and one as it ends, no traceback; the
sockets they forward are closed with 1012 (the page reconnects), and forwarding works again after.
Skipped where PostgreSQL or Redis does not answer on 127.0.0.1 (CI has both).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from clubkit import club_server
from clusterkit import plays, started_table
from dbkit import REDIS, fresh_database, redis_or_skip
from livekit import LiveClient, LiveServer, hurried_move, within
from proxykit import TcpProxy

from server.metrics import REGISTRY

pytestmark = pytest.mark.asyncio

LOST = "the bus cannot reach Redis"
BACK = "the bus reaches Redis again"


async def _until(predicate: Callable[[], bool], what: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out after {timeout} s waiting for {what}"
        await asyncio.sleep(0.05)


@contextlib.asynccontextmanager
async def _forwarded(tmp_path: Path) -> AsyncIterator[tuple[TcpProxy, LiveServer, LiveServer, str, str, LiveClient]]:
    """Two processes whose Redis is behind the test's proxy, a table on the first, and a socket at it
    through the second (forwarded over Redis) that has played two moves: (proxy, one, two, table,
    token, that socket)."""
    await redis_or_skip()
    port = int(REDIS.rsplit(":", 1)[1].split("/")[0])
    async with fresh_database("postgresql", tmp_path) as url, TcpProxy("127.0.0.1", port) as proxy:
        redis = f"redis://{proxy.url_part}/0"
        async with (
            club_server(url, mode="open", redis=redis) as one,
            club_server(url, mode="open", redis=redis) as two,
        ):
            table, token = await started_table(one)
            client = await two.attach(table, token)  # forwarded to `one`, over Redis
            await plays(client, 2)
            yield proxy, one, two, table, token, client


async def _attach_again(live: LiveServer, table: str, token: str) -> LiveClient:
    """A socket at ``table`` through ``live``, as a page reconnects: again until it gets its snapshot."""
    deadline = time.monotonic() + within(15)
    while True:
        try:
            return await live.attach(table, token)
        except AssertionError:  # refused or closed: the table's process is not yet reachable
            assert time.monotonic() < deadline, "the page never got its table back"
            await asyncio.sleep(0.3)


async def test_a_redis_outage_logs_once_as_it_starts_and_once_as_it_ends_and_forwarding_works_after(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with _forwarded(tmp_path) as (proxy, one, two, table, token, client):
        caplog.clear()
        with caplog.at_level(logging.INFO):
            proxy.cut()
            assert await client.closed() == 1012  # its page reconnects
            await _until(lambda: proxy.refused >= 6, "the processes to try Redis a few times")
            proxy.mend()
            await _until(lambda: len([r for r in caplog.records if r.getMessage().startswith(BACK)]) == 2, BACK)
            await plays(await _attach_again(two, table, token), 3)  # forwarded again
            records = list(caplog.records)

    lost = [r for r in records if r.getMessage().startswith(LOST)]
    back = [r for r in records if r.getMessage().startswith(BACK)]
    assert [r.levelname for r in lost] == ["ERROR", "ERROR"], [r.getMessage() for r in lost]
    assert [r.levelname for r in back] == ["WARNING", "WARNING"]
    cluster = [r.getMessage() for r in records if r.name == "sparrow.cluster"]
    assert len(cluster) == 4, cluster  # nothing else from the cluster: one line each way, per process
    assert not [r for r in records if r.exc_info], [r.getMessage() for r in records if r.exc_info]


async def test_after_a_redis_partition_a_forwarded_socket_is_closed_with_1012_and_plays_again_after(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with _forwarded(tmp_path) as (proxy, one, two, table, token, client):
        with caplog.at_level(logging.INFO):
            proxy.black_hole(drop=True)  # a partition: nothing crosses, nothing is closed
            move = hurried_move(client)
            if move is not None:  # an intent sent into the partition gets no answer; the socket
                await client.send("act", {"action": move, "window": client.state["clock"]["window"]}, 99)
            await client.wait_for(lambda: client.close_code is not None, "the socket to close", timeout=15)
            assert client.close_code == 1012  # ... is closed, so that its page reconnects
            buses = [live.app.state.forwarding.bus for live in (one, two)]
            await _until(lambda: all(bus.down_since is not None for bus in buses), "both processes to notice")
            # each says it is cut off, to a load balancer and to Prometheus (two processes in this one: 2)
            cut_off = [await live.http.get("/healthz") for live in (one, two)]
            assert [h.status_code for h in cut_off] == [503, 503]
            assert all(h.json()["bus"].startswith("cut off from the other processes") for h in cut_off)
            assert REGISTRY.get_sample_value("sparrow_bus_cut_off") == 2
            proxy.mend()
            await _until(lambda: all(bus.down_since is None for bus in buses), "both to reach Redis again")
            assert [(await live.http.get("/healthz")).status_code for live in (one, two)] == [200, 200]
            assert REGISTRY.get_sample_value("sparrow_bus_cut_off") == 0
            await plays(await _attach_again(two, table, token), 3)  # forwarded again
            said = [r.getMessage() for r in caplog.records if r.name == "sparrow.cluster"]
    # One line each way per process (what was begun in the partition and fails after it says nothing).
    assert sorted(line.split(" (")[0] for line in said) == sorted([BACK, BACK, LOST, LOST]), said


async def test_a_forwarded_socket_that_either_end_forgot_is_closed_with_1012_or_let_go(tmp_path: Path) -> None:
    await redis_or_skip()
    async with (
        fresh_database("postgresql", tmp_path) as url,
        club_server(url, mode="open", redis=REDIS) as one,
        club_server(url, mode="open", redis=REDIS) as two,
    ):
        host, forwarder = one.app.state.forwarding, two.app.state.forwarding
        table, token = await started_table(one)
        actor = one.lobby.get(table)

        # The table's process forgot the socket (it thought the other process gone, as after a
        # partition): the next message across tells the other, which closes it so the page reconnects.
        client = await two.attach(table, token)
        host._lost(forwarder.id)
        await client.send("ping")
        assert await client.closed() == 1012

        # The socket's process forgot it: the next frame across tells the table, which lets it go.
        client = await two.attach(table, token)
        await plays(client, 1)
        connections = len(actor.connections)
        forwarder._links.clear()
        await plays(await one.attach(table, token), 2)  # (frames for the forgotten socket go out meanwhile)
        await _until(lambda: len(actor.connections) == connections, "the table to let the forgotten socket go")
        assert not [key for key in host._hosted if key[0] == forwarder.id]
