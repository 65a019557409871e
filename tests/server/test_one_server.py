"""One server per database, and a port that is checked before anything else (lesson 18): a second
`sparrow serve` on the same database, or on a busy port, exits with status 2 and a plain message,
without touching a table; after a kill -9 the next server starts at once."""

from __future__ import annotations

import asyncio
import signal
import socket
import time
from pathlib import Path

import asyncpg
import httpx
import psutil  # type: ignore[import-untyped]
import pytest
from dbkit import BACKENDS, fresh_database
from livekit import TIMEOUT, within
from processkit import ServerProcess, free_port

from server.store.lock import ADVISORY_KEY

pytestmark = pytest.mark.asyncio

TIMERS = {"bot_delay": 0, "claim": 120, "turn": 600, "ready": None}


async def _one_table(server: ServerProcess) -> str:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", trust_env=False, timeout=TIMEOUT) as http:
        owner = (await http.post("/api/tables", json={"player": "Ann", "timers": TIMERS})).json()
        await http.post(f"/api/tables/{owner['table']}/bots", json={"token": owner["token"]})
        assert (
            await http.post(f"/api/tables/{owner['table']}/start", json={"token": owner["token"]})
        ).status_code == 200
        return str(owner["table"])


async def _status(server: ServerProcess, table: str) -> str:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", trust_env=False, timeout=TIMEOUT) as http:
        return str((await http.get(f"/api/tables/{table}")).json()["status"])


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_second_server_on_the_same_database_refuses_to_start(backend: str, tmp_path: Path) -> None:
    async with fresh_database(backend, tmp_path) as url:
        first = ServerProcess(url, free_port(), tmp_path, log="first.log")
        second = ServerProcess(url, free_port(), tmp_path, log="second.log")
        try:
            await first.start()
            table = await _one_table(first)
            assert second.spawn().wait(timeout=within(60)) == 2
            said = second.log.read_text()
            assert "another Sparrow server" in said and "is using the database" in said, said
            assert "restored" not in said and "Traceback" not in said
            assert await _status(first, table) == "playing"  # the first is unharmed and still serving
            # Once the first is killed outright, the lock goes with it: a new server starts at once.
            first.signal(signal.SIGKILL)
            await second.start()
            assert await _status(second, table) == "playing"
        finally:
            first.stop()
            second.stop()


async def test_a_busy_port_stops_the_server_before_it_touches_the_database(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        database = tmp_path / "club.db"
        server = ServerProcess(f"sqlite:///{database}", port, tmp_path)
        assert server.spawn().wait(timeout=within(60)) == 2
    said = server.log.read_text()
    assert f"cannot listen on 127.0.0.1:{port}" in said and "Traceback" not in said, said
    assert not database.exists()  # no migration, no restore: nothing was touched


async def test_a_bad_public_url_or_database_url_is_refused(tmp_path: Path) -> None:
    for extra, expected in (
        (["--public-url", "club.example"], "is not an origin"),
        (["--allow-origin", "ftp://club.example"], "is not an origin"),
    ):
        server = ServerProcess(f"sqlite:///{tmp_path / 'x.db'}", free_port(), tmp_path)
        assert server.spawn(*extra).wait(timeout=within(60)) == 2
        assert expected in server.log.read_text()
    bad = ServerProcess(str(tmp_path / "x.db"), free_port(), tmp_path, log="bad.log")
    assert bad.spawn().wait(timeout=within(60)) == 2
    assert "is not a database URL" in bad.log.read_text()


async def test_the_journal_writer_process_does_not_hold_the_port(tmp_path: Path) -> None:
    server = ServerProcess(f"sqlite:///{tmp_path / 'club.db'}", free_port(), tmp_path)
    try:
        await server.start()
        await _one_table(server)  # the first write starts the writer process
        assert server.proc is not None
        children = psutil.Process(server.proc.pid).children(recursive=True)
        assert children, "no writer process"
        for child in children:
            held = [c for c in child.net_connections("tcp") if c.laddr and c.laddr.port == server.port]
            assert not held, f"{child.cmdline()} holds port {server.port}"
    finally:
        server.stop()


async def test_a_dropped_lock_connection_is_taken_again_and_a_server_that_lost_its_database_stops(
    tmp_path: Path,
) -> None:
    """PostgreSQL lets the lock go when its connection drops (a restart, the network): the server takes
    it again, so a second server is still refused; if another takes the database first, it stops."""
    async with fresh_database("postgresql", tmp_path) as url:
        first = ServerProcess(url, free_port(), tmp_path, log="first.log")
        admin = await asyncpg.connect(url.replace("+asyncpg", ""))
        holders = (
            "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = "
            "(SELECT oid FROM pg_database WHERE datname = current_database())"
        )
        try:
            await first.start()
            table = await _one_table(first)
            dropped = await admin.fetchval(holders)
            assert dropped is not None
            await admin.execute("SELECT pg_terminate_backend($1)", dropped)
            deadline = time.monotonic() + within(20)
            while (await admin.fetchval(holders)) in (None, dropped):  # taken again, on a new connection
                assert time.monotonic() < deadline, first.log.read_text()
                await asyncio.sleep(0.2)
            second = ServerProcess(url, free_port(), tmp_path, log="second.log")
            assert second.spawn().wait(timeout=within(60)) == 2  # still refused
            assert await _status(first, table) == "playing"

            for _ in range(5):  # drop it again, and take the database first (as another server would)
                await admin.execute("SELECT pg_terminate_backend($1)", await admin.fetchval(holders))
                if await _grab(admin):
                    break
            else:
                raise AssertionError("the server always took the lock back first")
            assert first.proc is not None and await asyncio.to_thread(first.proc.wait, 20) == 1
            said = first.log.read_text()
            assert "took the database" in said and "this server stops" in said, said
            assert "Traceback" not in said, said
        finally:
            first.stop()
            await admin.close()


async def _grab(admin: asyncpg.Connection) -> bool:
    """Take the server lock on ``admin``'s database within a second of its holder's end."""
    deadline = time.monotonic() + within(1)
    while time.monotonic() < deadline:
        if await admin.fetchval("SELECT pg_try_advisory_lock($1)", ADVISORY_KEY):
            return True
        await asyncio.sleep(0.005)
    return False
