"""Structured logs (`sparrow serve --log-format json`): one JSON object per line, and every line a
table logs names the table and the seat it concerns."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import httpx
import pytest
from dbkit import PG_ADMIN, journal_on
from livekit import TIMEOUT
from processkit import ServerProcess, free_port
from tablekit import Kit

from server.lobby import Lobby
from server.logs import JsonFormatter
from server.tables.errors import TableError
from server.tables.journal import MemoryJournal, Record, StoredTable


@dataclass
class FullDisk(MemoryJournal):
    """A memory journal whose action writes fail while ``failing``."""

    failing: bool = False

    async def record(self, record: Record) -> None:
        if self.failing:
            raise OSError(28, "No space left on device")
        await super().record(record)


@pytest.fixture
def json_lines() -> Iterator[io.StringIO]:
    """What the server's loggers write meanwhile, in the JSON format."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("sparrow")
    logger.addHandler(handler)
    try:
        yield stream
    finally:
        logger.removeHandler(handler)


@pytest.mark.asyncio
async def test_a_table_line_names_the_table_and_the_seat(json_lines: io.StringIO) -> None:
    journal = FullDisk()
    kit = Kit(journal)
    actor, clients = await kit.table(humans=4)
    mover = next(c for c in clients if c.legal)
    seat = mover.state["seat"]
    journal.failing = True
    request = mover.act(mover.legal[0])
    await kit.settle(actor)
    mover.pump()
    assert mover.answers[request]["d"]["reason"] == "server/storage"
    lines = [json.loads(line) for line in json_lines.getvalue().splitlines()]
    failed = [line for line in lines if "could not write to storage" in line["message"]]
    assert len(failed) == 1, lines
    line = failed[0]
    assert line["table"] == actor.id and line["seat"] == seat
    assert line["level"] == "ERROR" and line["logger"] == "sparrow.table"
    assert "No space left on device" in line["exception"] and line["time"].endswith("+00:00")
    await kit.lobby.close()


@dataclass
class Refusing(MemoryJournal):
    """A memory journal that cannot store a new table."""

    async def table_created(self, table: StoredTable) -> None:
        raise OSError(28, "No space left on device")


@pytest.mark.asyncio
async def test_the_lobbys_lines_about_a_table_name_it(json_lines: io.StringIO) -> None:
    # a table that cannot be stored
    refusing = Kit(Refusing())
    with pytest.raises(TableError):
        await refusing.lobby.create({"name": "Test table", "player": "Ann"})
    # a table whose stored log does not replay: the first discard made by a seat whose turn it is not
    kit = Kit()
    actor, _ = await kit.table(humans=4)
    await kit.lobby.close()
    stored = kit.journal.tables[actor.id]
    assert actor.game is not None and stored.status == "playing"
    idle = next(seat for seat in range(4) if seat not in actor.game.to_act())
    stored.actions.append((idle, {"type": "discard", "tile": "1b"}))
    assert await Lobby(clock=kit.clock, journal=kit.journal).restore() == 0
    lines = [json.loads(line) for line in json_lines.getvalue().splitlines()]
    unstored = next(line for line in lines if "could not store the new table" in line["message"])
    assert unstored["logger"] == "sparrow.lobby" and unstored["table"] in unstored["message"]
    assert unstored["seat"] is None and "No space left on device" in unstored["exception"]
    unrebuilt = next(line for line in lines if "could not be rebuilt" in line["message"])
    assert unrebuilt["table"] == actor.id and unrebuilt["seat"] is None and unrebuilt["level"] == "ERROR"


def test_a_line_about_no_table_has_no_table() -> None:
    record = logging.LogRecord("sparrow.store", logging.WARNING, __file__, 1, "retrying %d writes", (3,), None)
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "retrying 3 writes" and line["level"] == "WARNING" and "table" not in line


@pytest.mark.asyncio
async def test_serve_writes_json_lines(tmp_path: Path) -> None:
    server = ServerProcess(f"sqlite+aiosqlite:///{tmp_path / 'club.db'}", free_port(), tmp_path)
    try:
        await server.start("--log-format", "json")
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{server.port}", trust_env=False, timeout=TIMEOUT
        ) as http:
            timers = {"grace": 0, "turn": 600, "ready": None}  # nobody connects: it pauses at once
            owner = (await http.post("/api/tables", json={"player": "Ann", "timers": timers})).json()
            await http.post(f"/api/tables/{owner['table']}/bots", json={"token": owner["token"]})
            assert (
                await http.post(f"/api/tables/{owner['table']}/start", json={"token": owner["token"]})
            ).status_code == 200
        async with asyncio.timeout(30):
            while "paused" not in server.log.read_text():
                await asyncio.sleep(0.1)  # a child process offers nothing to await
    finally:
        server.stop()
    # stdout (in the same file here) keeps its lines for a person; every log line is JSON
    said = server.log.read_text().splitlines()
    assert not [line for line in said if re.match(r"\d{4}-\d\d-\d\d ", line)]  # no line in the text format
    lines = [json.loads(line) for line in said if line.startswith("{")]
    assert all({"time", "level", "logger", "message"} <= line.keys() for line in lines)
    assert any(line["logger"] == "sparrow.app" and line["message"].startswith("restored 0") for line in lines)
    paused = next(line for line in lines if "paused" in line["message"])
    assert paused["table"] == owner["table"] and paused["seat"] is None and paused["level"] == "INFO"


@pytest.mark.asyncio
async def test_a_database_that_cannot_write_is_logged_once_not_per_table_and_try(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """PostgreSQL taking no connections for 20 s under three tables whose bots and timers try again
    and again: one error says so, and one line says when it writes again (it was a traceback per
    table and try, from the table and from the writer)."""
    async with journal_on("postgresql", tmp_path) as (journal, engine):
        name = engine.url.database
        admin = await asyncpg.connect(PG_ADMIN)
        try:
            kit = Kit(journal)
            tables = []
            for seed in range(3):
                actor, clients = await kit.table(humans=1, seed=seed, timers={"turn": 3, "claim": 2, "bot_delay": 0.5})
                tables.append(actor)
            await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
            await admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", name)
            before = [actor.game.version for actor in tables]
            with caplog.at_level(logging.DEBUG, logger="sparrow"):
                for _ in range(20):
                    for actor in tables:
                        await kit.advance(actor, 1)
                assert journal.trouble is not None
                await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
                for _ in range(7):  # the longest wait between tries is 5 s
                    for actor in tables:
                        await kit.advance(actor, 1)
            assert all(actor.game.version > v for actor, v in zip(tables, before, strict=True))
            loud = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
            assert len(loud) == 1 and not loud[0].exc_info, loud  # one line, no traceback
            said = loud[0].getMessage()
            assert said.startswith("the database cannot write (") and said.endswith("writes are refused until it can")
            assert [r.getMessage() for r in caplog.records].count("the database writes again") == 1
            await kit.lobby.close()
        finally:
            await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
            await admin.close()
