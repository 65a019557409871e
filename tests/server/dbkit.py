"""Fresh databases for storage tests: a SQLite file, or a new PostgreSQL database on 127.0.0.1:5432
(skipped with a reason when no PostgreSQL answers there; CI always has one).
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
BACKENDS = ["sqlite", "postgresql"]


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
