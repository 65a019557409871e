"""The SQLite journal's writer process (server/store/writer_child.py): what becomes of the writes when
it fails, dies, is interrupted or is left behind. (test_journal_batch.py covers what it writes, on
SQLite and PostgreSQL alike.)
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from dbkit import DISCARD, action_seqs, created_tables, discard_record, journal_on
from livekit import within
from sqlalchemy import Connection, select
from sqlalchemy.exc import OperationalError

from server.store import journal as sql_journal
from server.store.journal import SqlJournal
from server.store.models import ChatRow
from server.store.session import make_engine, make_sessions, sqlite_file_engine
from server.store.writer import GroupWriter, WriterError
from server.store.writer_child import commit
from server.tables.journal import Record


def writer_pid(journal: SqlJournal) -> int:
    """The id of the journal's running writer process (it starts with the first write)."""
    pid = journal.writer.process_id
    assert pid is not None
    return pid


async def _ended(pid: int) -> bool:
    """Whether process ``pid`` is gone (or a zombie nobody has reaped yet), waiting up to 10 s."""
    for _ in range(200):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        await asyncio.sleep(0.05)
    return False


@pytest.mark.asyncio
async def test_the_writes_go_through_a_process_of_their_own(tmp_path: Path) -> None:
    async with journal_on("sqlite", tmp_path) as (journal, engine):
        assert journal.writer.process_id is None  # it starts with the first write
        (table,) = await created_tables(journal, 1)
        pid = journal.writer.process_id
        assert pid is not None and pid != os.getpid()
        await journal.record(discard_record(table, 1))
        assert journal.writer.process_id == pid  # one process for as long as the journal is open
        await journal.close()
        assert journal.writer.process_id is None
        assert await _ended(pid)
        assert await action_seqs(engine) == {table: [1]}


