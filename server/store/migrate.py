"""Schema migrations with Alembic, driven from code (there is no alembic.ini): upgrade a database
to the code's schema, and refuse one that is newer than the code.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
from collections.abc import AsyncIterator
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError, ProgrammingError
from sqlalchemy.ext.asyncio import AsyncEngine

__all__ = [
    "DatabaseTooNew",
    "MIGRATIONS",
    "alembic_config",
    "current_revision",
    "head_revision",
    "known_revisions",
    "upgrade",
]

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"
MIGRATION_LOCK = int.from_bytes(b"sparmig\0", "big", signed=True)  # a PostgreSQL advisory lock's key
MIGRATION_LOCK_WAIT = 60.0  # seconds a migration on PostgreSQL waits for a lock (another's migration, a write)


class DatabaseTooNew(RuntimeError):
    """The database was migrated by a newer Sparrow than this one."""


def known_revisions() -> set[str]:
    """Every schema revision this code knows."""
    return {rev.revision for rev in ScriptDirectory.from_config(alembic_config()).walk_revisions()}


def alembic_config(url: str = "") -> Config:
    """An Alembic configuration pointing at migrations/."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def head_revision() -> str:
    """The newest revision this code knows."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def _current(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


async def current_revision(engine: AsyncEngine) -> str | None:
    """The database's revision, None for an empty database."""
    async with engine.connect() as connection:
        return await connection.run_sync(_current)


async def upgrade(engine: AsyncEngine, target: str = "head") -> tuple[str | None, str | None]:
    """Bring the database up to the code's schema (or to ``target``); returns (revision before, revision now).

    :raises DatabaseTooNew: if the database is at a revision this code does not know.
    """
    if target == "head" and await _at_head(engine):
        head = head_revision()
        return head, head
    async with _one_at_a_time(engine):
        return await _upgrade(engine, target)


async def _at_head(engine: AsyncEngine) -> bool:
    """Whether the database is at the code's newest revision already: one statement outside any
    transaction (two round trips at most, where Alembic's own look and the lock it takes cost dozens:
    each start pays for them, from as far away as the database is). False for an empty database,
    and for any other revision (``_upgrade`` migrates it, or refuses it)."""
    try:
        async with engine.execution_options(isolation_level="AUTOCOMMIT").connect() as connection:
            found = (await connection.execute(text("SELECT version_num FROM alembic_version"))).scalars().all()
    except (ProgrammingError, OperationalError):  # (no such table: an empty database)
        return False
    return list(found) == [head_revision()]


async def _upgrade(engine: AsyncEngine, target: str) -> tuple[str | None, str | None]:
    script = ScriptDirectory.from_config(alembic_config())
    known = known_revisions()
    before = await current_revision(engine)
    if before is not None and before not in known:
        raise DatabaseTooNew(
            f"the database is at schema revision {before}, which is newer than this Sparrow "
            f"(it knows up to {script.get_current_head()}); upgrade Sparrow, or point --db at another database"
        )

    def run(connection: Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        command.upgrade(config, target)

    async with engine.begin() as connection:
        if connection.dialect.name == "postgresql":  # processes starting together migrate one at a time
            # A migration may rewrite a large table, and waits for the servers' writes of an older release:
            # the session bounds of play (server/store/session.py) are lifted for it, within reason.
            await connection.execute(text(f"SET LOCAL lock_timeout = '{MIGRATION_LOCK_WAIT:.0f}s'"))
            await connection.execute(text("SET LOCAL statement_timeout = 0"))
            await connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        await connection.run_sync(run)
    return before, await current_revision(engine)


@contextlib.asynccontextmanager
async def _one_at_a_time(engine: AsyncEngine) -> AsyncIterator[None]:
    """On a SQLite file, hold an exclusive ``flock`` on ``<file>.migrate-lock`` beside it: processes
    upgrading one file at once (``sparrow db upgrade`` while a server starts) migrate one after the
    other, and the second finds the schema current. (Not the database file's own flock, which a
    running server holds: server/store/lock.py.) PostgreSQL has its advisory lock instead."""
    database = engine.url.database if engine.dialect.name == "sqlite" else None
    if not database or database == ":memory:" or "mode=memory" in str(engine.url):
        yield
        return
    path = Path(database).with_name(Path(database).name + ".migrate-lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        await asyncio.to_thread(fcntl.flock, fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # (closing it lets the lock go)
