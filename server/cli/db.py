"""``sparrow db upgrade|current|backup|restore``: bring the database to this version's schema, show
where it is, copy it while a server runs, or put a copy back while none does.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import sys
from pathlib import Path

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from server.cli.commands import summary
from server.startup import StartFault, unusable

__all__ = ["check_database", "read_only", "ready", "register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``db`` sub-command."""
    parser = sub.add_parser(
        "db",
        help=summary("db"),
        description="Database schema migrations (Alembic), and backups of a SQLite database: 'backup FILE' "
        "copies it, also while a server runs; 'restore FILE' puts a backup in its place while no server runs.",
    )
    parser.add_argument(
        "verb",
        choices=("upgrade", "current", "backup", "restore"),
        help="upgrade to the newest schema, show it, back up to FILE, or restore from FILE",
    )
    parser.add_argument("file", nargs="?", metavar="FILE", help="the backup's file (backup and restore)")
    parser.add_argument("--db", default=None, help="database URL (default: $SPARROW_DB, else ./data/sparrow.db)")
    parser.set_defaults(func=run)


async def _run(verb: str, url: str | None) -> str:
    from server.store.migrate import DatabaseTooNew, current_revision, head_revision, known_revisions, upgrade
    from server.store.session import database_url, make_engine

    engine = make_engine(database_url(url))
    try:
        if verb == "current":
            current = await current_revision(engine)
            if current is not None and current not in known_revisions():
                raise DatabaseTooNew(
                    f"{engine.url.render_as_string()}: revision {current} is newer than this Sparrow "
                    f"(it knows up to {head_revision()}); upgrade Sparrow"
                )
            return f"{engine.url.render_as_string()}: revision {current or 'none (empty)'}; code head {head_revision()}"
        before, after = await upgrade(engine)
        if before == after:
            return f"{engine.url.render_as_string()}: already at revision {after}"
        return f"{engine.url.render_as_string()}: upgraded from {before or 'an empty database'} to {after}"
    finally:
        await engine.dispose()


async def check_database(url: str | None) -> str | None:
    """Upgrade the database before serving; the reason it cannot be used, or None."""
    from server.startup import described
    from server.store.backup import sqlite_path
    from server.store.migrate import DatabaseTooNew
    from server.store.session import database_url

    try:
        problem = await read_only(url)
        if problem:
            return problem
        await _run("upgrade", url)
    except DatabaseTooNew as exc:
        return str(exc)
    except (SQLAlchemyError, OSError) as exc:
        database = sqlite_path(database_url(url))
        return described(exc, None if database is None else str(database)) or unusable(exc)
    return None


async def ready(url: str | None) -> bool:
    """Whether the PostgreSQL database at ``url`` can be written to and is at this code's schema
    already, found on a plain connection in a few round trips (an engine's first connection costs a
    dozen, and Alembic's look dozens more: a start pays for each, from as far away as the database
    is). False for anything else (SQLite, an empty database, another schema, a read-only database,
    one that cannot be reached), which `check_database` looks at in full, and says why."""
    import asyncpg

    from server.store.migrate import head_revision
    from server.store.session import database_url, postgresql_options

    parsed = make_url(database_url(url))
    if parsed.get_backend_name() != "postgresql":
        return False
    dsn = parsed.set(drivername="postgresql").render_as_string(hide_password=False)
    try:
        connection = await asyncpg.connect(dsn, **postgresql_options())
        try:  # (an empty database has no alembic_version: refused, and looked at in full)
            rows = await connection.fetch(
                "SELECT current_setting('transaction_read_only') = 'off', version_num FROM alembic_version"
            )
        finally:
            await connection.close(timeout=5)
    except (OSError, asyncpg.PostgresError):
        return False
    return [tuple(row) for row in rows] == [(True, head_revision())]


