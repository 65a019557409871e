"""Three server processes, each reaching Redis through a TCP proxy of the test's own, while the network
between them and Redis fails the ways networks do: its packets held (a partition that forwards
nothing and closes nothing), for one process or for all, for 10 s or for a minute; held one way
only; or held, then mended as by a NAT that forgot its connections (those made before stay silent
for good on the process's side, while Redis keeps its end, as it does for minutes, or closes it).
While a process is cut off from the bus its /healthz answers 503 saying so (a load balancer
drains it), and the others' answer 200; within 5 s of Redis answering again each is back on the
bus (200), and within 10 s every table plays again through every process (each table is played
through each of the three, and answers a page through each at the end). Each process says the
outage once as it starts and once as it ends. Skipped where PostgreSQL or Redis does not answer
on 127.0.0.1 (CI has both).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from dbkit import REDIS, fresh_database, redis_or_skip
from livekit import TIMEOUT, LiveClient, within
from processkit import ServerProcess, free_port
from proxykit import TcpProxy
from test_cluster import _Player, _stop, _stored_as_acknowledged, _wait
from test_cluster_faults import _gapless, _tables_on
from websockets.asyncio.client import connect

pytestmark = pytest.mark.asyncio

LOST = "the bus cannot reach Redis"
BACK = "the bus reaches Redis again"
NOTICED_WITHIN = 6.0  # seconds from a partition's start to a process's /healthz saying it is cut off
BACK_WITHIN = 5.0  # seconds from Redis answering again to every process being back on the bus
PLAYS_WITHIN = 10.0  # seconds from Redis answering again to every table playing again


@dataclass
class _Cluster:
    url: str
    servers: list[ServerProcess]
    proxies: list[TcpProxy]  # each process's way to Redis
    players: list[_Player] = field(default_factory=list)
    health: dict[int, list[tuple[float, int, str]]] = field(default_factory=dict)  # by port: (when, status, body)


@contextlib.asynccontextmanager
async def _partitionable(tmp_path: Path) -> AsyncIterator[_Cluster]:
    """Three processes, each reaching Redis through its own proxy, three tables made through each
    (so run by it), each table played through one of the three (every process forwards to and from
    every other), and every process's /healthz watched every 0.1 s. Its players hold their sockets
    but make no move between one partition's checks and the next's mend."""
    await redis_or_skip()
    port = int(REDIS.rsplit(":", 1)[1].split("/")[0])
    async with contextlib.AsyncExitStack() as stack:
        url = await stack.enter_async_context(fresh_database("postgresql", tmp_path))
        proxies = [await stack.enter_async_context(TcpProxy("127.0.0.1", port)) for _ in range(3)]
        servers = [ServerProcess(url, free_port(), tmp_path, log=f"server{i}.log") for i in range(3)]
        stack.callback(lambda: [server.stop() for server in servers])
        await asyncio.gather(
            *(s.start("--redis", f"redis://{p.url_part}/0") for s, p in zip(servers, proxies, strict=True))
        )
        cluster = _Cluster(url, servers, proxies, health={s.port: [] for s in servers})
        ports = [s.port for s in servers]
        async with httpx.AsyncClient(trust_env=False, timeout=TIMEOUT) as http:
            for k, server in enumerate(servers):
                for j, (table, token) in enumerate(await _tables_on(http, server.port, 3)):
                    cluster.players.append(_Player(table, token, [ports[(k + j) % 3]]))
            tasks = [asyncio.create_task(p.play()) for p in cluster.players]
            tasks.append(asyncio.create_task(_watch(http, cluster)))
            try:
                await _play(cluster.players, 2, 60)
                yield cluster
            finally:
                await _stop(cluster.players, tasks[:-1])
                tasks[-1].cancel()
                await asyncio.gather(tasks[-1], return_exceptions=True)
        await _stored_as_acknowledged(url, cluster.players)
        await _gapless(url)


async def _watch(http: httpx.AsyncClient, cluster: _Cluster) -> None:
    """Ask every process's /healthz every 0.1 s, as a load balancer would (more often)."""
    while True:
        for port, seen in cluster.health.items():
            try:
                answer = await http.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
                seen.append((time.monotonic(), answer.status_code, answer.text))
            except httpx.HTTPError as exc:
                seen.append((time.monotonic(), 0, repr(exc)))
        await asyncio.sleep(0.1)


async def _play(players: list[_Player], moves: int, timeout: float) -> None:
    """Every player makes ``moves`` more moves, and pauses once it has (keeping its socket): a game is a
    few hundred moves long, and none may end within the test."""
    target = {p.table: p.acked + moves for p in players}
    for p in players:
        p.paused = False

    def played() -> bool:
        for p in players:
            p.paused = p.paused or p.acked >= target[p.table]
        return all(p.paused for p in players)

    try:
        await _wait(played, "every table to play", timeout)
    except AssertionError as exc:
        behind = [(p.table, p.acked, p.doing) for p in players if not p.paused]
        raise AssertionError(f"{exc}: {behind}") from None


def _cut_off(body: str) -> bool:
    return '"bus":' in body and "cut off" in body


