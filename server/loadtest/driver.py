"""The load test's run: set up N tables over the lobby API, seat four socket clients at each, give
the go, watch until every table has played its hands (or the time is up), and hand the figures to
`server.loadtest.report`.
"""

from __future__ import annotations

import asyncio
import gc
import json
import random
import resource
import time
from dataclasses import dataclass, field
from typing import Any

import psutil  # type: ignore[import-untyped]  # no stubs in the pinned dependencies
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from websockets.exceptions import WebSocketException

from server.collector import settle
from server.loadtest.client import HttpJson, LoadError, Player, Stats, Table, api_base
from server.loadtest.cpu import Sampler, listener, process, speed_probe
from server.loadtest.report import build_report, per_process, ramp_of
from server.lobby import MAX_WAITING

__all__ = ["DEFAULT_TIMERS", "Options", "first_moves", "loadtest"]

# Relaxed tables (no turn or ready clock, a long grace): once the run leaves, its tables wait quietly
# instead of being played on by timers and bots in the server you are measuring next.
DEFAULT_TIMERS = '{"turn": null, "ready": null, "grace": 3600}'
STALL = 30.0  # seconds without a single diff: the run is stuck


@dataclass(slots=True)
class Options:
    """What ``loadtest`` does; the command-line flags map onto these one to one."""

    url: str  # a server's socket URL; with ``urls``, the first of several processes
    tables: int = 10
    urls: list[str] = field(default_factory=list)  # several server processes of one club: tables go round
    cross: bool = False  # each table's sockets connect to the next process, which forwards them
    hands: int | None = None  # default: 1, unless a duration is given
    think: float = 1.0
    ramp: float | None = None  # seconds over which the tables' first moves are spread (default: think)
    duration: float | None = None
    server_pid: int | None = None
    compression: str | None = "deflate"  # what browsers negotiate
    timers: dict[str, Any] = field(default_factory=lambda: dict(json.loads(DEFAULT_TIMERS)))
    connect_limit: int = 50
    rate: float = 10.0  # per-socket messages/s the server allows (server.ws.SocketConfig.rate)
    seed: int = 0
    progress: bool = False


