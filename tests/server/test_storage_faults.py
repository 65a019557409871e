"""When the disk fails (lesson 17), on a real filesystem: a SQLite database on a tiny tmpfs is filled,
then freed, and every table, bots and timers included, moves again with nothing lost; a mount that
was read-only and became writable is written again without a restart; /healthz says 503 meanwhile.
Mounting needs root (CI runs as root); elsewhere these tests are skipped with that reason. And a
PostgreSQL database switched read-only and back is written again without a restart."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest
from dbkit import PG_ADMIN, created_tables, discard_record, journal_on
from livekit import LiveServer
from tablekit import Kit

from server.store.journal import SqlJournal
from server.store.migrate import upgrade
from server.store.session import make_engine

pytestmark = pytest.mark.asyncio


@contextlib.contextmanager
def tiny_disk(tmp_path: Path, size: str = "4m") -> Iterator[Path]:
    where = tmp_path / "disk"
    where.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {mounted.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(disk: Path) -> Path:
    """Fill ``disk`` to the last byte; the filler file."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as f:
        for block in (65536, 512, 1):
            with contextlib.suppress(OSError):
                while True:
                    f.write(b"\0" * block)
    return filler


def _as_after_a_crash(database: Path) -> None:
    """Leave the write-ahead log files beside ``database``, as a server killed mid-write does: with
    them, SQLite opens the file read-only on a read-only mount (without them it cannot open it)."""
    keep = sqlite3.connect(database)
    keep.execute("PRAGMA journal_mode=WAL")
    keep.execute("SELECT count(*) FROM games").fetchall()
    saved = {suffix: (database.parent / (database.name + suffix)).read_bytes() for suffix in ("-wal", "-shm")}
    keep.close()  # removes them
    for suffix, data in saved.items():
        (database.parent / (database.name + suffix)).write_bytes(data)


def remount(disk: Path, mode: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{mode}", str(disk)], check=True)


async def test_a_full_disk_stops_nothing_for_good(tmp_path: Path) -> None:
    with tiny_disk(tmp_path) as disk:
        engine = make_engine(f"sqlite+aiosqlite:///{disk / 'club.db'}")
        await upgrade(engine)
        journal = SqlJournal(engine)
        try:
            kit = Kit(journal)
            tables = []
            for seed in range(
                3
            ):  # a bots table (its person away: a substitute plays) and two with a person on the clock
                actor, clients = await kit.table(humans=1, seed=seed, timers={"turn": 3, "claim": 2, "bot_delay": 0.5})
                if seed == 0:
                    clients[0].detach()
                tables.append(actor)
            for _ in range(10):
                for actor in tables:
                    await kit.advance(actor, 1)
            filler = fill(disk)
            before = [actor.game.version for actor in tables]
            for _ in range(8):  # eight seconds of a full disk
                for actor in tables:
                    await kit.advance(actor, 1)
            assert journal.trouble is not None and "full" in journal.trouble
            assert [actor.game.version for actor in tables] == before  # what could not be stored did not happen
            filler.unlink()
            for _ in range(7):  # the longest wait between tries is 5 s
                for actor in tables:
                    await kit.advance(actor, 1)
            assert all(actor.game.version > v for actor, v in zip(tables, before, strict=True))
            assert journal.trouble is None
            for actor in tables:
                stored = await journal.load(actor.id)
                assert stored is not None and stored.actions == [(s, a) for s, a in actor.game.log]
            await kit.lobby.close()
        finally:
            await journal.close()
            await engine.dispose()


async def test_a_mount_that_was_read_only_is_written_once_it_is_writable(tmp_path: Path) -> None:
    with tiny_disk(tmp_path) as disk:
        url = f"sqlite+aiosqlite:///{disk / 'club.db'}"
        engine = make_engine(url)
        await upgrade(engine)
        journal = SqlJournal(engine)
        (table,) = await created_tables(journal, 1)
        await journal.close()
        await engine.dispose()
        _as_after_a_crash(disk / "club.db")
        remount(disk, "ro")
        engine = make_engine(url)
        journal = SqlJournal(engine)  # its writer opens the file while it is read-only
        try:
            with pytest.raises(Exception, match="readonly database"):
                await journal.record(discard_record(table, 1))
            assert journal.trouble is not None
            remount(disk, "rw")
            await journal.record(discard_record(table, 1))  # no restart
            await journal.record(discard_record(table, 2))
            assert journal.trouble is None
            stored = await journal.load(table)
            assert stored is not None and len(stored.actions) == 2
        finally:
            with contextlib.suppress(Exception):
                remount(disk, "rw")
            await journal.close()
            await engine.dispose()


async def test_healthz_reports_storage_trouble(tmp_path: Path) -> None:
    with tiny_disk(tmp_path, "2m") as disk:
        engine = make_engine(f"sqlite+aiosqlite:///{disk / 'club.db'}")
        await upgrade(engine)
        journal = SqlJournal(engine)
        try:
            async with LiveServer.running(journal=journal) as live:
                assert (await live.http.get("/healthz")).status_code == 200
                filler = fill(disk)
                failed = await live.post("/api/tables", {"player": "Ann", "name": "x" * 40})
                assert failed.status_code == 503 and failed.json()["error"]["reason"] == "server/storage"
                health = await live.http.get("/healthz")
                assert health.status_code == 503 and health.json()["ok"] is False
                assert "full" in health.json()["storage"]
                filler.unlink()
                assert (await live.post("/api/tables", {"player": "Ann"})).status_code == 200
                health = await live.http.get("/healthz")
                assert health.status_code == 200 and health.json()["ok"] is True
        finally:
            await journal.close()
            await engine.dispose()


async def test_a_postgresql_database_that_was_read_only_is_written_once_it_is_writable(tmp_path: Path) -> None:
    """PostgreSQL's read-only switch holds for the sessions opened while it is on, even after it is
    turned off: the journal does not write through those connections again."""
    async with journal_on("postgresql", tmp_path) as (journal, engine):
        name = engine.url.database
        admin = await asyncpg.connect(PG_ADMIN)
        try:
            (table,) = await created_tables(journal, 1)
            await admin.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
            await admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", name)
            # A write on the connection the database just dropped (back in the pool under a second ago,
            # so not pinged: server/store/session.py) fails on that first; the next, on a new
            # connection, finds the database read-only.
            refusals: list[str] = []
            while not any("read-only transaction" in said for said in refusals):
                assert len(refusals) < 5, refusals
                with pytest.raises(Exception) as refused:
                    await journal.record(discard_record(table, 1))
                refusals.append(str(refused.value))
                await asyncio.sleep(0.3)
            await journal.load(table)  # reads work, on connections that are read-only too
            await admin.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = off')
            for _ in range(10):  # as a bot tries again: each failed try let one such connection go
                with contextlib.suppress(Exception):
                    await journal.record(discard_record(table, 1))
                    break
            else:
                raise AssertionError("still refused once the database was writable again")
            await journal.record(discard_record(table, 2))
            assert journal.trouble is None
        finally:
            await admin.execute(f'ALTER DATABASE "{name}" RESET default_transaction_read_only')
            await admin.close()
