"""One server per database (ARCHITECTURE lesson 18): a server holds a lock on its database for as
long as it runs, and a second server on the same database refuses to start. Several processes
started to share a PostgreSQL database (``--redis``, server/cluster) hold it together, shared.

SQLite: an exclusive ``flock`` on the database file. PostgreSQL: a session advisory lock held
by a connection of its own. The operating system (or PostgreSQL, when the connection drops) releases
either when the process ends, however it ends, so a server killed with ``kill -9`` never blocks the
next one. The same is true when only the lock's connection drops (PostgreSQL restarted, or the
network failed), so `DatabaseLock.keep` takes the lock again on a new connection, and stops the
server if another one took the database meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import asyncpg
from sqlalchemy.engine import make_url

from server.startup import ELSEWHERE_DB, StartFault, cannot
from server.store.session import postgresql_options

__all__ = ["DatabaseBusy", "DatabaseLock", "hold"]

# pg_advisory_lock takes a bigint; this one is b"sparrow\0" read as a number.
ADVISORY_KEY = int.from_bytes(b"sparrow\0", "big", signed=True)
KEEP_EVERY = 2.0  # seconds between looks at the lock's connection

log = logging.getLogger("sparrow.lock")


class DatabaseBusy(RuntimeError):
    """Another server holds the database."""


class DatabaseLock(Protocol):
    """A held lock."""

    async def keep(self, lost: Callable[[str], None]) -> None:
        """Hold the lock for as long as this task runs; ``lost`` is told why, should it be lost."""

    async def release(self) -> None:
        """Let the database go."""


class _NoLock:
    async def keep(self, lost: Callable[[str], None]) -> None:
        return None

    async def release(self) -> None:
        return None


class _FileLock(_NoLock):  # (the open file holds it: nothing can take it away)
    def __init__(self, fd: int) -> None:
        self.fd = fd

    async def release(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)


class _AdvisoryLock:
    def __init__(self, connection: asyncpg.Connection, dsn: str, take: str, where: str) -> None:
        self.connection, self.dsn, self.take, self.where = connection, dsn, take, where

    async def keep(self, lost: Callable[[str], None]) -> None:
        """Every `KEEP_EVERY` seconds, check that the lock's connection is alive; when it is not, take
        the lock again on a new one. If another server took it meanwhile, tell ``lost`` and return."""
        unreachable = False  # said once, when the database cannot be reached, until it can
        while True:
            await asyncio.sleep(KEEP_EVERY)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.connection.fetchval("SELECT 1"), KEEP_EVERY)
                continue  # alive: the lock is still this process's
            with contextlib.suppress(Exception):
                self.connection.terminate()
            try:
                connection = await asyncpg.connect(self.dsn, **postgresql_options())
            except Exception as exc:
                if not unreachable:
                    log.warning("the database lock's connection dropped; %s cannot be reached (%s)", self.where, exc)
                unreachable = True
                continue
            unreachable = False
            if await connection.fetchval(f"SELECT {self.take}($1)", ADVISORY_KEY):
                self.connection = connection
                log.warning("the database lock's connection dropped; the lock is held again on a new one")
                continue
            await connection.close()
            lost(f"another Sparrow server took the database {self.where} while this one's lock connection was down")
            return

    async def release(self) -> None:
        with contextlib.suppress(Exception):
            await self.connection.close(timeout=5)


async def hold(url: str, *, shared: bool = False) -> DatabaseLock:
    """Take the lock on the database at ``url`` (a SQLAlchemy URL) for this process. ``shared``: for
    one of several processes sharing a PostgreSQL database (server/cluster), which hold the lock
    together; a server on its own and such processes still keep each other out.

    :raises DatabaseBusy: naming the database, when another server holds it.
    :raises StartFault: when a SQLite file (or its folder) can be neither made nor opened.
    """
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        if not parsed.database or parsed.database == ":memory:":
            return _NoLock()
        return _hold_file(Path(parsed.database))
    if backend == "postgresql":
        dsn = parsed.set(drivername="postgresql").render_as_string(hide_password=False)
        connection = await asyncpg.connect(dsn, **postgresql_options())
        take = "pg_try_advisory_lock_shared" if shared else "pg_try_advisory_lock"
        where = parsed.render_as_string(hide_password=True)
        if not await connection.fetchval(f"SELECT {take}($1)", ADVISORY_KEY):
            await connection.close()
            other = "a Sparrow server on its own" if shared else "another Sparrow server"
            raise DatabaseBusy(f"{other} is using the database {where}; stop it first, or use another --db")
        return _AdvisoryLock(connection, dsn, take, where)
    return _NoLock()


def _hold_file(database: Path) -> _FileLock:
    # flock on the database file itself: SQLite locks with fcntl, which flock does not meet on Linux,
    # and a file that is only readable (a read-only mount) can still be flocked.
    try:
        database.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StartFault(cannot("make the database's folder", database.parent, exc, ELSEWHERE_DB)) from None
    try:
        fd = os.open(database, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        if not database.exists():
            raise StartFault(cannot("make the database", database, exc, ELSEWHERE_DB)) from None
        if isinstance(exc, IsADirectoryError):
            raise StartFault(cannot("open the database", database, exc, ELSEWHERE_DB)) from None
        try:  # (then the server says it cannot write to it: server/cli/db.py)
            fd = os.open(database, os.O_RDONLY)
        except OSError as unread:
            raise StartFault(cannot("open the database", database, unread, ELSEWHERE_DB, reading=True)) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise DatabaseBusy(
            f"another Sparrow server is using the database {database}; stop it first, or use another --db"
        ) from None
    return _FileLock(fd)