@pytest.mark.asyncio
async def test_the_writes_a_killed_writer_held_are_made_by_the_next_one(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with journal_on("sqlite", tmp_path) as (journal, engine):
        ids = await created_tables(journal, 5)
        pid = writer_pid(journal)
        os.kill(pid, signal.SIGSTOP)  # the writes reach its pipe but are never answered
        with caplog.at_level(logging.WARNING, logger="sparrow.store"):
            writes = [asyncio.ensure_future(journal.record(discard_record(t, 1))) for t in ids]
            await asyncio.sleep(0.05)
            os.kill(pid, signal.SIGKILL)
            results = await asyncio.gather(*writes, return_exceptions=True)
        assert results == [None] * 5
        assert "exited with status -9" in caplog.text
        assert "5 write(s) it had not answered go to a new writer" in caplog.text
        assert journal.writer.process_id not in (None, pid)
        assert await action_seqs(engine) == {t: [1] for t in ids}
        await journal.record(discard_record(ids[0], 2))  # and the table goes on
        assert (await action_seqs(engine))[ids[0]] == [1, 2]


@pytest.mark.asyncio
async def test_a_write_committed_by_a_writer_that_died_before_answering_is_not_made_twice(tmp_path: Path) -> None:
    """The writer committed a batch and was killed before it could answer: the next writer finds
    those writes stored and answers them done, rather than failing them as duplicates (which would
    leave the table refusing every later action). Here the test commits the row itself, as the dead
    writer would have."""
    async with journal_on("sqlite", tmp_path) as (journal, engine):
        ids = await created_tables(journal, 2)
        pid = writer_pid(journal)
        os.kill(pid, signal.SIGSTOP)
        stored, unstored = (asyncio.ensure_future(journal.record(discard_record(t, 1))) for t in ids)
        chat = asyncio.ensure_future(journal.chat(ids[0], {"seat": 1, "name": "Ann", "text": "hi", "at": 9_000}))
        await asyncio.sleep(0.05)
        plain = sqlite3.connect(tmp_path / "sparrow.db")
        with plain:
            plain.execute(
                "INSERT INTO actions (game_id, seq, seat, action, events, at) VALUES (?, 1, 1, ?, '[]', ?)",
                (ids[0], json.dumps(DISCARD), "1970-01-01 00:33:21.000000"),
            )
            plain.execute(
                "INSERT INTO chat (game_id, seat, name, text, at) VALUES (?, 1, 'Ann', 'hi', ?)",
                (ids[0], "1970-01-01 00:00:09.000000"),
            )
        plain.close()
        os.kill(pid, signal.SIGKILL)
        assert await asyncio.gather(stored, unstored, chat) == [None, None, None]
        assert await action_seqs(engine) == {ids[0]: [1], ids[1]: [1]}
        async with make_sessions(engine)() as session:
            assert len((await session.scalars(select(ChatRow))).all()) == 1


def poisoned_write(connection: Connection, writes: Sequence[object]) -> None:
    """The journal's write function, except that action 666 kills the process writing it."""
    if any(isinstance(w, Record) and w.version == 666 for w in writes):
        os._exit(3)
    sql_journal._write(connection, writes)  # type: ignore[arg-type]


@pytest.mark.asyncio
async def test_a_write_that_kills_two_writers_fails_and_the_next_write_is_made(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with journal_on("sqlite", tmp_path) as (journal, engine):
        (table,) = await created_tables(journal, 1)
        await journal.close()
        writer: GroupWriter[object] = GroupWriter(engine, poisoned_write, landed=sql_journal._landed)
        journal.writer = writer  # type: ignore[assignment]
        with caplog.at_level(logging.ERROR, logger="sparrow.store"):
            with pytest.raises(WriterError, match="stopped before this was written"):
                await journal.record(discard_record(table, 666))
        assert caplog.text.count("exited with status 3") == 2
        assert "the journal's writer stopped; 1 write(s) failed" in caplog.text
        await journal.record(discard_record(table, 1))
        await writer.close()
        assert await action_seqs(engine) == {table: [1]}


@pytest.mark.asyncio
async def test_a_writer_that_died_while_idle_is_replaced_by_the_next_write(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with journal_on("sqlite", tmp_path) as (journal, engine):
        (table,) = await created_tables(journal, 1)
        pid = writer_pid(journal)
        with caplog.at_level(logging.ERROR, logger="sparrow.store"):
            os.kill(pid, signal.SIGKILL)
            assert await _ended(pid)
            async with asyncio.timeout(within(10)):  # the server notices it is gone (nothing to await)
                while "exited with status -9" not in caplog.text:
                    await asyncio.sleep(0.05)
        await journal.record(discard_record(table, 1))
        assert await action_seqs(engine) == {table: [1]}


@pytest.mark.asyncio
async def test_ctrl_c_is_for_the_server_not_its_writer(tmp_path: Path) -> None:
    """Ctrl+C in a terminal reaches every process of its group; the writer goes on until the server
    closes the journal, so the server's last writes are still made."""
    async with journal_on("sqlite", tmp_path) as (journal, engine):
        (table,) = await created_tables(journal, 1)
        pid = writer_pid(journal)
        os.kill(pid, signal.SIGINT)
        await asyncio.sleep(0.1)
        await journal.record(discard_record(table, 1))
        assert journal.writer.process_id == pid
        assert await action_seqs(engine) == {table: [1]}


def chatty_write(connection: Connection, writes: Sequence[object]) -> None:
    """The journal's own write function, printing as it goes (a stray debugging print)."""
    print("writing", len(writes), "write(s)")
    sql_journal._write(connection, writes)  # type: ignore[arg-type]


@pytest.mark.asyncio
async def test_what_a_write_function_prints_does_not_disturb_the_writer(tmp_path: Path) -> None:
    async with journal_on("sqlite", tmp_path) as (journal, engine):
        (table,) = await created_tables(journal, 1)
        await journal.close()
        writer: GroupWriter[object] = GroupWriter(engine, chatty_write)
        journal.writer = writer  # type: ignore[assignment]
        await asyncio.gather(*(journal.record(discard_record(table, seq)) for seq in range(1, 4)))
        await journal.chat(table, {"seat": 1, "name": "Ann", "text": "hello", "at": 5_000})
        await writer.close()
        assert await action_seqs(engine) == {table: [1, 2, 3]}
        async with make_sessions(engine)() as session:
            assert len((await session.scalars(select(ChatRow))).all()) == 1


def test_the_write_function_must_be_importable_by_the_process(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path / 'sparrow.db'}")

    def local(connection: Connection, writes: Sequence[object]) -> None: ...

    with pytest.raises(ValueError, match="imports its write function by name"):
        GroupWriter(engine, local)


def test_when_the_database_cannot_write_a_batch_is_not_retried_write_by_write(tmp_path: Path) -> None:
    """What the process does with a batch (its `commit`), run here: a failure of the database fails
    the batch's remaining writes with it, after one of them has been tried alone."""
    engine = sqlite_file_engine(f"sqlite:///{tmp_path / 'plain.db'}")
    attempts: list[int] = []

    def locked(connection: Connection, writes: Sequence[object]) -> None:
        attempts.append(len(writes))
        raise OperationalError("INSERT INTO actions …", {}, Exception("database is locked"))

    def duplicate_then_fine(connection: Connection, writes: Sequence[object]) -> None:
        attempts.append(len(writes))
        if len(writes) > 1 or writes[0] == "bad":
            raise ValueError("a write of its own that fails")

    try:
        with engine.connect() as connection:
            outcome = commit(engine, connection, locked, ["a", "b", "c", "d", "e", "f"])
        assert attempts == [6, 1]
        assert sorted(outcome.failed) == [0, 1, 2, 3, 4, 5]
        assert all(isinstance(e, OperationalError) for e in outcome.failed.values())
        assert (outcome.count, outcome.commits, outcome.untried) == (6, 0, 5)
        assert outcome.retried is not None and "database is locked" in outcome.retried

        attempts.clear()
        with engine.connect() as connection:
            outcome = commit(engine, connection, duplicate_then_fine, ["a", "bad", "c"])
        assert attempts == [3, 1, 1, 1]  # a write's own failure: the others are still tried, and land
        assert list(outcome.failed) == [1] and isinstance(outcome.failed[1], ValueError)
        assert (outcome.commits, outcome.untried) == (2, 0)
    finally:
        engine.dispose()


def test_the_writer_ends_when_the_server_dies(tmp_path: Path) -> None:
    """A server killed outright leaves no writer behind: the writer sees its pipe end and stops."""
    database = tmp_path / "died.db"
    script = textwrap.dedent(
        f"""
        import asyncio, os
        from game.rulesets import ruleset
        from server.store.journal import SqlJournal
        from server.store.migrate import upgrade
        from server.store.session import make_engine
        from server.tables.journal import StoredTable
        from server.tables.settings import TableSettings, Timers

        async def main():
            engine = make_engine("sqlite+aiosqlite:///{database}")
            await upgrade(engine)
            journal = SqlJournal(engine)
            settings = TableSettings("Died", ruleset("classical"), Timers(), True)
            await journal.table_created(StoredTable("d1", settings, 1, 1000.0))
            print(journal.writer.process_id, flush=True)
            os._exit(0)

        asyncio.run(main())
        """
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=root, timeout=within(60))
    assert done.returncode == 0, done.stderr
    pid = int(done.stdout.split()[-1])
    deadline = time.monotonic() + within(10)
    while time.monotonic() < deadline:
        if not Path(f"/proc/{pid}").exists():
            break
        with contextlib.suppress(FileNotFoundError):
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
        pytest.fail(f"the writer process {pid} outlived its server")


@pytest.mark.asyncio
async def test_writes_made_together_go_together_and_one_that_cannot_be_sent_fails_alone(tmp_path: Path) -> None:
    async with journal_on("sqlite", tmp_path) as (journal, engine):
        tables = await created_tables(journal, 3)
        records = [discard_record(table, 1) for table in tables]
        records[1] = dataclasses.replace(records[1], events=[{"type": "note", "why": lambda: None}])  # no pickle
        results = await asyncio.gather(*(journal.record(r) for r in records), return_exceptions=True)
        assert results[0] is None and results[2] is None
        assert isinstance(results[1], WriterError) and "cannot be written" in str(results[1])
        assert await action_seqs(engine) == {tables[0]: [1], tables[2]: [1]}
        commits = journal.writer.commits
        await asyncio.gather(*(journal.record(discard_record(t, 2)) for t in tables))
        assert journal.writer.commits == commits + 1  # submitted in one turn: one frame, one batch, one commit
        assert await action_seqs(engine) == {tables[0]: [1, 2], tables[1]: [2], tables[2]: [1, 2]}


@pytest.mark.parametrize("how", ["deleted", "replaced"])
@pytest.mark.asyncio
async def test_a_database_file_removed_or_replaced_under_the_writer_is_not_written(how: str, tmp_path: Path) -> None:
    """The writer's open connection would go on writing to the file it opened, which nothing reads
    again: every write after would be acknowledged and then lost. They are refused instead."""
    async with journal_on("sqlite", tmp_path) as (journal, engine):
        (table,) = await created_tables(journal, 1)
        await journal.record(discard_record(table, 1))
        database = Path(str(engine.url.database))
        kept = tmp_path / "kept.db"
        shutil.copy(database, kept)  # (its last commit may still be in the -wal file: not needed here)
        if how == "deleted":
            for suffix in ("", "-wal", "-shm"):
                Path(f"{database}{suffix}").unlink(missing_ok=True)
        else:
            os.replace(kept, database)
        with pytest.raises(OSError, match="removed or replaced"):
            await journal.record(discard_record(table, 2))
        assert journal.trouble is not None and "removed or replaced" in journal.trouble
