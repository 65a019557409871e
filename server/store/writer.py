"""`GroupWriter`: one task that writes everything waiting in one transaction (group commit).

Callers `submit` a write and wait; the writer takes every write waiting (up to ``cap``), runs them
in order in ONE transaction, commits, and only then tells each caller it is done. So a write is
still durable before its caller goes on (ARCHITECTURE lesson 11: an action is in the log before
anyone hears of it), but many tables share one commit instead of paying one each.

What holds:

- Writes run in the order they were submitted, within a batch and from batch to batch, so one
  table's writes (each awaited before the next) stay in order.
- A caller is told "done" only after the transaction holding its write has committed; it is told
  an exception when its write was not committed.
- If a batch fails, its writes are tried again one by one, each in its own transaction, so only a
  write that fails by itself fails its caller. If one of them fails because of the database rather
  than the write (`OperationalError`, `InterfaceError`, a lost connection: locked, disk full, gone),
  the rest of the batch fails with it untried, rather than waiting out the same failure one by one.
  A batch that PostgreSQL gave up on (a lock or a statement waited past the session's bounds,
  server/store/session.py) fails whole at once, for the same reason.
- A write whose caller was cancelled before its batch began is not written.
- At most one writer task (hence one connection writing) at a time. It starts on the first
  `submit` and ends when nothing is waiting; the next `submit` starts a new one. If it dies of
  something unexpected, every write it held or that was waiting fails with `WriterError`.
- After `close`, which waits for everything submitted to be written, `submit` raises
  `WriterError`.

On a SQLite file the writer is a process of its own (server/store/writer_child.py): the server sends
it the writes submitted in each turn of its event loop as that turn ends (one frame for them all),
and it commits whatever has arrived as one batch as soon as it has committed the last, then
answers. In the server's process a writer shared the interpreter lock with the event loop, and
every table whose write was in a batch waited for the lock (docs/benchmarks.md). A write already sent is written
even if its caller gives up meanwhile. If the process dies, a new one takes the writes it had not
answered, and makes each unless ``landed`` finds it stored (committed just before that death); a
write that a second process dies on too fails with `WriterError`. Any other database is written
from a task on the event loop through its async driver.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pickle
import sys
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Generic, TypeVar, cast

from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from server import metrics
from server.store.session import sqlite_file_url
from server.store.writer_child import HEADER, Outcome, about_the_database, frame, gave_up
from server.tables.journal import WriteOutcomeUnknown, WriteRefused

__all__ = ["BATCH_CAP", "GroupWriter", "OutcomeUnknown", "WriterError"]

BATCH_CAP = 500
LARGEST_ANSWER = 1 << 24  # bytes: an answer holds one outcome per write of a batch
log = logging.getLogger("sparrow.store")

T = TypeVar("T")
Waiting = tuple[T, "asyncio.Future[None]"]
Transact = Callable[[Sequence[T]], Awaitable[None]]  # makes one transaction of the writes given


class WriterError(RuntimeError):
    """The write was not made: the writer is closed, or it stopped on an unexpected error."""


class OutcomeUnknown(WriterError, WriteOutcomeUnknown):
    """The database stopped answering while the write was being committed: it may have been made."""


CHECK_TRIES = 12  # about 12 s of asking whether a write whose commit went unanswered was made


class GroupWriter(Generic[T]):
    """Writes items with ``write(connection, items)`` in shared transactions on ``engine``.

    On a SQLite file ``write`` runs in the writer process, which imports it by its module and name,
    so it must be a module's function; and its writes cross to that process pickled. So does
    ``landed(connection, item)``, which says whether ``item`` is in the database already: when the
    process dies before answering some writes, they go to a new one, which makes each unless
    ``landed`` finds it. Without it, or if the new process dies too, they fail with `WriterError`.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        write: Callable[[Connection, Sequence[T]], None],
        *,
        landed: Callable[[Connection, T], bool] | None = None,
        cap: int = BATCH_CAP,
        autocommit: Callable[[Sequence[T]], bool] | None = None,
    ) -> None:
        if cap < 1:
            raise ValueError(f"a batch holds at least one write, not {cap!r}")
        self.engine = engine
        self.cap = cap
        self.commits = 0  # transactions committed (a batch, or one write of a failed batch)
        self.written = 0  # writes committed
        self._write = write
        self._landed = landed
        self._autocommit = autocommit
        self._waiting: deque[Waiting[T]] = deque()
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self._file = sqlite_file_url(engine)  # on a SQLite file, the writes go through a process
        if self._file is not None:  # refused now rather than at the first write
            _reference(write)
            if landed is not None:
                _reference(landed)
        self._child: _Child[T] | None = None
        self._outbox: list[Waiting[T]] = []  # submitted in this turn of the loop, for the process

    @property
    def process_id(self) -> int | None:
        """The writer process's id while one runs (on a SQLite file), else None."""
        child = self._child
        if child is None or child.ended or child.transport is None:
            return None
        return child.transport.get_pid()

    async def submit(self, item: T) -> None:
        """Write ``item``; returns once it is committed.

        :raises WriterError: when the writer is closed or stopped on an unexpected error.
        :raises Exception: whatever writing ``item`` alone, in its own transaction, raised.
        """
        if self._closed:
            raise WriterError("the journal is closed")
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        submitted = time.perf_counter()
        if self._file is not None:
            self._post(item, done)
        else:
            self._waiting.append((item, done))
            task = self._task
            if task is None or task.done() or task.get_loop() is not loop:
                self._task = loop.create_task(self._run(), name="sparrow-journal-writer")
        await done
        metrics.JOURNAL_COMMIT.observe(time.perf_counter() - submitted)

    async def close(self) -> None:
        """Refuse new writes, and return once every write already submitted is committed (or failed)."""
        self._closed = True
        self._flush()
        task = self._task
        if task is not None and not task.done():
            await asyncio.wait({task})
        child = self._child
        while child is not None:
            await child.finish()
            if self._child is child:  # (else it died, and a new one took the writes it had not answered)
                break
            child = self._child

    async def _run(self) -> None:
        batch: list[Waiting[T]] = []
        last: list[Waiting[T]] = []  # committed, told once the connection is back
        try:
            while self._waiting:
                # One connection for as long as writes keep coming: no pool checkout, and no rollback
                # on its return, per batch. After a failed batch the next one takes a fresh connection.
                # The last batch is reported done only once the connection is back in the pool, so a
                # caller that saw its writes done may dispose of the engine.
                async with self._transactions() as transact:
                    while self._waiting:
                        batch = self._take()
                        if not batch or not await self._commit(transact, batch):
                            batch = []
                            break
                        if not self._waiting:
                            last, batch = batch, []
                            break
                        self._committed(batch)
                        batch = []
                if last:
                    self._committed(last)
                    last = []
        except BaseException as exc:
            if last:  # committed: only handing the connection back went wrong
                self._committed(last)
            lost = [*batch, *self._waiting]
            self._waiting.clear()
            _stopped([done for _, done in lost], exc)
            if not isinstance(exc, Exception):
                raise  # cancelled, or the process is going down

    # ------------------------------------------------------- SQLite: the process
    def _post(self, item: T, done: asyncio.Future[None]) -> None:
        """Send ``item`` to the writer process with every other write submitted in this turn of the
        event loop: one frame and one pipe write for them all, sent as the turn ends.
        """
        self._outbox.append((item, done))
        if len(self._outbox) == 1:
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        writes = [(item, done) for item, done in self._outbox if not done.cancelled()]
        self._outbox.clear()
        if not writes:
            return
        try:
            data = frame((False, [item for item, _ in writes]))
        except Exception:  # one of them cannot cross to the process: each alone, to fail only that one
            for item, done in writes:
                self._send(item, done)
            return
        self._running_child().send(data, [(item, done, False) for item, done in writes])

    def _send(self, item: T, done: asyncio.Future[None], check: bool = False) -> None:
        """Hand ``item`` to the writer process now; ``check``: it was sent to one that died before
        answering, so the process first looks whether it is in the database."""
        try:
            data = frame((check, [item]))
        except Exception as exc:  # it cannot cross to the process
            done.set_exception(WriterError(f"this cannot be written: {exc!r}"))
            return
        self._running_child().send(data, [(item, done, check)])

    def _running_child(self) -> _Child[T]:
        """The writer process, started if none runs."""
        child = self._child
        if child is None or child.ended:
            assert self._file is not None
            child = self._child = _Child(self, self._file)
        return child

    def _told(self, outcome: Outcome, batch: list[asyncio.Future[None]]) -> None:
        """The writer process's ``outcome`` for the writes whose callers are ``batch``."""
        self.commits += outcome.commits
        self.written += len(batch) - len(outcome.failed)
        if outcome.retried is not None:
            _retrying(len(batch), outcome.retried)
        if outcome.untried:
            _untried(outcome.untried)
        for i, done in enumerate(batch):
            if done.done():
                continue
            failed = outcome.failed.get(i)
            if failed is None:
                done.set_result(None)
            else:
                done.set_exception(failed)

    # ---------------------------------------------------------------- the rest
    def _take(self) -> list[Waiting[T]]:
        """Up to ``cap`` waiting writes, oldest first, leaving out those whose caller gave up."""
        batch: list[Waiting[T]] = []
        while self._waiting and len(batch) < self.cap:
            item, done = self._waiting.popleft()
            if not done.done():
                batch.append((item, done))
        return batch

    def _transactions(self) -> contextlib.AbstractAsyncContextManager[Transact[T]]:
        """A function that makes one transaction of the writes given to it, on one connection."""
        return _async_transactions(self.engine, self._write, self._autocommit)

    async def _commit(self, transact: Transact[T], batch: list[Waiting[T]]) -> bool:
        """Write ``batch`` in one transaction: True once committed (its callers are not told yet),
        False if it failed (each write has then been tried alone and its caller told).
        """
        try:
            await transact([item for item, _ in batch])
        except Exception as exc:
            if await self._stored_after_all(batch, exc):
                return False  # the reply was lost, not the commit: its callers are told it was made
            if len(batch) == 1 or gave_up(exc):  # (a lock waited out alone would cost each write as long again)
                for _, done in batch:
                    _fail(done, exc)
                return False
            if not isinstance(exc, WriteRefused):  # (a refused write says why itself, once)
                _retrying(len(batch), repr(exc))
            await self._one_by_one(batch)
            return False
        return True

    async def _stored_after_all(self, batch: list[Waiting[T]], exc: Exception) -> bool:
        """Whether ``batch``, whose transaction failed with ``exc``, was committed all the same (the
        connection died after COMMIT was sent, before its answer came: lesson 17). If so its callers
        are told it was made. A batch is one transaction, so its first write tells for all of them.
        While the database cannot be asked, it is asked again; if it never answers, the outcome is
        unknown and the callers are told so (`OutcomeUnknown`), never that nothing was stored.
        """
        if self._landed is None or not about_the_database(exc) or gave_up(exc):
            return False
        landed, first = self._landed, batch[0][0]
        for attempt in range(CHECK_TRIES):
            try:
                async with self.engine.connect() as connection:
                    stored = await connection.run_sync(lambda sync: landed(sync, first))
            except Exception:
                await asyncio.sleep(min(0.1 * 2**attempt, 2.0))
                continue
            if stored:
                self._committed(batch)
            return stored
        unknown = OutcomeUnknown(f"the database stopped answering as a write was committed ({exc!r})")
        for _, done in batch:
            _fail(done, unknown)
        return True

    async def _one_by_one(self, batch: list[Waiting[T]]) -> None:
        for i, (item, done) in enumerate(batch):
            if done.done():
                continue
            try:
                async with self._transactions() as transact:
                    await transact([item])
            except Exception as exc:
                if await self._stored_after_all([(item, done)], exc):
                    continue
                if not about_the_database(exc):
                    _fail(done, exc)
                    continue
                for _, rest in batch[i:]:
                    _fail(rest, exc)
                _untried(len(batch) - i - 1)
                return
            else:
                self._committed([(item, done)])

    def _committed(self, batch: list[Waiting[T]]) -> None:
        self.commits += 1
        self.written += len(batch)
        for _, done in batch:
            if not done.done():
                done.set_result(None)


