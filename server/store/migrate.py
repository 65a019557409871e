"""Schema migrations with Alembic, driven from code (there is no alembic.ini): upgrade a database
to the code's schema, and refuse one that is newer than the code.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection
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
            await connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        await connection.run_sync(run)
    return before, await current_revision(engine)
