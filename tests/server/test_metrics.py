"""`sparrow serve --metrics-port`: Prometheus figures on a listener of their own (127.0.0.1), counting
what play did; the public application has no /metrics."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import httpx
import pytest
from livekit import TIMEOUT, LiveClient, within
from processkit import ServerProcess, free_port
from prometheus_client.parser import text_string_to_metric_families
from websockets.asyncio.client import connect

from server import metrics

pytestmark = pytest.mark.asyncio

TIMERS = {"bot_delay": 0, "claim": 120, "turn": 600, "ready": None}


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


async def _scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    async with httpx.AsyncClient(trust_env=False, timeout=TIMEOUT) as http:
        response = await http.get(f"http://127.0.0.1:{port}/metrics")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain")
    return _samples(response.text)


async def test_metrics_count_play_and_refusals_by_reason(tmp_path: Path) -> None:
    metrics_port = free_port()
    server = ServerProcess(f"sqlite+aiosqlite:///{tmp_path / 'club.db'}", free_port(), tmp_path)
    try:
        await server.start("--metrics-port", str(metrics_port))
        assert f"Metrics are served on http://127.0.0.1:{metrics_port}/metrics" in server.log.read_text()
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{server.port}", trust_env=False, timeout=TIMEOUT
        ) as http:
            assert (await http.get("/metrics")).status_code == 404  # never on the public application
            owner = (await http.post("/api/tables", json={"player": "Ann", "timers": TIMERS})).json()
            table, token = owner["table"], owner["token"]
            await http.post(f"/api/tables/{table}/bots", json={"token": token})
            assert (await http.post(f"/api/tables/{table}/start", json={"token": token})).status_code == 200
        ws = await connect(f"ws://127.0.0.1:{server.port}/ws", proxy=None, open_timeout=TIMEOUT)
        client = LiveClient(ws)
        try:
            await client.hello(table, token)
            await client.wait_for(lambda: client.deciding, "Ann's turn", timeout=30)
            played = await client.act(client.legal[0])
            assert played["t"] == "ack", played
            stale = await client.act(client.legal[0] if client.legal else {"type": "pass"}, window=0)
            assert stale["t"] == "refused" and stale["d"]["reason"] == "window/stale", stale

            figures = await _scrape(metrics_port)
            assert figures[("sparrow_intents_total", ())] == 2
            assert figures[("sparrow_refusals_total", (("reason", "window/stale"),))] == 1
            assert figures[("sparrow_journal_commit_seconds_count", ())] > 0  # the table, its seats, Ann's action
            assert figures[("sparrow_table_failures_total", ())] == 0
            assert figures[("process_resident_memory_bytes", ())] > 0
            # Tables and sockets are counted once a second: wait for the count that includes this table.
            async with asyncio.timeout(30):
                while figures.get(("sparrow_tables", (("status", "playing"),))) != 1:
                    await asyncio.sleep(0.2)  # a child process offers nothing to await
                    figures = await _scrape(metrics_port)
            assert figures[("sparrow_sockets", ())] == 1
            assert figures[("sparrow_tables", (("status", "waiting"),))] == 0
            assert 0 <= figures[("sparrow_event_loop_lag_seconds", ())] < 30
        finally:
            await client.close()
    finally:
        server.stop()


async def test_a_busy_metrics_port_stops_the_server(tmp_path: Path) -> None:
    database = tmp_path / "club.db"
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        server = ServerProcess(f"sqlite:///{database}", free_port(), tmp_path)
        assert server.spawn("--metrics-port", str(port)).wait(timeout=within(60)) == 2
    said = server.log.read_text()
    assert f"cannot serve metrics on 127.0.0.1:{port}" in said and "Traceback" not in said, said
    assert not database.exists()


async def test_no_metrics_unless_asked(tmp_path: Path) -> None:
    server = ServerProcess(f"sqlite:///{tmp_path / 'club.db'}", free_port(), tmp_path)
    try:
        await server.start()
        assert "Metrics" not in server.log.read_text()
    finally:
        server.stop()


class _Table:
    def __init__(self, status: str) -> None:
        self.status = status
        self.connections: list[object] = [object()]


class _Lobby:
    def __init__(self, statuses: list[str]) -> None:
        self.tables = {str(n): _Table(status) for n, status in enumerate(statuses)}


async def test_tables_by_status_count_what_is_in_memory_and_drop_to_0_when_tables_leave() -> None:
    def figure(name: str, **labels: str) -> float | None:
        return metrics.REGISTRY.get_sample_value(name, labels)

    async def counted(expected: dict[str, float], sockets: float) -> None:
        def seen() -> dict[str, float | None]:
            return {status: figure("sparrow_tables", status=status) for status in expected}

        try:
            async with asyncio.timeout(30):  # (a bound for a failing test: the watcher counts every 10 ms here)
                while seen() != expected:
                    await asyncio.sleep(0.01)
        except TimeoutError:
            raise AssertionError(f"awaited sparrow_tables {expected}; it says {seen()}") from None
        assert figure("sparrow_sockets") == sockets

    lobby = _Lobby(["adjourned"] * 160 + ["playing"] * 3 + ["closed"])
    watcher = asyncio.create_task(metrics.watch(lambda: lobby, every=0.01))
    try:
        await counted({"adjourned": 160, "playing": 3, "closed": 1, "waiting": 0, "over": 0}, 164)
        lobby.tables.clear()  # every table left memory (/healthz says 0)
        await counted({"adjourned": 0, "playing": 0, "closed": 0, "waiting": 0, "over": 0}, 0)
    finally:
        watcher.cancel()
