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
- A write whose caller was cancelled before its batch began is not written.
- At most one writer task (hence one connection writing) at a time. It starts on the first
  `submit` and ends when nothing is waiting; the next `submit` starts a new one. If it dies of
  something unexpected, every write it held or that was waiting fails with `WriterError`.
- After `close`, which waits for everything submitted to be written, `submit` raises
  `WriterError`.

On a SQLite file the writer is a thread of its own, with its own connection, that takes the next
batch as soon as it has committed one and tells the event loop each batch's outcome without
waiting for it. Driving each batch from the event loop instead cost a hand-off to the thread and
one back per batch; on a busy loop the way back waits for the loop's turn, and the database sat
idle meanwhile: at 1,000 tables that was 40 % of the writer's time (docs/benchmarks.md). Any
other database is written from a task on the event loop through its async driver.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Generic, TypeVar

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine

from server.store.session import sqlite_writer_engine

__all__ = ["BATCH_CAP", "GroupWriter", "WriterError"]

BATCH_CAP = 500
log = logging.getLogger("sparrow.store")

T = TypeVar("T")
Waiting = tuple[T, "asyncio.Future[None]"]
Transact = Callable[[Sequence[T]], Awaitable[None]]  # makes one transaction of the writes given
Outcome = tuple["asyncio.Future[None]", BaseException | None]  # a caller, and what to tell it (None: done)


class WriterError(RuntimeError):
    """The write was not made: the writer is closed, or it stopped on an unexpected error."""


class GroupWriter(Generic[T]):
    """Writes items with ``write(connection, items)`` in shared transactions on ``engine``."""

    def __init__(
        self,
        engine: AsyncEngine,
        write: Callable[[Connection, Sequence[T]], None],
        *,
        cap: int = BATCH_CAP,
    ) -> None:
        if cap < 1:
            raise ValueError(f"a batch holds at least one write, not {cap!r}")
        self.engine = engine
        self.cap = cap
        self.commits = 0  # transactions committed (a batch, or one write of a failed batch)
        self.written = 0  # writes committed
        self._write = write
        self._waiting: deque[Waiting[T]] = deque()
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        # On a SQLite file the writes go through a plain engine from a thread of the writer's own.
        self._twin = sqlite_writer_engine(engine)
        self._thread: threading.Thread | None = None
        self._wake = threading.Event()  # set when there is work for the thread (or it should stop)
        self._lock = threading.Lock()  # between `submit` and a thread that is dying

    @property
    def committing_engine(self) -> Engine:
        """The (sync) engine whose connections commit the writes, e.g. to count its commits."""
        return self._twin if self._twin is not None else self.engine.sync_engine

    async def submit(self, item: T) -> None:
        """Write ``item``; returns once it is committed.

        :raises WriterError: when the writer is closed or stopped on an unexpected error.
        :raises Exception: whatever writing ``item`` alone, in its own transaction, raised.
        """
        if self._closed:
            raise WriterError("the journal is closed")
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        if self._twin is not None:
            with self._lock:  # so that the thread, once `close` has begun, sees every write before it
                if self._closed:
                    raise WriterError("the journal is closed")
                self._waiting.append((item, done))
                if self._thread is None:
                    self._thread = threading.Thread(target=self._serve, name="sparrow-journal", daemon=True)
                    self._thread.start()
            self._wake.set()
            await done
            return
        self._waiting.append((item, done))
        task = self._task
        if task is None or task.done() or task.get_loop() is not loop:
            self._task = loop.create_task(self._run(), name="sparrow-journal-writer")
        await done

    async def close(self) -> None:
        """Refuse new writes, and return once every write already submitted is committed (or failed)."""
        with self._lock:
            self._closed = True
            thread = self._thread
        task = self._task
        if task is not None and not task.done():
            await asyncio.wait({task})
        if thread is not None:
            self._wake.set()  # the thread writes what is waiting, then sees it is closed and ends
            await asyncio.to_thread(thread.join)
            await asyncio.sleep(0)  # the outcomes it reported last are delivered before this returns
        if self._twin is not None:
            self._twin.dispose()

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
            for _, done in lost:
                if not done.done():
                    error = WriterError("the journal's writer stopped before this was written")
                    error.__cause__ = exc
                    done.set_exception(error)
            if not isinstance(exc, Exception):
                raise  # cancelled, or the process is going down
            log.exception("the journal's writer stopped; %d write(s) failed", len(lost))

    # --------------------------------------------------------- SQLite: the thread
    def _serve(self) -> None:
        """The SQLite writer thread: commit batch after batch while writes wait; end on `close`."""
        assert self._twin is not None
        connection: Connection | None = None
        batch: list[Waiting[T]] = []
        try:
            while True:
                self._wake.wait()
                self._wake.clear()
                while batch := self._take():
                    if connection is None:
                        connection = self._twin.connect()
                    failed = self._commit_here(connection, batch)
                    _tell([(done, None) for _, done in batch] if failed is None else failed)
                    batch = []
                    if failed is not None:  # the next batch takes a fresh connection
                        with contextlib.suppress(Exception):
                            connection.close()
                        connection = None
                if self._closed and not self._waiting:
                    return
        except BaseException as exc:
            with self._lock:  # a `submit` from now on starts a new thread
                self._thread = None
                lost = [*batch, *self._waiting]
                self._waiting.clear()
            log.error("the journal's writer stopped; %d write(s) failed", len(lost), exc_info=exc)
            error = WriterError("the journal's writer stopped before this was written")
            error.__cause__ = exc
            _tell([(done, error) for _, done in lost])
        finally:
            if connection is not None:
                with contextlib.suppress(Exception):
                    connection.close()

    def _commit_here(self, connection: Connection, batch: list[Waiting[T]]) -> list[Outcome] | None:
        """`_commit` in the writer thread: None once ``batch`` is committed, else each caller's outcome
        (the writes were then tried one by one, each on a fresh connection).
        """
        try:
            self._transact(connection, [item for item, _ in batch])
        except Exception as exc:
            if len(batch) == 1:
                return [(batch[0][1], exc)]
            log.warning("a batch of %d writes failed (%r); writing them one by one", len(batch), exc)
            return self._one_by_one_here(batch)
        self._counted(batch)
        return None

    def _one_by_one_here(self, batch: list[Waiting[T]]) -> list[Outcome]:
        assert self._twin is not None
        outcomes: list[Outcome] = []
        for i, (item, done) in enumerate(batch):
            if done.cancelled():  # its caller gave up meanwhile
                continue
            try:
                with self._twin.connect() as connection:
                    self._transact(connection, [item])
            except Exception as exc:
                if not _about_the_database(exc):
                    outcomes.append((done, exc))
                    continue
                outcomes.extend((rest, exc) for _, rest in batch[i:])
                break
            else:
                self._counted([(item, done)])
                outcomes.append((done, None))
        return outcomes

    def _transact(self, connection: Connection, items: Sequence[T]) -> None:
        with connection.begin():
            self._write(connection, items)

    def _counted(self, batch: list[Waiting[T]]) -> None:
        self.commits += 1
        self.written += len(batch)

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
        return _async_transactions(self.engine, self._write)

    async def _commit(self, transact: Transact[T], batch: list[Waiting[T]]) -> bool:
        """Write ``batch`` in one transaction: True once committed (its callers are not told yet),
        False if it failed (each write has then been tried alone and its caller told).
        """
        try:
            await transact([item for item, _ in batch])
        except Exception as exc:
            if len(batch) == 1:
                _fail(batch[0][1], exc)
                return False
            log.warning("a batch of %d writes failed (%r); writing them one by one", len(batch), exc)
            await self._one_by_one(batch)
            return False
        return True

    async def _one_by_one(self, batch: list[Waiting[T]]) -> None:
        for i, (item, done) in enumerate(batch):
            if done.done():
                continue
            try:
                async with self._transactions() as transact:
                    await transact([item])
            except Exception as exc:
                if not _about_the_database(exc):
                    _fail(done, exc)
                    continue
                for _, rest in batch[i:]:
                    _fail(rest, exc)
                return
            else:
                self._committed([(item, done)])

    def _committed(self, batch: list[Waiting[T]]) -> None:
        self._counted(batch)
        for _, done in batch:
            if not done.done():
                done.set_result(None)


