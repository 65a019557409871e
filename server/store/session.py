"""The database engine: SQLite (a file in the data directory, WAL mode) by default, or any URL such
as ``postgresql+asyncpg://…`` from ``--db`` or ``SPARROW_DB``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import Engine, QueuePool, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.util import await_

from server.startup import StartFault, cannot

__all__ = [
    "CONNECT_TIMEOUT",
    "LOCK_TIMEOUT",
    "PING_TIMEOUT",
    "RESTED",
    "database_url",
    "make_engine",
    "make_sessions",
    "postgresql_options",
    "sqlite_file_engine",
    "sqlite_file_url",
]

DEFAULT_DATA_DIR = Path("data")

# Every PostgreSQL session of the server (its engine's, and the connections of server/store/lock.py)
# is bounded, so that a process that hangs, or vanishes, inside a transaction cannot hold rows, a
# table lock or a takeover for long; chosen against the 5 s lease of server/cluster/leases.py (and
# docs/deploy.md, "What a host should expect", says what each means for a host):
LOCK_TIMEOUT = 2.0  # a wait for a lock (a row, a table, an advisory lock): under half a lease, so a
#   renewal or a write stuck behind a hung session fails, and is tried again, while the lease holds
STATEMENT_TIMEOUT = 10.0  # one statement: no statement of play comes near it; twice the lease
IDLE_IN_TRANSACTION_TIMEOUT = 5.0  # a session idle inside a transaction this long is ended, freeing
#   its locks: the server awaits nothing but the database inside a transaction, so such a session's
#   process has been stuck a whole lease (its leases are gone anyway)
KEEPALIVE = (5, 2, 3)  # TCP keepalives (idle s, interval s, probes): a vanished peer is noticed in ~11 s
CONNECT_TIMEOUT = 5.0  # opening a connection
PING_TIMEOUT = 2.0  # the ping of a connection that rested in the pool (`_ping`): one silent this long is
#   dropped for a new one (its packets are held, or the network forgot it), not waited on for a statement's bound
COMMAND_TIMEOUT = STATEMENT_TIMEOUT + 2  # the driver's own bound on an answer (a server that vanished)


def database_url(url: str | None = None, data_dir: Path | None = None) -> str:
    """The database to use: ``url``, else ``$SPARROW_DB``, else ``sqlite`` in ``data_dir`` (./data).

    :raises StartFault: when the data folder is wanted and cannot be made.
    """
    chosen = url or os.environ.get("SPARROW_DB")
    if chosen:
        parsed = make_url(chosen)
        if parsed.drivername == "postgresql":  # plain postgresql:// means the async driver here
            chosen = parsed.set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)
        elif parsed.drivername == "sqlite":
            chosen = parsed.set(drivername="sqlite+aiosqlite").render_as_string(hide_password=False)
        return chosen
    folder = data_dir or Path(os.environ.get("SPARROW_DATA", DEFAULT_DATA_DIR))
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StartFault(cannot("make the data folder", folder, exc)) from None
    return f"sqlite+aiosqlite:///{(folder / 'sparrow.db').resolve()}"


def make_engine(url: str, **options: Any) -> AsyncEngine:
    """An async engine for ``url``; SQLite files get WAL mode, full fsync and foreign keys.
    ``options`` go to `create_async_engine` (benchmarks/journal.py tries another pool with them).

    SQLite keeps SQLAlchemy's default pool (5 + 10 overflow): the journal writes through one writer
    task, so one connection at a time writes, and reads (restore, history pages) have connections
    of their own instead of queueing with the writes for one (docs/benchmarks.md, "Journal: group
    commit", compares the two).

    On PostgreSQL every connection sets the session bounds above (`postgresql_options`), and one
    that has rested in the pool `RESTED` seconds or more is looked at as it leaves with one query
    (`_ping`), so that a connection the database dropped (a restart, a cut) is replaced before
    anyone uses it.
    """
    extra: dict[str, Any] = {}
    postgresql = make_url(url).get_backend_name() == "postgresql"
    if postgresql:
        extra["connect_args"] = postgresql_options()
        extra["pool_pre_ping"] = False  # `_ping` instead
        # The connection handed back last is handed out first: it has rested least (no `_ping`) and
        # has the statements just run prepared (a statement new to a connection costs a round trip
        # more); those left at the bottom of the pool rest, and are pinged when next used.
        extra["pool_use_lifo"] = True
    engine = create_async_engine(url, **{"pool_pre_ping": not url.startswith("sqlite"), **extra, **options})
    if engine.dialect.name == "sqlite":
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    elif postgresql and "pool_pre_ping" not in options:
        event.listen(engine.sync_engine, "checkin", _rested_since)
        event.listen(engine.sync_engine, "checkout", _ping)
    return engine


RESTED = 1.0  # seconds in the pool after which a connection is pinged before it is handed out


def _rested_since(_dbapi_connection: Any, record: Any) -> None:
    record.info["rested_since"] = time.monotonic()


def _ping(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
    """A pooled PostgreSQL connection is alive: one round trip, ``SELECT 1`` sent as text (no
    prepared statement, no transaction). SQLAlchemy's own ping through asyncpg opens a transaction
    around a prepared ``;`` and rolls it back, three round trips, which every journal write paid
    for at checkout (docs/benchmarks.md, "A distant database"). A connection that fails it, or
    does not answer it within `PING_TIMEOUT` (its packets held, or the network forgot it: nothing
    would ever come back, and the statement's own bound is 12 s), is dropped, and the pool hands
    out a new one (`DisconnectionError`).

    A connection back in the pool less than `RESTED` seconds ago (the journal's writer hands its
    connection back whenever no write waits, and takes it again at the next) is not pinged: it
    answered then. If the database dropped it meanwhile (it restarted within the second, or
    someone ended its session), the statement fails as on a lost connection: the connection is
    dropped, a write is looked for and, not found, refused (`server/storage`) and made again as
    any refused write is, and a read answers 503 once. Nor is a new connection, which has not been
    in the pool yet (it answered as it was made, with the engine's first look at the database too).
    """
    rested_since = record.info.get("rested_since")  # (the record's info goes with its connection)
    if rested_since is None or time.monotonic() - rested_since < RESTED:
        return
    driver = dbapi_connection.driver_connection
    try:
        await_(driver.execute("SELECT 1", timeout=PING_TIMEOUT))
    except Exception as exc:
        driver.terminate()  # (at once: the pool would first wait 2 s for a goodbye that cannot come)
        raise DisconnectionError(f"a pooled connection is gone ({type(exc).__name__}: {exc})") from exc


def postgresql_options() -> dict[str, Any]:
    """asyncpg's connect arguments for every connection the server makes to PostgreSQL: the session
    timeouts and keepalives, sent as server settings when the session starts (no extra round trip)."""
    idle, interval, count = KEEPALIVE
    settings = {
        "lock_timeout": f"{LOCK_TIMEOUT * 1000:.0f}ms",
        "statement_timeout": f"{STATEMENT_TIMEOUT * 1000:.0f}ms",
        "idle_in_transaction_session_timeout": f"{IDLE_IN_TRANSACTION_TIMEOUT * 1000:.0f}ms",
        "tcp_keepalives_idle": str(idle),
        "tcp_keepalives_interval": str(interval),
        "tcp_keepalives_count": str(count),
    }
    return {"server_settings": settings, "timeout": CONNECT_TIMEOUT, "command_timeout": COMMAND_TIMEOUT}


def sqlite_file_url(engine: AsyncEngine) -> str | None:
    """For an engine on a SQLite file, the URL the journal's writer process opens it with (the plain
    ``sqlite`` driver); None for any other database, whose writes go through the engine itself.
    """
    url = engine.url
    if engine.dialect.name != "sqlite" or url.database in (None, "", ":memory:") or "mode=memory" in str(url):
        return None
    return url.set(drivername="sqlite").render_as_string(hide_password=False)


def sqlite_file_engine(url: str) -> Engine:
    """The journal's writer process's engine on the SQLite file at ``url``, with the server's settings.

    A plain (not async) engine: through aiosqlite every statement, and the commit, is a hand-off to
    its thread and back (docs/benchmarks.md, "Journal: group commit"). One connection writes
    the batches; a batch that fails is retried on fresh ones.
    """
    engine = create_engine(url, poolclass=QueuePool, pool_size=1, max_overflow=2, json_serializer=_json_text)
    event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _json_text(value: Any) -> str:
    """JSON columns' text, as the writer process stores it: orjson's, compact (json.dumps took 7 times
    as long). Any reader's ``json.loads`` reads it back the same.
    """
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")  # an acknowledged action survives power loss too
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


def make_sessions(engine: AsyncEngine) -> async_sessionmaker[Any]:
    """The session factory (objects stay usable after commit)."""
    return async_sessionmaker(engine, expire_on_commit=False)