@contextlib.asynccontextmanager
async def _async_transactions(
    engine: AsyncEngine,
    write: Callable[[Connection, Sequence[T]], None],
    autocommit: Callable[[Sequence[T]], bool] | None = None,
) -> AsyncIterator[Transact[T]]:
    """Any other database: the async driver, with the sync write functions run through `run_sync`.
    A batch that ``autocommit`` says ``write`` makes in one statement runs without BEGIN and COMMIT
    (two round trips fewer): the database commits the statement as it ends, before it answers.
    """
    async with engine.connect() as connection:
        usual = connection.sync_connection.default_isolation_level if connection.sync_connection else None

        async def transact(items: Sequence[T]) -> None:
            try:
                if autocommit is not None and autocommit(items):
                    await connection.execution_options(isolation_level="AUTOCOMMIT")
                    try:
                        async with connection.begin():  # (no BEGIN is sent: the driver autocommits)
                            await connection.run_sync(write, items)
                    finally:
                        if usual is not None:
                            await connection.execution_options(isolation_level=usual)
                    return
                async with connection.begin():
                    await connection.run_sync(write, items)
            except Exception:
                # Lesson 17: a connection a write failed on is not used again. A PostgreSQL session
                # opened while the database was read-only stays read-only after it is writable again.
                with contextlib.suppress(Exception):
                    await connection.invalidate()
                raise

        yield transact


