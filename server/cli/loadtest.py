"""``sparrow loadtest``: many live tables played by real WebSocket clients against a running server.

It creates N tables over the HTTP API, seats four people at each, starts them, opens four sockets per
table (all in this one asyncio process) and plays until every table has played H hands (or for a
given time). It reports the latency from an intent to all four seats holding its update, the frames
and bytes received, and the CPU and memory of the server (when its process can be found) and of
itself: on a small machine the client competes with the server for the same cores.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import gc
import json
import random
import resource
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

import psutil  # type: ignore[import-untyped]  # no stubs in the pinned dependencies
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table as RichTable
from websockets.exceptions import WebSocketException

from server.cli.arguments import whole_number
from server.cli.loadclient import HttpJson, LoadError, Player, Stats, Table, api_base
from server.cli.loadcpu import Sampler, listener, process, speed_probe
from server.collector import tame

__all__ = ["Options", "loadtest", "register"]

# Relaxed tables (no turn or ready clock, a long grace): once the run leaves, its tables wait quietly
# instead of being played on by timers and bots in the server you are measuring next.
DEFAULT_TIMERS = '{"turn": null, "ready": null, "grace": 3600}'
STALL = 30.0  # seconds without a single diff: the run is stuck
SATURATED = 85.0  # client CPU % (of one core) above which its own latency figures are suspect
WINDOW = 10.0  # seconds of play per latency window in the report


@dataclass(slots=True)
class Options:
    """What ``loadtest`` does; the command-line flags map onto these one to one."""

    url: str
    tables: int = 10
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


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``loadtest`` sub-command."""
    p = sub.add_parser(
        "loadtest",
        help="play many live tables over WebSockets against a running server and measure it",
        description="Create N tables on a running server, seat four socket clients at each, play H hands "
        "and report latency (intent → all four seats updated), frames, bytes and CPU.",
    )
    p.add_argument("--tables", type=whole_number(1, 5000), default=10, metavar="N", help="tables (default 10)")
    p.add_argument("--url", default="ws://127.0.0.1:8765/ws", help="the server's socket URL")
    p.add_argument("--hands", type=whole_number(1), default=None, metavar="H", help="hands per table (default 1)")
    p.add_argument("--think", type=float, default=1.0, metavar="S", help="seconds before each action (default 1)")
    p.add_argument(
        "--ramp",
        type=float,
        default=None,
        metavar="S",
        help="spread the tables' first moves evenly over S seconds (default: the think time)",
    )
    p.add_argument("--duration", type=float, default=None, metavar="S", help="stop after S seconds of play")
    p.add_argument("--server-pid", type=int, default=None, help="the server's PID (default: whoever listens)")
    p.add_argument("--no-compression", action="store_true", help="do not offer permessage-deflate")
    p.add_argument("--timers", default=DEFAULT_TIMERS, help=f"the tables' timers as JSON (default {DEFAULT_TIMERS})")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the load test and print its report."""
    console = Console(stderr=True)
    options = Options(
        url=args.url,
        tables=args.tables,
        hands=args.hands,
        think=max(0.0, args.think),
        ramp=None if args.ramp is None else max(0.0, args.ramp),
        duration=args.duration,
        server_pid=args.server_pid,
        compression=None if args.no_compression else "deflate",
        timers=json.loads(args.timers),
        progress=console.is_terminal,
    )
    try:
        import uvloop

        report = uvloop.run(loadtest(options, console))
    except LoadError as exc:
        console.print(f"[red]loadtest: {exc}[/red]")
        return 1
    if args.json:
        print(json.dumps(report))
    else:
        _print(report)
    return 0


async def loadtest(options: Options, console: Console | None = None) -> dict[str, Any]:
    """Run the whole load test and return its report (the ``--json`` object)."""
    console = console or Console(stderr=True)
    _raise_file_limit(options.tables * 4 + 200)
    host, port, tls, prefix = api_base(options.url)
    hands = options.hands or (1 if options.duration is None else 10**9)
    stats = Stats()
    tables = [
        Table(i, stats, hands, options.think, options.rate, start=start)
        for i, start in enumerate(first_moves(options.tables, _ramp(options)))
    ]
    http_slots, socket_slots = asyncio.Semaphore(20), asyncio.Semaphore(options.connect_limit)
    go = asyncio.Event()
    rng = random.Random(options.seed)
    seat_tasks: list[asyncio.Future[None]] = []
    server = process(options.server_pid or listener(port))
    me = psutil.Process()

    async def set_up(table: Table) -> None:
        async with http_slots:
            http = HttpJson(host, port, tls, prefix)
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
        for player in table.players:
            async with socket_slots:
                try:
                    await player.connect(options.url, options.compression)
                except (OSError, TimeoutError, WebSocketException) as exc:
                    stats.connect_failures += 1
                    raise LoadError(f"could not open a socket to {options.url}: {exc}") from exc
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
        # The client's own collector pauses would count as latency: the server's schedule keeps what
        # set-up built, and every socket's state, out of the collector's sight (server/collector.py).
        probe = speed_probe()  # (the tables wait for the go)
        gc.collect()
        collector = asyncio.ensure_future(tame())
        sampler = Sampler(server, me)
        watcher = asyncio.ensure_future(sampler.watch_loop())
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
        sampler.sample()
        for waiter in playing:
            waiter.cancel()
        await asyncio.gather(*playing, return_exceptions=True)
        watcher.cancel()
        collector.cancel()
        await _close_all(tables, seat_tasks)
    return _report(options, stats, tables, setup_seconds, play_seconds, sampler, server, began, probe)


def first_moves(tables: int, ramp: float) -> list[float]:
    """When each table makes its first move, in seconds after the go: evenly spread over ``ramp``.

    Tables started at one instant would all move at once, second after second, until their random
    think times drift them apart: a wave that a server whose tables opened over time never sees, and
    which measures the wave rather than the server (at 1,000 tables the p99 of the first 8,000 intents
    was 420–518 ms without a ramp, 50–169 ms with one of a second; docs/benchmarks.md).
    """
    return [ramp * i / tables for i in range(tables)]


def _ramp(options: Options) -> float:
    return options.think if options.ramp is None else options.ramp


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


def _pct(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, max(0, round(q * len(values)) - 1))]


def _ms(seconds: list[float], *quantiles: float) -> dict[str, Any]:
    """Count, the given percentiles and the maximum of ``seconds``, in milliseconds."""
    ms = sorted(1000 * x for x in seconds)
    out: dict[str, Any] = {"count": len(ms)}
    out.update({f"p{round(100 * q)}": round(_pct(ms, q), 2) if ms else None for q in quantiles})
    out["max"] = round(ms[-1], 2) if ms else None
    return out


def windows(
    latencies: list[float], completed: list[float], began: float, width: float, sampler: Sampler | None = None
) -> list[dict[str, Any]]:
    """The latencies by ``width``-second window of play (by when each intent was complete): a server
    that keeps up on average may still fall behind for a while, which the whole run's p99 hides.

    With the ``sampler``, each window also says how much CPU the server and the client used in it,
    and the server's CPU per intent completed: the play is the same from window to window, so when
    that figure rises the machine has slowed down, not the code (docs/benchmarks.md, session 11).
    """
    groups: dict[int, list[float]] = {}
    for latency, at in zip(latencies, completed, strict=True):
        groups.setdefault(max(0, int((at - began) // width)), []).append(latency)
    done = sorted(completed)
    out = []
    for k, v in sorted(groups.items()):
        window = {"from_s": round(k * width), **_ms(v, 0.50, 0.99)}
        span = None if sampler is None else sampler.between(began + k * width, began + (k + 1) * width)
        if span is not None:
            first, last, server, client = span
            count = bisect.bisect_right(done, last) - bisect.bisect_right(done, first)
            window["server_cpu_percent"] = round(100 * server / (last - first), 1)
            window["client_cpu_percent"] = round(100 * client / (last - first), 1)
            window["server_cpu_ms_per_intent"] = round(1000 * server / count, 3) if count else None
        out.append(window)
    return out


def _steady_costs(spans: list[dict[str, Any]]) -> list[float]:
    """The server's CPU per intent in the windows of full play: those with at least four fifths of the
    median window's intents, so not the last tables' end, where the tables' closing costs are shared
    by few intents."""
    counts = sorted(w["count"] for w in spans)
    if not counts:
        return []
    enough = 0.8 * counts[len(counts) // 2]
    return [w["server_cpu_ms_per_intent"] for w in spans if w.get("server_cpu_ms_per_intent") and w["count"] >= enough]


def _median(sizes: list[int]) -> int | None:
    return statistics.median_low(sizes) if sizes else None


def _report(
    options: Options,
    stats: Stats,
    tables: list[Table],
    setup_seconds: float,
    play_seconds: float,
    sampler: Sampler,
    server: psutil.Process | None,
    began: float,
    probe: float,
) -> dict[str, Any]:
    seconds = max(play_seconds, 1e-9)
    mb = 1024 * 1024
    client_cpu = sampler.average("client")
    server_cpu = sampler.average("server") if server is not None else 0.0
    helpers_cpu = sampler.helpers_average()
    machine = sampler.machine()
    lags = sorted(sampler.lags)

    def proc(key: str) -> dict[str, Any]:
        rss = sampler.rss[key]
        return {
            "cpu_percent": round(sampler.average(key), 1),
            "cpu_percent_peak": round(sampler.peak[key], 1),
            "rss_mb_end": round(rss[-1] / mb, 1) if rss else None,
            "rss_mb_peak": round(max(rss) / mb, 1) if rss else None,
        }

    return {
        "tables": options.tables,
        "clients": 4 * options.tables,
        "hands_per_table": options.hands,
        "think_seconds": options.think,
        "ramp_seconds": _ramp(options),
        "compression": options.compression or "none",
        "setup_seconds": round(setup_seconds, 2),
        "play_seconds": round(play_seconds, 2),
        "hands_played": stats.hands,
        "tables_finished": sum(t.done.is_set() for t in tables),
        "intents": stats.intents,
        "latency_ms": _ms(stats.latencies, 0.50, 0.95, 0.99),  # intent sent → all four seats updated
        "latency_windows": windows(stats.latencies, stats.completed, began, WINDOW, sampler if server else None),
        "answer_ms": _ms(stats.answers, 0.50, 0.99),  # every intent, sent → its ack
        "frames": {
            "received": stats.frames,
            "per_second": round(stats.frames / seconds, 1),
            "bytes": stats.bytes,
            "bytes_per_second": round(stats.bytes / seconds),
            "wire_bytes_per_second": round(stats.wire / seconds),  # after compression, with frame headers
            "median_frame_bytes": _median(stats.frame_sizes),
            "diff_frames": len(stats.diff_sizes),
            "median_diff_bytes": _median(stats.diff_sizes),
            # each diff's payload as it came over the wire: deflated (with the window of everything the
            # socket got before), without the 2-4 B frame header; the same as above without compression
            "median_diff_wire_bytes": _median(stats.wire_diff_sizes),
            "snapshot_bytes_median": _median(stats.snapshot_sizes),
        },
        # helpers: the server's child processes (the SQLite journal's writer), not in cpu_percent
        "server": None
        if server is None
        else {"pid": server.pid, **proc("server"), "helpers_cpu_percent": round(helpers_cpu, 1)},
        "client": {
            **proc("client"),
            "saturated": client_cpu >= SATURATED,
            "loop_lag_ms_p99": round(1000 * _pct(lags, 0.99), 1) if lags else None,
            "loop_lag_ms_max": round(1000 * lags[-1], 1) if lags else None,
        },
        "machine": {
            "cores": psutil.cpu_count(),
            "cpu_percent": round(machine, 1),  # of one core; every process, this run's included
            "others_cpu_percent": round(max(0.0, machine - client_cpu - server_cpu - helpers_cpu), 1),
            "steal_percent": round(sampler.stolen(), 1),  # of one core: the hypervisor's, for other machines
            "probe_seconds": round(probe, 2),  # `speed_probe` just before play: lower is a faster core
        },
        "errors": {
            "refusals": sum(stats.refusals.values()),
            "refusal_reasons": dict(stats.refusals),
            "disconnects": stats.disconnects,
            "timeouts": stats.timeouts,
            "resyncs": stats.resyncs,
            "connect_failures": stats.connect_failures,
        },
    }


def _print(report: dict[str, Any]) -> None:
    console = Console()
    lat, frames, errors, client = report["latency_ms"], report["frames"], report["errors"], report["client"]
    t = RichTable(title=f"sparrow loadtest: {report['tables']} tables, {report['clients']} sockets", show_header=False)
    t.add_column(style="bold")
    t.add_column(justify="right")
    t.add_row("setup / play", f"{report['setup_seconds']} s / {report['play_seconds']} s")
    t.add_row("hands played", f"{report['hands_played']} ({report['tables_finished']} tables done)")
    t.add_row("intents", f"{report['intents']:,} (think {report['think_seconds']} s, ramp {report['ramp_seconds']} s)")
    t.add_row("latency p50 / p95 / p99 / max", f"{lat['p50']} / {lat['p95']} / {lat['p99']} / {lat['max']} ms")
    p99s = [w["p99"] for w in report["latency_windows"] if w["p99"] is not None]
    if p99s:
        t.add_row(f"p99 per {WINDOW:g} s of play, best / worst", f"{min(p99s)} / {max(p99s)} ms ({len(p99s)} windows)")
    costs = _steady_costs(report["latency_windows"])
    if costs:
        t.add_row(
            "server CPU per intent, windows of full play",
            f"{min(costs)} – {max(costs)} ms (the load is the same: higher is a slower machine)",
        )
    answer = report["answer_ms"]
    t.add_row("latency samples / acks p50, p99", f"{lat['count']:,} / {answer['p50']}, {answer['p99']} ms")
    t.add_row("frames received", f"{frames['received']:,} ({frames['per_second']:,} /s)")
    t.add_row("bytes received", f"{frames['bytes']:,} ({frames['bytes_per_second']:,} B/s)")
    t.add_row(f"on the wire ({report['compression']})", f"{frames['wire_bytes_per_second']:,} B/s")
    t.add_row(
        "median frame / diff / snapshot",
        f"{frames['median_frame_bytes']} / {frames['median_diff_bytes']} / {frames['snapshot_bytes_median']} B",
    )
    t.add_row(f"median diff on the wire ({report['compression']})", f"{frames['median_diff_wire_bytes']} B")
    server = report["server"]
    if server is None:
        t.add_row("server", "PID not found (use --server-pid)")
    else:
        t.add_row("server CPU avg / peak", f"{server['cpu_percent']} % / {server['cpu_percent_peak']} %")
        t.add_row("server RSS end / peak", f"{server['rss_mb_end']} / {server['rss_mb_peak']} MB")
        t.add_row("server's helper processes CPU avg", f"{server['helpers_cpu_percent']} %")
    t.add_row("client CPU avg / peak", f"{client['cpu_percent']} % / {client['cpu_percent_peak']} %")
    t.add_row("client loop lag p99 / max", f"{client['loop_lag_ms_p99']} / {client['loop_lag_ms_max']} ms")
    machine = report["machine"]
    t.add_row(
        f"machine CPU ({machine['cores']} cores)",
        f"{machine['cpu_percent']} % (others {machine['others_cpu_percent']} %, stolen {machine['steal_percent']} %)",
    )
    t.add_row("machine speed probe (lower is faster)", f"{machine['probe_seconds']} s")
    t.add_row("refusals", f"{errors['refusals']} {errors['refusal_reasons'] or ''}")
    t.add_row(
        "disconnects / timeouts / resyncs", f"{errors['disconnects']} / {errors['timeouts']} / {errors['resyncs']}"
    )
    console.print(t)
    if client["saturated"]:
        console.print("[yellow]The client used most of a core: the latency figures include its own queueing.[/yellow]")
