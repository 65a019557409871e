"""``sparrow loadtest`` against a live in-process server: two tables play one hand as fast as allowed,
and the report counts what happened. No timing thresholds: this machine is shared. And the client's own
in-place patch agrees with ``server.statediff.patch``.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import psutil  # type: ignore[import-untyped]
import pytest
import uvicorn
from livekit import within

from server.app import create_app
from server.cli import build_parser
from server.club.club import OPEN_CLUB
from server.loadtest.cpu import Sampler
from server.loadtest.driver import Options, first_moves, loadtest
from server.loadtest.report import steady_costs, windows
from server.wire import UVICORN_OPTIONS


@pytest.mark.asyncio
async def test_loadtest_plays_two_tables_and_reports_sane_figures(tmp_path: Path) -> None:
    # A database of its own: the default one (./data) is the one `make run` serves.
    app = create_app(db=f"sqlite+aiosqlite:///{tmp_path / 'load.db'}", club=OPEN_CLUB)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on", **UVICORN_OPTIONS)
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    try:
        while not server.started:
            assert not serving.done(), "the server did not start"
            await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        options = Options(url=f"ws://127.0.0.1:{port}/ws", tables=2, hands=1, think=0, server_pid=os.getpid())
        report = await asyncio.wait_for(loadtest(options), within(60))
    finally:
        server.should_exit = True
        await serving

    assert report["tables_finished"] == 2 and report["hands_played"] == 2
    assert report["ramp_seconds"] == 0  # think 0: no ramp unless asked for
    spans = report["latency_windows"]  # the same latencies, by 10 s of play
    assert spans and sum(w["count"] for w in spans) == report["latency_ms"]["count"]
    assert all(w["p50"] <= w["p99"] <= w["max"] <= report["latency_ms"]["max"] for w in spans)
    latency, frames, errors = report["latency_ms"], report["frames"], report["errors"]
    assert latency["count"] > 0 and 0 < latency["p50"] <= latency["p99"] <= latency["max"]
    assert report["intents"] >= latency["count"] and report["answer_ms"]["count"] > 0
    assert frames["received"] > 0 and frames["diff_frames"] > 0 and frames["bytes"] > 0
    assert 0 < frames["median_diff_bytes"] < frames["snapshot_bytes_median"]
    assert 0 < frames["median_diff_wire_bytes"] < frames["median_diff_bytes"]  # deflated
    assert report["server"]["pid"] == os.getpid() and report["client"]["cpu_percent"] >= 0
    machine = report["machine"]  # how fast this machine's cores were, for comparing runs
    assert machine["probe_seconds"] > 0 and machine["steal_percent"] >= 0
    assert errors["disconnects"] == 0 and errors["timeouts"] == 0 and errors["resyncs"] == 0


def test_loadtest_command_line() -> None:
    args = build_parser().parse_args(["loadtest", "--tables", "3", "--hands", "2", "--think", "0.5", "--json"])
    assert (args.tables, args.hands, args.think, args.json) == (3, 2, 0.5, True)
    assert args.url is None  # ws://127.0.0.1:8765/ws
    several = build_parser().parse_args(["loadtest", "--url", "ws://a:1/ws", "--url", "ws://b:2/ws", "--cross"])
    assert (several.url, several.cross) == (["ws://a:1/ws", "ws://b:2/ws"], True)
    assert args.ramp is None  # the think time
    assert build_parser().parse_args(["loadtest", "--ramp", "5"]).ramp == 5


def test_the_tables_first_moves_are_spread_evenly_over_the_ramp() -> None:
    # All tables moving at once measured the wave, not the server.
    assert first_moves(4, 1.0) == [0.0, 0.25, 0.5, 0.75]
    assert first_moves(3, 0.0) == [0.0, 0.0, 0.0]
    starts = first_moves(1000, 2.0)
    assert starts[0] == 0 and max(starts) < 2.0
    assert max(b - a for a, b in zip(starts, starts[1:], strict=False)) <= 2.0 / 1000 + 1e-12


def test_latencies_are_grouped_by_window_of_play_when_complete() -> None:
    # A server that keeps up on average may fall behind for a while: the windows show when.
    latencies = [0.010, 0.020, 0.300, 0.005]
    completed = [100.5, 104.0, 115.0, 131.0]  # seconds (perf_counter); play began at 100
    spans = windows(latencies, completed, 100.0, 10.0)
    assert [(w["from_s"], w["count"], w["max"]) for w in spans] == [(0, 2, 20.0), (10, 1, 300.0), (30, 1, 5.0)]


def test_each_window_says_what_the_server_spent_per_intent_in_it() -> None:
    # The same play cost more CPU while the machine was slow: the windows show which stretch it was.
    sampler = Sampler(None, psutil.Process())
    cpu = 0.0
    sampler.timeline = []
    for second in range(31):  # one sample a second from t=100; 0.6 s of CPU a second, then 0.9
        sampler.timeline.append((100.0 + second, cpu, 0.5 * second))
        cpu += 0.6 if second < 10 else 0.9
    completed = [100.5 + i for i in range(20)] + [120.5, 121.5, 122.5]  # one intent a second, then the end
    spans = windows([0.01] * len(completed), completed, 100.0, 10.0, sampler)
    assert [w["server_cpu_percent"] for w in spans] == [60.0, 90.0, 90.0]
    assert [w["client_cpu_percent"] for w in spans] == [50.0, 50.0, 50.0]
    assert [w["server_cpu_ms_per_intent"] for w in spans] == [600.0, 900.0, 3000.0]
    assert steady_costs(spans) == [600.0, 900.0]  # the last tables' end is not full play
    # Without samples (no server to watch) a window says nothing about CPU.
    assert "server_cpu_percent" not in windows([0.01], [100.5], 100.0, 10.0)[0]