async def _partition(
    cluster: _Cluster,
    held: list[int],
    seconds: float,
    *,
    way: dict[int, str] | None = None,
    forget: dict[int, str] | None = None,
    joined: tuple[list[int], float] = ([], 0.0),
) -> dict[str, object]:
    """Hold the packets between Redis and the processes ``held`` (their indexes) for ``seconds`` (by
    process, ``way``: both ways, the default, or one), the processes ``joined[0]`` for the last
    ``joined[1]`` of them too, then mend (by process, ``forget``: as a network that forgot the
    connections it held, Redis keeping its ends, "kept", or closing them, "closed"). Checks what a
    user and a load balancer see, and returns the figures."""
    way, forget = way or {}, forget or {}
    servers, ports = cluster.servers, [s.port for s in cluster.servers]
    said_before = [(text.count(LOST), text.count(BACK)) for text in (s.log.read_text() for s in servers)]
    dropped = sum(p.dropped for p in cluster.players)

    def saying_cut_off() -> set[int]:
        return {i for i, port in enumerate(ports) if cluster.health[port] and _cut_off(cluster.health[port][-1][2])}

    started = time.monotonic()
    noticed = 0.0
    for group, at in ((held, 0.0), (joined[0], seconds - joined[1])):
        if not group:
            continue
        await asyncio.sleep(max(0.0, started + at - time.monotonic()))
        since = time.monotonic()
        for i in group:
            cluster.proxies[i].black_hole(way=way.get(i, "both"))
        said = "the partitioned processes' /healthz to say so"
        await _wait(lambda g=set(group): saying_cut_off() >= g, said, NOTICED_WITHIN)
        noticed = max(noticed, time.monotonic() - since)
    held = [*held, *joined[0]]
    await asyncio.sleep(max(0.0, started + seconds - time.monotonic()))  # the partition lasts its time
    for i in held:
        cluster.proxies[i].mend(forget=i in forget, server_closes=forget.get(i) == "closed")
    mended = time.monotonic()
    await _wait(lambda: not saying_cut_off(), "every process to be back on the bus", BACK_WITHIN + 5)
    await _play(cluster.players, 2, PLAYS_WITHIN + 10)
    plays = {p.table: next(t for t in p.acked_at if t > mended) - mended for p in cluster.players}
    await _each_answers_everywhere(cluster, mended + within(PLAYS_WITHIN))
    dropped = sum(p.dropped for p in cluster.players) - dropped

    back: dict[int, float] = {}
    for i, port in enumerate(ports):
        during = [(t, status, body) for t, status, body in cluster.health[port] if started <= t < mended]
        after = [(t, status, body) for t, status, body in cluster.health[port] if t >= mended]
        if i in held:  # cut off from when it said so until the mend; ok from its first 200 on
            said = next(n for n, (_, _, body) in enumerate(during) if _cut_off(body))
            assert all(status == 503 and _cut_off(body) for _, status, body in during[said:]), during[said:]
            first = next(n for n, (_, status, _) in enumerate(after) if status == 200)
            assert all(status == 503 and _cut_off(body) for _, status, body in after[:first]), after[:first]
            assert all(status == 200 for _, status, _ in after[first:]), after[first:]
            back[i] = after[first][0] - mended
        else:  # never cut off: it answers 200 throughout
            assert all(status == 200 for _, status, _ in during + after), [s for s in during + after if s[1] != 200]
        text = servers[i].log.read_text()
        lost, found = text.count(LOST) - said_before[i][0], text.count(BACK) - said_before[i][1]
        assert (lost, found) == ((1, 1) if i in held else (0, 0)), (i, lost, found, text[-3000:])
    assert max(back.values()) < within(BACK_WITHIN), back
    assert max(plays.values()) < within(PLAYS_WITHIN), plays
    return {"noticed": noticed, "back": back, "plays": max(plays.values()), "dropped": dropped}


async def _each_answers_everywhere(cluster: _Cluster, deadline: float) -> None:
    """Every table gives its seat's page a snapshot through every process (again until ``deadline``)."""

    async def answers(table: str, token: str, port: int) -> None:
        while True:
            with contextlib.suppress(OSError, AssertionError, TimeoutError):
                async with connect(f"ws://127.0.0.1:{port}/ws", open_timeout=3) as ws:
                    await LiveClient(ws).hello(table, token)
                    return
            assert time.monotonic() < deadline, f"table {table} answers no page through :{port}"
            await asyncio.sleep(0.2)

    await asyncio.gather(*(answers(p.table, p.token, s.port) for p in cluster.players for s in cluster.servers))


def _said(name: str, figures: dict[str, object]) -> str:
    back = figures["back"]
    assert isinstance(back, dict)
    each = ", ".join(f"process {i}: {s:.1f} s" for i, s in sorted(back.items()))
    return (
        f"{name}: cut off said within {figures['noticed']:.1f} s; back on the bus after the mend: {each}; "
        f"every table played within {figures['plays']:.1f} s; sockets closed or refused meanwhile: {figures['dropped']}"
    )


async def test_a_held_partition_of_one_process_or_of_all_or_a_half_open_one_heals_within_seconds(
    tmp_path: Path,
) -> None:
    async with _partitionable(tmp_path) as cluster:
        one = await _partition(cluster, [0], 10)
        every = await _partition(cluster, [0, 1, 2], 10)
        one_way = await _partition(cluster, [1, 2], 6, way={1: "to server", 2: "to client"})
        forgot = await _partition(cluster, [0, 1, 2], 6, forget={0: "kept", 1: "kept", 2: "closed"})
    print(
        f"\n{_said('one process held 10 s', one)}"
        f"\n{_said('all held 10 s', every)}"
        f"\n{_said('two held 6 s one way only (1: its packets to Redis, 2: those from Redis)', one_way)}"
        f"\n{_said('all held 6 s, their connections silent for good after (Redis keeps 0 and 1, closes 2)', forgot)}"
    )


async def test_a_minute_long_held_partition_heals_within_seconds(tmp_path: Path) -> None:
    async with _partitionable(tmp_path) as cluster:  # one process alone for 50 s, then all three for 10 s
        figures = await _partition(cluster, [1], 60, joined=([0, 2], 10))
    print(f"\n{_said('one process held 60 s, the other two its last 10 s', figures)}")
