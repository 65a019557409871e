"""One server per database (ARCHITECTURE lesson 18): a server holds a lock on its database for as
long as it runs, and a second server on the same database refuses to start. Several processes
started to share a PostgreSQL database (``--redis``, server/cluster) hold it together, shared.

SQLite: an exclusive ``flock`` on the database file. PostgreSQL: a session advisory lock held
by a connection of its own. The operating system (or PostgreSQL, when the connection drops) releases
either when the process ends, however it ends, so a server killed with ``kill -9`` never blocks the
next one.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from typing import Protocol

import asyncpg
from sqlalchemy.engine import make_url

__all__ = ["DatabaseBusy", "DatabaseLock", "hold"]

# pg_advisory_lock takes a bigint; this one is b"sparrow\0" read as a number.
ADVISORY_KEY = int.from_bytes(b"sparrow\0", "big", signed=True)


class DatabaseBusy(RuntimeError):
    """Another server holds the database."""


class DatabaseLock(Protocol):
    """A held lock."""

    async def release(self) -> None:
        """Let the database go."""


class _NoLock:
    async def release(self) -> None:
        return None


class _FileLock:
    def __init__(self, fd: int) -> None:
        self.fd = fd

    async def release(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)


class _AdvisoryLock:
    def __init__(self, connection: asyncpg.Connection) -> None:
        self.connection = connection

    async def release(self) -> None:
        with contextlib.suppress(Exception):
            await self.connection.close(timeout=5)


async def hold(url: str, *, shared: bool = False) -> DatabaseLock:
    """Take the lock on the database at ``url`` (a SQLAlchemy URL) for this process. ``shared``: for
    one of several processes sharing a PostgreSQL database (server/cluster), which hold the lock
    together; a server on its own and such processes still keep each other out.

    :raises DatabaseBusy: naming the database, when another server holds it.
    """
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        if not parsed.database or parsed.database == ":memory:":
            return _NoLock()
        return _hold_file(Path(parsed.database))
    if backend == "postgresql":
        dsn = parsed.set(drivername="postgresql").render_as_string(hide_password=False)
        connection = await asyncpg.connect(dsn, timeout=10)
        take = "pg_try_advisory_lock_shared" if shared else "pg_try_advisory_lock"
        if not await connection.fetchval(f"SELECT {take}($1)", ADVISORY_KEY):
            await connection.close()
            where = parsed.render_as_string(hide_password=True)
            other = "a Sparrow server on its own" if shared else "another Sparrow server"
            raise DatabaseBusy(f"{other} is using the database {where}; stop it first, or use another --db")
        return _AdvisoryLock(connection)
    return _NoLock()


def _hold_file(database: Path) -> _FileLock:
    # flock on the database file itself: SQLite locks with fcntl, which flock does not meet on Linux,
    # and a file that is only readable (a read-only mount) can still be flocked.
    database.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(database, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        fd = os.open(database, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise DatabaseBusy(
            f"another Sparrow server is using the database {database}; stop it first, or use another --db"
        ) from None
    return _FileLock(fd)
