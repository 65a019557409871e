"""PostgreSQL: when the connection dies after COMMIT was sent and before its answer came, the write
may be stored. The journal asks the database before answering, so a stored action is reported as
stored (never "nothing changed"), and the table's next action is accepted (lesson 17)."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest
from dbkit import action_seqs, created_tables, discard_record, fresh_database
from sqlalchemy.engine import make_url

from server.store.journal import SqlJournal
from server.store.migrate import upgrade
from server.store.session import make_engine

pytestmark = pytest.mark.asyncio


class CommitCutter:
    """A TCP proxy to PostgreSQL that, once armed, passes the next commit on and then cuts the
    connection before PostgreSQL's answer can come back. A commit is a COMMIT, or the execution of a
    prepared statement (a Bind message, ``B``): a batch of actions is one statement, autocommitted
    (server/store/pg_records.py), and the journal's other statements run inside a transaction."""

    def __init__(self) -> None:
        self.armed = False
        self.cuts = 0
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", 5432)
        cut = False

        async def upstream() -> None:
            nonlocal cut
            while data := await reader.read(65536):
                if self.armed and (b"COMMIT" in data.upper() or data[:1] == b"B"):
                    self.armed, cut = False, True
                    self.cuts += 1
                up_writer.write(data)
                await up_writer.drain()
                if cut:
                    await asyncio.sleep(0.2)  # PostgreSQL commits; its answer is never relayed
                    writer.transport.abort()
                    up_writer.transport.abort()
                    return

        async def downstream() -> None:
            while data := await up_reader.read(65536):
                if cut or writer.transport.is_closing():
                    return
                writer.write(data)
                await writer.drain()

        tasks = [asyncio.create_task(upstream()), asyncio.create_task(downstream())]
        with contextlib.suppress(Exception):
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in tasks:
            task.cancel()
        writer.transport.abort()
        up_writer.transport.abort()

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()


async def test_an_action_whose_commit_answer_was_lost_is_reported_stored(tmp_path: Path) -> None:
    async with fresh_database("postgresql", tmp_path) as url:
        cutter = CommitCutter()
        port = await cutter.start()
        proxied = make_url(url).set(port=port).render_as_string(hide_password=False)
        engine = make_engine(proxied)
        await upgrade(engine)
        journal = SqlJournal(engine)
        try:
            (table,) = await created_tables(journal, 1)
            await journal.record(discard_record(table, 1))  # (its statement is prepared on the connection)
            cutter.armed = True
            await journal.record(discard_record(table, 2))  # stored, and so reported: no exception
            assert cutter.cuts == 1
            await journal.record(discard_record(table, 3))  # the next action is accepted
            assert (await action_seqs(engine))[table] == [1, 2, 3]
            assert journal.trouble is None
        finally:
            await journal.close()
            await engine.dispose()
            await cutter.close()
