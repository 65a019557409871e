"""The load test's report: latency percentiles overall and by window of play, frames and bytes, the
CPU and memory of the server and the client, and errors; as one JSON object or as a table.
"""

from __future__ import annotations

import bisect
import statistics
from typing import TYPE_CHECKING, Any

import psutil  # type: ignore[import-untyped]  # no stubs in the pinned dependencies
from rich.console import Console
from rich.table import Table as RichTable

from server.loadtest.client import Stats, Table
from server.loadtest.cpu import Sampler

if TYPE_CHECKING:
    from server.loadtest.driver import Options

__all__ = ["build_report", "print_report", "ramp_of", "steady_costs", "windows"]

SATURATED = 85.0  # client CPU % (of one core) above which its own latency figures are suspect
WINDOW = 10.0  # seconds of play per latency window in the report


def ramp_of(options: Options) -> float:
    """The seconds over which the tables' first moves are spread: the think time unless given."""
    return options.think if options.ramp is None else options.ramp


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
    that figure rises the machine has slowed down, not the code (docs/benchmarks.md, "Live tables: the
    machine's speed").
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


def steady_costs(spans: list[dict[str, Any]]) -> list[float]:
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


def build_report(
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
        "ramp_seconds": ramp_of(options),
        "compression": options.compression or "none",
        "setup_seconds": round(setup_seconds, 2),
        "play_seconds": round(play_seconds, 2),
        "hands_played": stats.hands,
        "tables_finished": sum(t.done.is_set() for t in tables),
        "intents": stats.intents,
        "latency_ms": _ms(stats.latencies, 0.50, 0.95, 0.99),  # intent sent → all four seats updated
        "latency_windows": windows(stats.latencies, stats.completed, began, WINDOW, sampler if server else None),
        "answer_ms": _ms(stats.answers, 0.50, 0.90, 0.99),  # every intent, sent → its ack
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


def per_process(
    urls: list[str],
    servers: list[psutil.Process | None],
    cpu_used: list[float],
    stats: Stats,
    seconds: float,
    cross: bool,
) -> list[dict[str, Any]]:
    """The figures of each server process: its tables' intents and latency, and its CPU."""
    figures = []
    for i, (url, proc, cpu) in enumerate(zip(urls, servers, cpu_used, strict=True)):
        intents = stats.process_intents[i]
        figures.append(
            {
                "url": url,
                "pid": None if proc is None else proc.pid,
                "sockets_from": urls[(i - cross) % len(urls)] if cross else url,
                "intents": intents,
                "intents_per_second": round(intents / max(seconds, 1e-9), 1),
                "latency_ms": _ms(stats.process_latencies.get(i, []), 0.50, 0.99),
                "cpu_percent": None if proc is None else round(100 * cpu / max(seconds, 1e-9), 1),
                "cpu_ms_per_intent": None if proc is None or not intents else round(1000 * cpu / intents, 2),
            }
        )
    return figures


def print_report(report: dict[str, Any]) -> None:
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
    costs = steady_costs(report["latency_windows"])
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
    if server is None and "processes" in report:
        t.add_row("server", "several processes: see the table below")
    elif server is None:
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
    if "processes" in report:
        each = RichTable(title="each server process (its tables' intents; CPU with its journal writer)")
        for column in ("process", "intents/s", "p50 / p99 ms", "CPU %", "CPU ms / intent"):
            each.add_column(column, justify="right")
        for proc in report["processes"]:
            lat = proc["latency_ms"]
            each.add_row(
                proc["url"],
                f"{proc['intents_per_second']:,}",
                f"{lat['p50']} / {lat['p99']}",
                "?" if proc["cpu_percent"] is None else f"{proc['cpu_percent']}",
                "?" if proc["cpu_ms_per_intent"] is None else f"{proc['cpu_ms_per_intent']}",
            )
        console.print(each)
    if client["saturated"]:
        console.print("[yellow]The client used most of a core: the latency figures include its own queueing.[/yellow]")
