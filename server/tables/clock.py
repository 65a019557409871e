"""Time for the tables: the real clock, and a fake one that tests move by hand.

Timers never run table code themselves: a firing only posts a message to the table's inbox
(ARCHITECTURE lesson 7), so the actor still handles one thing at a time.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable
from typing import Protocol

__all__ = ["Clock", "FakeClock", "RealClock", "Timer"]


class Timer(Protocol):
    """A scheduled callback that can be cancelled."""

    def cancel(self) -> None:
        """Stop the callback from running; harmless after it ran."""


class Clock(Protocol):
    """Wall-clock time in seconds since the epoch, and callbacks at absolute times."""

    def now(self) -> float:
        """The current time."""

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        """Run ``callback`` (which must not block) at ``when``, or soon if that has passed."""


class RealClock:
    """``time.time`` and the running event loop."""

    def now(self) -> float:
        """The current time."""
        return time.time()

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        """Run ``callback`` on the event loop at ``when``."""
        return asyncio.get_running_loop().call_later(max(0.0, when - time.time()), callback)


class _FakeTimer:
    __slots__ = ("cancelled",)

    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """A clock that stands still until :meth:`advance` moves it; due callbacks then run in order."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self._now = start
        self._queue: list[tuple[float, int, _FakeTimer, Callable[[], None]]] = []
        self._order = itertools.count()

    def now(self) -> float:
        """The current (fake) time."""
        return self._now

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        """Queue ``callback`` for ``when``."""
        timer = _FakeTimer()
        heapq.heappush(self._queue, (when, next(self._order), timer, callback))
        return timer

    def pending(self) -> int:
        """How many callbacks are waiting (cancelled ones excluded)."""
        return sum(1 for _, _, timer, _ in self._queue if not timer.cancelled)

    def next_due(self) -> float | None:
        """When the next live callback is due, or None."""
        live = [when for when, _, timer, _ in self._queue if not timer.cancelled]
        return min(live) if live else None

    def advance(self, seconds: float = 0.0) -> int:
        """Move time forward and run every callback now due; returns how many ran."""
        self._now += seconds
        ran = 0
        while self._queue and self._queue[0][0] <= self._now:
            _, _, timer, callback = heapq.heappop(self._queue)
            if not timer.cancelled:
                timer.cancelled = True
                callback()
                ran += 1
        return ran
