"""The journal's writer process for a SQLite file: ``python -m server.store.writer_child URL WRITE LANDED CAP``.

`GroupWriter` (server/store/writer.py) starts it and talks to it through its stdin and stdout. It
commits batch after batch of writes with the function WRITE (``MODULE:NAME``, called with a
connection and the batch's writes, in an open transaction) and tells the server each batch's
outcome. LANDED (``MODULE:NAME``, called with a connection and a write) says whether a write is in
the database already; CAP is the most writes in one batch.

Why a process: in the server's process the writer shared one interpreter lock with the event loop,
and needed it for its Python work and again after every SQLite call; every table whose write was in
a batch waited for that (docs/benchmarks.md, "Journal: group commit"). Here it has an
interpreter, and a core, of its own.

The conversation, each message a frame (`frame`: 4-byte length, then a pickle):

- server → writer: ``(check, writes)``, writes in the order they were submitted. The writer takes
  every write that has arrived (at most CAP) as one batch, so batches grow while a commit is under
  way. ``check`` marks writes sent before to a writer that died before answering them: each is
  then made alone unless LANDED finds it (that writer committed it and died before saying so).
- writer → server: an `Outcome` for the oldest writes not yet answered, in order.
- The server closing the writer's stdin (or dying) ends it once every write it read is answered.

What holds is `GroupWriter`'s: writes are committed in order; a batch that fails is retried write by
write, each in its own transaction, so only a write that fails by itself fails; a failure of the
database rather than of a write (`OperationalError`, `InterfaceError`) fails the rest of the batch
untried. Anything printed to stdout by mistake goes to stderr: stdout carries only frames.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import pickle
import select
import signal
import struct
import sys
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

__all__ = ["HEADER", "Frames", "Outcome", "WriteFailed", "commit", "frame", "main", "named", "recheck"]

HEADER = struct.Struct(">I")  # a frame's length
READ_SIZE = 1 << 20
log = logging.getLogger("sparrow.store")

Write = Callable[[Connection, Sequence[Any]], None]
Landed = Callable[[Connection, Any], bool]


class WriteFailed(Exception):
    """A write failed in the writer process with an error that could not be handed back as itself."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of the next ``count`` writes: committed, except those in ``failed`` (by index)."""

    count: int
    commits: int  # transactions committed for them (1 for a batch, more when retried one by one)
    failed: dict[int, BaseException] = field(default_factory=dict)
    retried: str | None = None  # why the batch failed, when its writes were retried one by one
    untried: int = 0  # writes failed with the database's error without being tried alone


def frame(value: object) -> bytes:
    """``value`` as one frame."""
    body = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(body)) + body


class Frames:
    """Writes read from a pipe: `take` blocks until at least one has arrived, then takes all that
    have (up to a cap), each as ``(check, write)``: ``check`` says it was sent before, to a writer
    that died before answering, so it may be in the database already."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()
        self.writes: deque[Any] = deque()
        self.ended = False

    def take(self, cap: int) -> list[Any]:
        """The oldest writes waiting, at most ``cap``; [] once the pipe has ended and all are taken."""
        while not self.writes and not self.ended:
            self._read()
        while not self.ended and select.select([self.fd], [], [], 0)[0]:
            self._read()  # whatever else has arrived joins this batch
        return [self.writes.popleft() for _ in range(min(cap, len(self.writes)))]

    def _read(self) -> None:
        chunk = os.read(self.fd, READ_SIZE)
        if not chunk:  # a frame cut short is dropped: no write in it was ever answered
            self.ended = True
            return
        self.buffer += chunk
        while len(self.buffer) >= HEADER.size:
            (size,) = HEADER.unpack_from(self.buffer)
            if len(self.buffer) < HEADER.size + size:
                break
            check, items = pickle.loads(self.buffer[HEADER.size : HEADER.size + size])
            self.writes.extend((check, item) for item in items)
            del self.buffer[: HEADER.size + size]


def commit(engine: Engine, connection: Connection, write: Write, batch: list[Any]) -> Outcome:
    """Write ``batch`` in one transaction on ``connection``; if that fails, each write alone, each
    in a transaction of its own on a fresh connection. (A failed batch leaves ``connection`` to be
    closed by the caller.)"""
    try:
        with connection.begin():
            write(connection, batch)
    except Exception as exc:
        if len(batch) == 1:
            return Outcome(1, 0, {0: _portable(exc)})
        return _one_by_one(engine, write, batch, repr(exc))
    return Outcome(len(batch), 1)


def _one_by_one(engine: Engine, write: Write, batch: list[Any], why: str) -> Outcome:
    failed: dict[int, BaseException] = {}
    commits = 0
    for i, item in enumerate(batch):
        try:
            with engine.connect() as connection, connection.begin():
                write(connection, [item])
        except Exception as exc:
            if not about_the_database(exc):
                failed[i] = _portable(exc)
                continue
            error = _portable(exc)
            failed.update((j, error) for j in range(i, len(batch)))
            return Outcome(len(batch), commits, failed, why, len(batch) - i - 1)
        else:
            commits += 1
    return Outcome(len(batch), commits, failed, why)


# PostgreSQL's answers that a statement gave up waiting (lock_timeout, statement_timeout: the session
# bounds of server/store/session.py): the database is stuck for every write, not wrong about this one.
_GAVE_UP = frozenset({"55P03", "57014"})


def about_the_database(exc: BaseException) -> bool:
    """Whether ``exc`` says the database cannot write now, whatever the write."""
    if isinstance(exc, OperationalError | InterfaceError):
        return True
    return isinstance(exc, DBAPIError) and (exc.connection_invalidated or gave_up(exc))


def gave_up(exc: BaseException) -> bool:
    """Whether ``exc`` is PostgreSQL's answer that a statement waited too long: the transaction was
    rolled back there and then (so nothing of it was committed: its outcome is known)."""
    return isinstance(exc, DBAPIError) and getattr(exc.orig, "sqlstate", None) in _GAVE_UP


def _portable(exc: BaseException) -> BaseException:
    """``exc``, or a `WriteFailed` saying the same when ``exc`` cannot cross to the server."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return WriteFailed(f"{exc.__class__.__name__}: {exc}")
    return exc