async def loadtest(options: Options, console: Console | None = None) -> dict[str, Any]:
    """Run the whole load test and return its report (the ``--json`` object)."""
    console = console or Console(stderr=True)
    _raise_file_limit(options.tables * 4 + 200)
    urls = options.urls or [options.url]
    hands = options.hands or (1 if options.duration is None else 10**9)
    stats = Stats()
    tables = [
        Table(i, stats, hands, options.think, options.rate, start=start, process=i % len(urls))
        for i, start in enumerate(first_moves(options.tables, ramp_of(options)))
    ]
    http_slots, socket_slots = asyncio.Semaphore(20), asyncio.Semaphore(options.connect_limit)
    # Every table is opened from this one address: the server lets an address have only so many
    # waiting for players at once (`Lobby.max_waiting`), so no more are being set up at a time.
    waiting_slots = asyncio.Semaphore(MAX_WAITING)
    go = asyncio.Event()
    rng = random.Random(options.seed)
    seat_tasks: list[asyncio.Future[None]] = []
    servers = [process(listener(api_base(url)[1])) for url in urls]
    server = process(options.server_pid) if options.server_pid else servers[0] if len(urls) == 1 else None
    me = psutil.Process()

    async def set_up(table: Table) -> None:
        async with http_slots, waiting_slots:  # made through the process that is to run it
            http = HttpJson(*api_base(urls[table.process]))
            try:
                # The fair pause (R6.9) would make every discard wait its length whatever the server can
                # do: a load test measures the server, so its tables play without it.
                body = {"name": f"load {table.index}", "player": "p0", "timers": options.timers}
                made = await http.post("/api/tables", {**body, "overrides": {"claim_pause": False}})
                table.id, seats = made["table"], [(made["seat"], made["token"])]
                for n in range(1, 4):
                    joined = await http.post(f"/api/tables/{table.id}/join", {"name": f"p{n}"})
                    seats.append((joined["seat"], joined["token"]))
                await http.post(f"/api/tables/{table.id}/start", {"token": made["token"]})
            finally:
                await http.close()
        table.players = [Player(table, seat, token) for seat, token in sorted(seats)]
        url = urls[(table.process + options.cross) % len(urls)]
        for player in table.players:
            async with socket_slots:
                try:
                    await player.connect(url, options.compression)
                except (OSError, TimeoutError, WebSocketException) as exc:
                    stats.connect_failures += 1
                    raise LoadError(f"could not open a socket to {url}: {exc}") from exc
                await asyncio.wait_for(player.snapshot.wait(), 30)
            seat_tasks.append(asyncio.create_task(player.play(go, random.Random(rng.random()))))
        progress.advance(setup_task)

    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[info]}"),
        console=console,
        transient=True,
        disable=not options.progress,
    )
    with progress:
        setup_task = progress.add_task("setting up tables", total=options.tables, info="")
        started = time.perf_counter()
        setting_up: list[asyncio.Future[None]] = [asyncio.ensure_future(set_up(t)) for t in tables]
        try:
            await asyncio.gather(*setting_up)
        except BaseException:
            await _close_all(tables, seat_tasks + setting_up)
            raise
        setup_seconds = time.perf_counter() - started
        progress.update(setup_task, visible=False)
        play_task = progress.add_task(
            "playing hands", total=options.tables * hands if options.hands or not options.duration else None, info=""
        )
        # The client's own collector pauses would count as latency: what set-up built is frozen out of
        # the collector's sight, as the server does once it has started (server/collector.py).
        probe = speed_probe()  # (the tables wait for the go)
        settle()
        sampler = Sampler(server, me)
        watcher = asyncio.ensure_future(sampler.watch_loop())
        cpu_before = [_cpu_seconds(p) for p in servers]
        began = time.perf_counter()
        go.set()
        playing: set[asyncio.Future[Any]] = {asyncio.ensure_future(t.done.wait()) for t in tables}
        diffs, quiet_since = -1, began
        while playing:
            _, playing = await asyncio.wait(playing, timeout=1.0)
            now = time.perf_counter()
            if len(stats.diff_sizes) != diffs:
                diffs, quiet_since = len(stats.diff_sizes), now
            elif now - quiet_since > STALL:
                console.print(f"[red]loadtest: no table moved for {STALL:g} s; giving up[/red]")
                break
            sampler.sample()
            for table in tables:
                for player in table.players:
                    player.tick(now)
            progress.update(play_task, completed=stats.hands, info=_live(stats, now - began, sampler))
            if options.duration is not None and now - began >= options.duration:
                break
        play_seconds = time.perf_counter() - began
        cpu_used = [_cpu_seconds(p) - before for p, before in zip(servers, cpu_before, strict=True)]
        sampler.sample()
        for waiter in playing:
            waiter.cancel()
        await asyncio.gather(*playing, return_exceptions=True)
        watcher.cancel()
        gc.unfreeze()
        await _close_all(tables, seat_tasks)
    report = build_report(options, stats, tables, setup_seconds, play_seconds, sampler, server, began, probe)
    if len(urls) > 1:
        report["processes"] = per_process(urls, servers, cpu_used, stats, play_seconds, options.cross)
    return report


def _cpu_seconds(proc: psutil.Process | None) -> float:
    """CPU seconds ``proc`` and its children (the journal's writer) have used; 0 if it cannot be seen."""
    if proc is None:
        return 0.0
    try:
        times = proc.cpu_times()
        return float(times.user + times.system + times.children_user + times.children_system)
    except psutil.Error:
        return 0.0


def first_moves(tables: int, ramp: float) -> list[float]:
    """When each table makes its first move, in seconds after the go: evenly spread over ``ramp``.

    Tables started at one instant would all move at once, second after second, until their random
    think times drift them apart: a wave that a server whose tables opened over time never sees, and
    which measures the wave rather than the server (at 1,000 tables the p99 of the first 8,000 intents
    was 420–518 ms without a ramp, 50–169 ms with one of a second; docs/benchmarks.md).
    """
    return [ramp * i / tables for i in range(tables)]


async def _close_all(tables: list[Table], tasks: list[asyncio.Future[None]]) -> None:
    await asyncio.gather(*(p.close() for t in tables for p in t.players), return_exceptions=True)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def _raise_file_limit(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def _live(stats: Stats, seconds: float, sampler: Sampler) -> str:
    recent = sorted(stats.latencies[-2000:])
    p99 = f"{1000 * recent[int(0.99 * (len(recent) - 1))]:.0f}" if recent else "–"
    cpu = f"server {sampler.recent['server']:.0f}% " if sampler.procs["server"] else ""
    return (
        f"{stats.frames / max(seconds, 1e-9):,.0f} frames/s  p99≈{p99} ms  {cpu}client {sampler.recent['client']:.0f}%"
    )
