"""`Renewer`: this process's lease renewals, on a thread of their own, so that a busy event loop
cannot starve them.

The thread has its own event loop and its own connection to the database, so neither a loop
stalled by CPU-bound work (a garbage collection, a burst of moves, a takeover of many tables) nor a
pool busy with the journal's writes delays a renewal. It renews the leases of the tables the event
loop last said it holds (`beat`, a snapshot taken by the loop, never read from under it).

A thread that renewed whatever the loop did would hold the tables of a process whose loop is stuck
for good (a deadlock, an endless computation) hostage. So the loop beats every `BEAT` seconds, and
no lease is renewed past `SILENCE` seconds after the loop's last beat: each renewal grants at most
what is left of that bound (and never more than the lease, `TTL`). A loop silent longer than
`SILENCE` has its leases run out then, and the other processes take its tables over as they take a
dead process's. A stopped process (SIGSTOP, a frozen VM) stops this thread too: its leases run out
`TTL` after their last renewal, as before.

The fencing token (server/cluster/leases.py) is untouched by all this: a renewal only moves a
lease's expiry, for rows this process still owns, so a process whose lease ran out and was taken
over still cannot write to that table whatever this thread did.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from server.cluster.leases import TICK, TTL, Leases
from server.store.session import make_engine

__all__ = ["BEAT", "EVERY", "SILENCE", "Renewal", "Renewer"]

BEAT = 0.25  # seconds between two beats of the event loop
EVERY = 0.5  # seconds between two renewals
SILENCE = 7.5  # seconds after the loop's last beat past which no lease is renewed: a loop silent this
#   long is stuck, not busy (a long collection takes well under a second). With the 5 s lease, a
#   stall of up to about 6.5 s costs no table; the tables of a loop stuck for good play elsewhere
#   about 9-10 s after it stopped (docs/deploy.md, "What a host should expect").
ANSWER_WITHIN = 2 * TICK  # seconds a renewal may take: a database that does not answer has failed
log = logging.getLogger("sparrow.cluster")


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
        self, url: str, owner: str, *, ttl: float = TTL, every: float = EVERY, silence: float = SILENCE
    ) -> None:
        self.url, self.owner = url, owner
        self.ttl, self.every, self.silence = ttl, every, silence
        self._lock = threading.Lock()
        self._said = _Said(time.monotonic())
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.last: Renewal | None = None  # the latest renewal, done or failed
        self.good: Renewal | None = None  # the latest that succeeded

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

    async def _run(self) -> None:
        engine = make_engine(self.url, pool_size=1, max_overflow=1)
        leases = Leases(engine, self.owner, ttl=self.ttl)
        failing = False
        try:
            while not self._stopping.is_set():
                try:
                    await self._renew(leases)
                    if failing:
                        log.warning("cluster: the leases are renewed again")
                    failing = False
                except Exception as exc:
                    if not failing:  # said once, not twice a second until the database is back
                        log.error("cluster: renewing the leases failed (%s: %s); trying again", type(exc).__name__, exc)
                    failing = True
                await asyncio.sleep(self.every)
        finally:
            await engine.dispose()

    async def _renew(self, leases: Leases) -> None:
        with self._lock:
            said = self._said
        started = time.monotonic()
        grant = min(self.ttl, self.silence - (started - said.beat))
        if grant <= 0:
            return  # the loop has been silent too long: its leases run out
        try:
            if said.tables:
                held = await asyncio.wait_for(leases.renew(said.tables, ttl=grant), ANSWER_WITHIN)
            else:  # a write all the same: it tells the loop the database writes (/healthz)
                await asyncio.wait_for(leases.probe(), ANSWER_WITHIN)
                held = set()
        except BaseException:
            self.last = Renewal(started, said.tables, failed=True)
            raise
        self.last = self.good = Renewal(started, said.tables, frozenset(held), started + grant)