def named(reference: str) -> Any:
    """The function ``MODULE:NAME`` names."""
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


def _runs(taken: list[tuple[bool, Any]]) -> list[tuple[bool, list[Any]]]:
    """``taken`` cut into runs of writes to check first and writes to make, in order."""
    runs: list[tuple[bool, list[Any]]] = []
    for check, item in taken:
        if runs and runs[-1][0] == check:
            runs[-1][1].append(item)
        else:
            runs.append((check, [item]))
    return runs


def recheck(engine: Engine, write: Write, landed: Landed, batch: list[Any]) -> Outcome:
    """Writes sent before to a writer that died before answering: each, in a transaction of its own,
    is made unless ``landed`` finds it in the database already (committed just before that death)."""
    failed: dict[int, BaseException] = {}
    commits = 0
    for i, item in enumerate(batch):
        try:
            with engine.connect() as connection, connection.begin():
                if not landed(connection, item):
                    write(connection, [item])
        except Exception as exc:
            failed[i] = _portable(exc)
        else:
            commits += 1
    return Outcome(len(batch), commits, failed)


def _file_of(path: str | None) -> tuple[int, int] | None:
    """The device and inode of the file at ``path``; None if there is none."""
    try:
        found = os.stat(path) if path else None
    except OSError:
        return None
    return None if found is None else (found.st_dev, found.st_ino)


def serve(engine: Engine, write: Write, landed: Landed | None, frames: Frames, out: BinaryIO, cap: int) -> None:
    """Commit what arrives, answering each batch, until the server closes the pipe. Every batch is
    refused once the database's path no longer names the file it opened (deleted, or another moved
    in its place): an open connection would go on writing to a file that nothing reads again."""
    connection: Connection | None = None
    path = engine.url.database
    opened = _file_of(path)
    try:
        while taken := frames.take(cap):
            for check, batch in _runs(taken):
                if opened is not None and _file_of(path) != opened:
                    gone = OSError(f"the database file {path} was removed or replaced while the server ran")
                    outcome = Outcome(len(batch), 0, dict.fromkeys(range(len(batch)), gone))
                elif check and landed is not None:
                    outcome = recheck(engine, write, landed, batch)
                else:
                    if connection is None:
                        connection = engine.connect()
                    outcome = commit(engine, connection, write, batch)
                    if outcome.failed or outcome.retried:  # the next batch takes a fresh connection
                        with contextlib.suppress(Exception):
                            connection.invalidate()
                        connection = None
                if outcome.failed:
                    # Lesson 17: open every connection anew after a failure. SQLite opens a file it
                    # cannot write read-only and keeps it so, even once the disk is writable again.
                    engine.dispose()
                out.write(frame(outcome))
            out.flush()
    finally:
        if connection is not None:
            with contextlib.suppress(Exception):
                connection.close()


def main(argv: list[str]) -> int:
    """Run as the server's journal writer (see the module's docstring)."""
    from server.store.session import sqlite_file_engine

    url, write, landed, cap = argv
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is for the server, which then closes our stdin
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print must not corrupt a frame
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s (writer): %(message)s")
    engine = sqlite_file_engine(url)
    try:
        found = None if landed == "-" else named(landed)
        serve(engine, named(write), found, Frames(sys.stdin.fileno()), out, int(cap))
    except BrokenPipeError:  # the server is gone: nobody is waiting for an answer
        return 1
    finally:
        engine.dispose()
    return 0


if __name__ == "__main__":  # run by its real name, so that what it pickles unpickles in the server
    from server.store.writer_child import main as run

    sys.exit(run(sys.argv[1:]))
