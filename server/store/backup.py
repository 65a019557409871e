"""Backups of a SQLite database (`sparrow db backup` and `sparrow db restore`).

A backup is made with SQLite's online backup API, which copies the database as one transaction
saw it: safe while a server writes to it (in WAL mode the server's writes go on meanwhile). The copy
is checked, written beside its final name and renamed, so a backup file is never half written. It
is a single file (no write-ahead log beside it).

A restore copies a backup into the database, through the same API, so the database file keeps its
inode and the caller's lock on it (`server.store.lock`) stays good throughout. The database it
replaces, if it held anything, is first backed up beside it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

__all__ = ["BackupError", "Copy", "backup", "restore", "sqlite_path"]


class BackupError(ValueError):
    """The backup or restore cannot be made; the message says why, naming the file."""


@dataclass(frozen=True, slots=True)
class Copy:
    """A database copied: where to, its schema revision (None if it has none), its size in bytes."""

    path: Path
    revision: str | None
    size: int
    kept: Path | None = None  # on a restore: where the database it replaced was kept


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL; None for any other database (or a SQLite one in memory).

    :raises BackupError: if ``url`` is not a database URL.
    """
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise BackupError(f"{url!r} is not a database URL such as sqlite:///data/sparrow.db") from None
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)


def backup(database: Path, target: Path) -> Copy:
    """Copy the SQLite ``database`` to the file ``target`` (replacing it), while it is in use or not.

    :raises BackupError: when there is no database, or ``target`` is the database or a folder.
    """
    if not database.is_file():
        raise BackupError(f"there is no database at {database}")
    if target.is_dir():
        raise BackupError(f"{target} is a folder: name the backup's file, e.g. {target / 'sparrow.db'}")
    if target.exists() and target.resolve() == database.resolve():
        raise BackupError(f"{target} is the database itself")
    if not target.parent.is_dir():
        raise BackupError(f"there is no folder {target.parent} to write the backup in")
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        _copy(database, partial)
        with contextlib.closing(sqlite3.connect(partial)) as copy:
            copy.execute("PRAGMA journal_mode=DELETE")  # one file, whatever the database's mode
            problem = _check(copy)
            if problem:
                raise BackupError(f"the copy of {database} failed its check ({problem}); the database may be damaged")
            revision = _revision(copy)
        _sync(partial)
        os.replace(partial, target)
        _sync(target.parent)
    finally:
        partial.unlink(missing_ok=True)
    return Copy(target, revision, target.stat().st_size)


def restore(source: Path, database: Path, known: set[str]) -> Copy:
    """Replace the SQLite ``database`` with the backup ``source``; the caller holds the database's lock,
    so no server is using it. ``known``: the schema revisions this Sparrow can run (older ones are
    upgraded when a server starts on it).

    :raises BackupError: when ``source`` is not a Sparrow database, fails its check, or is newer than
        this Sparrow.
    """
    if not source.is_file():
        raise BackupError(f"there is no backup at {source}")
    if database.exists() and source.resolve() == database.resolve():
        raise BackupError(f"{source} is the database itself")
    try:
        with contextlib.closing(sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)) as backup_db:
            problem = _check(backup_db)
            tables = {row[0] for row in backup_db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            revision = _revision(backup_db) if "alembic_version" in tables else None
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{source} is not a SQLite database ({exc})") from None
    if problem:
        raise BackupError(f"{source} fails SQLite's check ({problem})")
    if revision is None or "games" not in tables:
        raise BackupError(f"{source} is not a Sparrow database (it has no games or no schema revision)")
    if revision not in known:
        raise BackupError(f"{source} has schema revision {revision}, newer than this Sparrow knows: upgrade Sparrow")
    kept = None
    if database.is_file() and database.stat().st_size > 0:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        kept = backup(database, database.with_name(f"{database.name}.before-restore-{stamp}")).path
    _copy(source, database)
    return Copy(database, revision, database.stat().st_size, kept)


def _copy(source: Path, target: Path) -> None:
    # The whole database in one step: one read transaction, so the copy is of one moment.
    with contextlib.closing(sqlite3.connect(source)) as src, contextlib.closing(sqlite3.connect(target)) as dst:
        src.execute("PRAGMA busy_timeout=5000")
        dst.execute("PRAGMA busy_timeout=5000")
        src.backup(dst)


def _check(connection: sqlite3.Connection) -> str | None:
    result = [row[0] for row in connection.execute("PRAGMA quick_check")]
    return None if result == ["ok"] else "; ".join(map(str, result[:3]))


def _revision(connection: sqlite3.Connection) -> str | None:
    try:
        row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.OperationalError:  # no such table: not (yet) a Sparrow database
        return None
    return None if row is None else str(row[0])


def _sync(path: Path) -> None:
    """Flush ``path`` (a file, or a folder's entries) to the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