async def read_only(url: str | None) -> str | None:
    """Why the database at ``url`` cannot be written to (a read-only file, folder or URL, a PostgreSQL
    database or session that is read-only, a standby), or None. Nothing is changed.

    :raises sqlalchemy.exc.SQLAlchemyError: when the database cannot be reached at all.
    """
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError, OperationalError

    from server.startup import ELSEWHERE_DB, database_fault
    from server.store.session import database_url, make_engine

    engine = make_engine(database_url(url))
    where = engine.url.render_as_string()
    needs = "Sparrow writes every move to its database"
    try:
        async with engine.connect() as connection:  # (SQLite: opening it sets WAL mode, a write)
            if engine.dialect.name == "postgresql":
                if await connection.scalar(text("SELECT current_setting('transaction_read_only')")) == "on":
                    why = "default_transaction_read_only is on, or it is a standby"
                    return f"the database {where} is read-only ({why}): {needs}"
                return None
            # Two writes that leave nothing behind (pysqlite commits DDL as it goes, so a rollback would
            # not undo them; a probe left by a server killed between the two is dropped by the next).
            await connection.execute(text("CREATE TABLE IF NOT EXISTS sparrow_write_probe (x INTEGER)"))
            await connection.execute(text("DROP TABLE sparrow_write_probe"))
            await connection.commit()
    except DBAPIError as exc:
        said = str(exc.orig)
        if engine.dialect.name != "sqlite":
            raise
        if isinstance(exc, OperationalError) and any(s in said for s in ("readonly", "read-only", "unable to open")):
            return (
                f"the database {where} cannot be written to ({said}: is the file, or its folder, read-only?): {needs}; "
                f"let the server's user write to both (a read-write mount, chown), or {ELSEWHERE_DB}"
            )
        fault = database_fault(exc, engine.url.database or where)
        if fault is None:
            raise
        return fault
    finally:
        await engine.dispose()
    return None


def run(args: argparse.Namespace) -> int:
    """Run the verb; a database that is newer than the code is refused with status 2."""
    from server.store.migrate import DatabaseTooNew

    if args.verb in ("backup", "restore"):
        if args.file is None:
            return _refuse(f"name the backup's file, e.g. sparrow db {args.verb} backups/sparrow.db")
        return _backup(args.file, args.db) if args.verb == "backup" else _restore(args.file, args.db)
    if args.file is not None:
        return _refuse(f"{args.verb} takes no file (backup and restore do)")
    try:
        print(asyncio.run(_run(args.verb, args.db)))
    except DatabaseTooNew as exc:
        print(f"sparrow db: {exc}", file=sys.stderr)
        return 2
    except (SQLAlchemyError, OSError) as exc:
        print(f"sparrow db: {unusable(exc)}", file=sys.stderr)
        return 1
    return 0


def _refuse(problem: str) -> int:
    print(f"sparrow db: {problem}", file=sys.stderr)
    return 2


def _database(url: str | None, verb: str, file: str) -> Path | str:
    """The SQLite file to back up or restore; or, for any other database, why not (status 2)."""
    from server.store.backup import sqlite_path
    from server.store.session import database_url

    try:
        chosen = database_url(url)
    except ArgumentError:
        return f"--db {url!r} is not a database URL such as sqlite:///data/sparrow.db or postgresql://host/db"
    path = sqlite_path(chosen)
    if path is not None:
        return path
    parsed = make_url(chosen)
    if parsed.get_backend_name() != "postgresql":
        return f"{parsed.render_as_string()} is not a SQLite file: there is nothing to {verb}"
    # libpq's URL (no driver), without the password: pg_dump takes it from PGPASSWORD or ~/.pgpass
    plain = URL.create("postgresql", parsed.username, None, parsed.host, parsed.port, parsed.database, parsed.query)
    where = shlex.quote(plain.render_as_string())
    if verb == "backup":
        command = f"pg_dump --format=custom --file={shlex.quote(file)} {where}"
        return f"PostgreSQL is backed up with its own tool, also while the server runs:\n  {command}"
    command = f"pg_restore --clean --if-exists --no-owner --dbname={where} {shlex.quote(file)}"
    return f"PostgreSQL is restored with its own tool, with the server stopped:\n  {command}"


def _backup(file: str, url: str | None) -> int:
    from server.store.backup import BackupError, backup

    try:
        database = _database(url, "backup", file)
        if isinstance(database, str):
            return _refuse(database)
        copy = backup(database, Path(file))
    except (BackupError, OSError) as exc:
        return _refuse(f"backup: {exc}")
    print(f"backed up {database} to {copy.path} ({copy.size:,} bytes, schema revision {copy.revision or 'none'})")
    return 0


def _restore(file: str, url: str | None) -> int:
    from server.store.backup import BackupError, Copy, restore
    from server.store.lock import DatabaseBusy, hold
    from server.store.migrate import known_revisions

    try:
        database = _database(url, "restore", file)
        if isinstance(database, str):
            return _refuse(database)

        async def locked() -> Copy:
            lock = await hold(f"sqlite:///{database}")  # no server may start on it meanwhile
            try:
                return restore(Path(file), database, known_revisions())
            finally:
                await lock.release()

        copy = asyncio.run(locked())
    except (DatabaseBusy, BackupError, OSError, StartFault) as exc:
        return _refuse(f"restore: {exc}")
    kept = f"; the database it replaced is kept in {copy.kept}" if copy.kept else ""
    print(
        f"restored {file} into {database} (schema revision {copy.revision}){kept}. "
        "A server started on it upgrades it if needed and resumes its tables."
    )
    return 0