@contextlib.asynccontextmanager
async def _async_transactions(
    engine: AsyncEngine, write: Callable[[Connection, Sequence[T]], None]
) -> AsyncIterator[Transact[T]]:
    """Any other database: the async driver, with the sync write functions run through `run_sync`."""
    async with engine.connect() as connection:

        async def transact(items: Sequence[T]) -> None:
            async with connection.begin():
                await connection.run_sync(write, items)

        yield transact


def _about_the_database(exc: Exception) -> bool:
    """Whether ``exc`` says the database cannot write now, whatever the write."""
    if isinstance(exc, OperationalError | InterfaceError):
        return True
    return isinstance(exc, DBAPIError) and exc.connection_invalidated


def _tell(outcomes: list[Outcome]) -> None:
    """From the writer thread: have the callers' event loop resolve their futures with their outcomes,
    in one call per loop (a server has one), not one hand-over per caller.
    """
    by_loop: dict[asyncio.AbstractEventLoop, list[Outcome]] = {}
    for outcome in outcomes:
        by_loop.setdefault(outcome[0].get_loop(), []).append(outcome)
    for loop, theirs in by_loop.items():
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody is waiting any more
            loop.call_soon_threadsafe(_resolve, theirs)


def _resolve(outcomes: list[Outcome]) -> None:
    for done, exc in outcomes:
        if done.done():
            continue
        if exc is None:
            done.set_result(None)
        else:
            done.set_exception(exc)


def _fail(done: asyncio.Future[None], exc: Exception) -> None:
    if not done.done():
        done.set_exception(exc)