def _retrying(count: int, why: str) -> None:
    log.warning("a batch of %d writes failed (%s); writing them one by one", count, why)


def _untried(count: int) -> None:
    if count:
        log.warning("the database cannot write; %d more write(s) of the batch failed with it untried", count)


def _stopped(lost: list[asyncio.Future[None]], exc: BaseException | None) -> None:
    """The writer stopped on ``exc`` (None: its process ended) before telling ``lost`` their outcome."""
    lost = [done for done in lost if not done.done()]
    if isinstance(exc, asyncio.CancelledError | GeneratorExit):
        log.warning("the journal's writer was stopped; %d write(s) failed", len(lost))
    elif isinstance(exc, OSError | DBAPIError):  # the database cannot be reached: the journal logs it, once
        log.debug("the journal's writer stopped; %d write(s) failed (%s)", len(lost), str(exc).split("\n")[0])
    else:
        log.error("the journal's writer stopped; %d write(s) failed", len(lost), exc_info=exc)
    for done in lost:
        error = WriterError("the journal's writer stopped before this was written (or just after)")
        error.__cause__ = exc
        done.set_exception(error)


def _fail(done: asyncio.Future[None], exc: Exception) -> None:
    if not done.done():
        done.set_exception(exc)


class _Child(asyncio.SubprocessProtocol, Generic[T]):
    """One writer process (server/store/writer_child.py), and the writes sent to it that it has not
    answered yet, oldest first. It starts at once; writes sent before it is up wait for it.

    Its answers are read as they arrive, and their callers told at once (no task to wake first).
    """

    def __init__(self, writer: GroupWriter[T], url: str) -> None:
        self.writer = writer
        self.unanswered: deque[tuple[T, asyncio.Future[None], bool]] = deque()  # (write, caller, checked)
        self.unsent: list[bytes] = []  # frames sent before the process was up
        self.stdin: asyncio.WriteTransport | None = None
        self.transport: asyncio.SubprocessTransport | None = None
        self.received = bytearray()
        self.closing = False  # its stdin is (to be) closed: it ends once it has answered everything
        self.ended = False  # it has ended, or could not start: the next write starts another
        loop = asyncio.get_running_loop()
        self.gone: asyncio.Future[None] = loop.create_future()  # done once it has ended
        self.starting = loop.create_task(self._start(url), name="sparrow-journal-writer")

    def send(self, data: bytes, writes: list[tuple[T, asyncio.Future[None], bool]]) -> None:
        """Send ``data``, the frame of ``writes``: each a write, its caller, and whether it is sent again."""
        self.unanswered.extend(writes)
        if self.stdin is None:
            self.unsent.append(data)
        else:
            self.stdin.write(data)

    async def finish(self) -> None:
        """Let the process answer every write sent, then end; return once it has."""
        self.closing = True
        if self.stdin is not None:
            self.stdin.close()
        await asyncio.shield(self.gone)

    async def _start(self, url: str) -> None:
        loop = asyncio.get_running_loop()
        try:
            await loop.subprocess_exec(
                lambda: self,
                sys.executable,
                "-m",
                "server.store.writer_child",
                url,
                _reference(self.writer._write),
                "-" if self.writer._landed is None else _reference(self.writer._landed),
                str(self.writer.cap),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=None,
                env={**os.environ, "PYTHONPATH": os.pathsep.join(os.path.abspath(p) for p in sys.path)},
                start_new_session=True,  # a Ctrl+C in the terminal is for the server, which then closes it
            )
        except Exception as exc:
            self._end(exc)

    # -------------------------------------------------- asyncio.SubprocessProtocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # (uvloop's transports are not subclasses of asyncio's, but do the same)
        self.transport = transport = cast(asyncio.SubprocessTransport, transport)
        self.stdin = stdin = cast(asyncio.WriteTransport, transport.get_pipe_transport(0))
        for data in self.unsent:
            stdin.write(data)
        self.unsent.clear()
        if self.closing:
            stdin.close()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self.received += data
        try:
            while len(self.received) >= HEADER.size:
                (size,) = HEADER.unpack_from(self.received)
                if size > LARGEST_ANSWER:
                    garbage = bytes(self.received[:40])
                    raise ValueError(f"the journal's writer process sent something else ({garbage!r})")
                if len(self.received) < HEADER.size + size:
                    return
                outcome: Outcome = pickle.loads(self.received[HEADER.size : HEADER.size + size])
                del self.received[: HEADER.size + size]
                self.writer._told(outcome, [self.unanswered.popleft()[1] for _ in range(outcome.count)])
        except Exception as exc:  # a bug: stop this process; the next write starts another
            self._end(exc)

    def connection_lost(self, exc: Exception | None) -> None:
        """The process has ended and its pipes are closed."""
        self._end(exc)

    def _end(self, exc: BaseException | None) -> None:
        if self.ended:
            return
        self.ended = True
        code = None
        if self.transport is not None:
            code = self.transport.get_returncode()
            if code is None:  # ended on our side (a bug): the process must not go on writing
                with contextlib.suppress(ProcessLookupError):
                    self.transport.kill()
            self.transport.close()
        lost = [(item, done, checked) for item, done, checked in self.unanswered if not done.done()]
        self.unanswered.clear()
        again = [(item, done) for item, done, checked in lost if not checked] if self.writer._landed else []
        failed = [done for _, done, checked in lost if checked or not again]
        if code:
            log.error("the journal's writer process exited with status %d", code)
        if again:
            log.warning("%d write(s) it had not answered go to a new writer, to make unless stored", len(again))
        if failed or exc is not None or not (self.closing or again):
            _stopped(failed, exc)
        if not self.gone.done():
            self.gone.set_result(None)
        for item, done in again:  # in order, before any write made from now on
            self.writer._send(item, done, check=True)


def _reference(write: Callable[..., object]) -> str:
    """``MODULE:NAME`` of the function ``write``, for the writer process to import."""
    name = write.__qualname__
    if "." in name or "<" in name:
        raise ValueError(f"the writer process imports its write function by name; {name} is not a module's")
    return f"{write.__module__}:{name}"
