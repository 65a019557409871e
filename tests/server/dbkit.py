"""Fresh databases for storage tests: a SQLite file, or a new PostgreSQL database on 127.0.0.1:5432
(skipped with a reason when no PostgreSQL answers there; CI always has one); Redis for the tests of
several processes (`redis_or_skip`); and what the journal tests write and read back.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest
import redis.asyncio as aioredis
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from game.rulesets import ruleset
from server.store.journal import SqlJournal
from server.store.migrate import upgrade
from server.store.models import ActionRow
from server.store.session import make_engine, make_sessions
from server.tables.journal import Record, SeatRecord, StoredTable
from server.tables.settings import TableSettings, Timers

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
BACKENDS = ["sqlite", "postgresql"]
REDIS = "redis://127.0.0.1:6379/0"


async def redis_or_skip() -> None:
    """Skip the test, saying why, unless Redis answers at `REDIS` (CI always has one)."""
    client = aioredis.from_url(REDIS)
    try:
        await client.ping()
    except Exception as exc:
        pytest.skip(f"Redis is not reachable at 127.0.0.1:6379 ({type(exc).__name__}: {exc})")
    finally:
        await client.aclose()


async def _admin() -> asyncpg.Connection:
    try:
        return await asyncpg.connect(PG_ADMIN, timeout=3)
    except (OSError, asyncpg.PostgresError) as exc:
        pytest.skip(f"PostgreSQL is not reachable at 127.0.0.1:5432 ({exc.__class__.__name__}: {exc})")


@contextlib.asynccontextmanager
async def fresh_database(backend: str, tmp_path: Path) -> AsyncIterator[str]:
    """The URL of an empty database of ``backend``, dropped afterwards."""
    if backend == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'sparrow.db'}"
        return
    name = f"sparrow_test_{secrets.token_hex(6)}"
    admin = await _admin()
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        yield f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}"
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


DISCARD: dict[str, object] = {"type": "discard", "tile": "1b"}


def discard_record(table: str, seq: int) -> Record:
    """The journal's record of a discard, action ``seq`` of ``table``."""
    return Record(table, seq, seq % 4, DISCARD, [], 2_000.0 + seq)


async def action_seqs(engine: AsyncEngine) -> dict[str, list[int]]:
    """The action numbers stored for each game, in order."""
    async with make_sessions(engine)() as session:
        rows = (await session.execute(select(ActionRow.game_id, ActionRow.seq).order_by(ActionRow.seq))).all()
    found: dict[str, list[int]] = {}
    for table, seq in rows:
        found.setdefault(table, []).append(seq)
    return found


@contextlib.asynccontextmanager
async def journal_on(backend: str, tmp_path: Path) -> AsyncIterator[tuple[SqlJournal, AsyncEngine]]:
    """A journal on a fresh, migrated database of ``backend``, closed afterwards."""
    async with fresh_database(backend, tmp_path) as url:
        engine = make_engine(url)
        try:
            await upgrade(engine)
            journal = SqlJournal(engine)
            yield journal, engine
            await journal.close()
        finally:
            await engine.dispose()


async def created_tables(journal: SqlJournal, count: int) -> list[str]:
    """``count`` new games in ``journal``, each with two seats taken."""
    settings = TableSettings("Batch", ruleset("classical"), Timers(), True)
    ids = [f"t{i:03d}" for i in range(count)]
    await asyncio.gather(*(journal.table_created(StoredTable(t, settings, i, 1_000.0 + i)) for i, t in enumerate(ids)))
    seats: list[SeatRecord | None] = [SeatRecord("Ann", "h" * 64), None, None, SeatRecord("Bot 1", None)]
    await asyncio.gather(*(journal.seats_changed(t, seats, 0) for t in ids))
    return ids
