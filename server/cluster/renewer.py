"""`Renewer`: this process's lease renewals, on a thread of their own, so that a busy event loop
cannot starve them.

The thread has its own event loop and its own connection to the database (a plain asyncpg one: no
pool, no transaction, one round trip a renewal), so neither a loop stalled by CPU-bound work (a
garbage collection, a burst of moves, a takeover of many tables) nor a pool busy with the journal's
writes delays a renewal. It renews the leases of the tables the event loop last said it holds
(`beat`, a snapshot taken by the loop, never read from under it).

A thread that renewed whatever the loop did would hold the tables of a process whose loop is stuck
for good (a deadlock, an endless computation) hostage. So the loop beats every `BEAT` seconds, and
no lease is renewed past `SILENCE` seconds after the loop's last beat: each renewal grants at most
what is left of that bound (and never more than the lease, `TTL`). A loop silent longer than
`SILENCE` has its leases run out then, and the other processes take its tables over as they take a
dead process's. A stopped process (SIGSTOP, a frozen VM) stops this thread too: its leases run out
`TTL` after their last renewal, as before.

A slow renewal is not a failed one: a distant database answers each one a round trip later, and the
loop judges by when the leases run out (`Renewal.until`, server/cluster/node.py), not by how long a
renewal took. Renewals keep the leases while each is answered within `IN_TIME` (1.75 s: the next one
then lands a tick before the lease runs out); one slower than that, or one that failed, puts them
`behind` until `IN_A_ROW` are in time again, and meanwhile the process takes no table (`lagging`).
A renewal that has not answered within a lease (`ANSWER_WITHIN`) has failed (every lease it renews
may have run out meanwhile): its connection is cut, never reused with a statement abandoned on it,
and the next renewal opens a new one.

The fencing token (server/cluster/leases.py) is untouched by all this: a renewal only moves a
lease's expiry, for rows this process still owns, so a process whose lease ran out and was taken
over still cannot write to that table whatever this thread did.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta

import asyncpg
from sqlalchemy.engine import make_url

from server.cluster.leases import PROBE, RENEW, TICK, TTL
from server.store.session import postgresql_options

__all__ = ["ANSWER_WITHIN", "BEAT", "EVERY", "IN_A_ROW", "IN_TIME", "SILENCE", "Renewal", "Renewer"]

BEAT = 0.25  # seconds between two beats of the event loop
EVERY = 0.5  # seconds between two renewals (from the end of one to the start of the next)
SILENCE = 7.5  # seconds after the loop's last beat past which no lease is renewed: a loop silent this
#   long is stuck, not busy (a long collection takes well under a second). With the 5 s lease, a
#   stall of up to about 6.5 s costs no table; the tables of a loop stuck for good play elsewhere
#   about 9-10 s after it stopped (docs/deploy.md, "What a host should expect").
ANSWER_WITHIN = TTL  # seconds a renewal may take before it has failed: a whole lease
IN_TIME = (TTL - TICK - EVERY) / 2  # seconds a renewal may take and keep the leases: the next one, sent
#   `EVERY` s after its answer and as slow, is answered a tick before the lease it renewed runs out.
#   A round trip to the database longer than this (1.75 s) cannot keep a lease.
IN_A_ROW = 3  # renewals answered in time, one after another, after which a process that fell behind
#   keeps its leases again (and takes tables again)


@dataclass(frozen=True, slots=True)
class Renewal:
    """One renewal the thread made (or tried)."""

    started: float  # (monotonic) when it was sent
    asked: Mapping[str, int]  # the tables it renewed, with the lease tokens the loop held then
    held: frozenset[str] = frozenset()  # those still this process's (empty when it failed)
    until: float = 0.0  # (monotonic) the leases it renewed hold at least until then
    failed: bool = False


@dataclass(slots=True)
class _Said:
    """What the loop last said (under the renewer's lock)."""

    beat: float
    tables: dict[str, int] = field(default_factory=dict)


class Renewer:
    """Renews the leases of process ``owner`` on the database at ``url`` from a thread of its own."""

    def __init__(
        self,
        url: str,
        owner: str,
        *,
        ttl: float = TTL,
        every: float = EVERY,
        silence: float = SILENCE,
        answer_within: float = ANSWER_WITHIN,
    ) -> None:
        self.dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
        self.owner = owner
        self.ttl, self.every, self.silence, self.answer_within = ttl, every, silence, answer_within
        self._lock = threading.Lock()
        self._said = _Said(time.monotonic())
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._connection: asyncpg.Connection | None = None
        self.last: Renewal | None = None  # the latest renewal, done or failed
        self.good: Renewal | None = None  # the latest that succeeded
        self.asking: float | None = None  # (monotonic) when the renewal under way began; None between two
        self.sent: float | None = None  # (monotonic) when its statement was sent (after connecting, if need be)
        self.behind: str | None = None  # why the renewals fell behind (a failure, one too slow), until IN_A_ROW in time
        self._in_time = 0  # renewals answered within IN_TIME since the last that was not

    # ------------------------------------------------------------ the event loop's side
    def beat(self, tables: Mapping[str, int]) -> None:
        """The loop is alive and holds ``tables`` (id: lease token); called by the loop only."""
        snapshot = dict(tables)
        with self._lock:
            self._said = _Said(time.monotonic(), snapshot)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._main, name="sparrow-lease-renewer", daemon=True)
        self._thread.start()

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    async def stop(self) -> None:
        """Stop renewing (once a renewal under way, if any, is done)."""
        self._stopping.set()
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join)

    # ---------------------------------------------------------------- the thread's side
    def _main(self) -> None:
        asyncio.run(self._run())

    def lagging(self, now: float) -> str | None:
        """Why the renewals do not keep this process's leases just now (they failed, or take longer
        than `IN_TIME`, or the thread stopped), or None while they do, or before anything is known."""
        if self._thread is not None and not self._thread.is_alive() and not self._stopping.is_set():
            return "the renewer stopped"
        sent = self.sent
        if sent is not None and now - sent > IN_TIME:
            return f"a renewal has waited {now - sent:.1f} s for its answer; {IN_TIME:g} s at most keeps a lease"
        return self.behind

    async def _run(self) -> None:
        try:
            while not self._stopping.is_set():
                with contextlib.suppress(Exception):  # (`behind` says why, and the loop says it once)
                    await self._renew()
                await asyncio.sleep(self.every)
        finally:
            if self._connection is not None:
                self._connection.terminate()

    async def _renew(self) -> None:
        with self._lock:
            said = self._said
        started = time.monotonic()
        grant = min(self.ttl, self.silence - (started - said.beat))
        if grant <= 0:
            return  # the loop has been silent too long: its leases run out
        self.asking = started
        try:
            if said.tables:
                rows = await self._answer(RENEW, self.owner, list(said.tables), timedelta(seconds=grant))
                held = {row[0] for row in rows}
            else:
                await self._answer(PROBE)
                held = set()
        except BaseException as exc:
            self.last = Renewal(started, said.tables, failed=True)
            self.behind = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]
            self._in_time = 0
            raise
        else:
            self.last = self.good = Renewal(started, said.tables, frozenset(held), started + grant)
            took = time.monotonic() - (self.sent or started)  # (a new connection's own round trips aside)
            if took > IN_TIME:
                self.behind = f"a renewal took {took:.1f} s; {IN_TIME:g} s at most keeps a lease"
                self._in_time = 0
            else:
                self._in_time += 1
                if self._in_time >= IN_A_ROW:
                    self.behind = None
        finally:
            self.asking = self.sent = None

    async def _answer(self, sql: str, *args: object) -> list[asyncpg.Record]:
        """``sql``'s rows, on this thread's connection (opened first if need be, within
        `answer_within` seconds). An answer that does not come within `answer_within` seconds is a
        `TimeoutError`, and the connection is cut rather than left with a statement under way; a
        connection that failed in any other way than the database refusing the statement (a lock
        waited out, a read-only database) is dropped too. A new one serves the next renewal."""
        if self._connection is None or self._connection.is_closed():
            options = {**postgresql_options(), "timeout": self.answer_within}
            self._connection = await asyncpg.connect(self.dsn, **options)
        connection = self._connection
        self.sent = time.monotonic()
        cut = asyncio.get_running_loop().call_later(self.answer_within, connection.terminate)
        try:
            rows: list[asyncpg.Record] = await connection.fetch(sql, *args)
            return rows
        except Exception as exc:
            if connection.is_closed() or not isinstance(exc, asyncpg.PostgresError):
                connection.terminate()
                self._connection = None
            if not cut.when() > asyncio.get_running_loop().time():
                raise TimeoutError(f"the database did not answer within {self.answer_within:g} s") from None
            raise
        finally:
            cut.cancel()
