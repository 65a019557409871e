"""The garbage collector in a long-running server process: Python's own, with what start-up built set
aside, and each pause it makes measured.

Sockets, tables and the documents each connection was sent are freed by reference counting the moment
they are gone: nothing of a connection, accepted or refused, waits in a reference cycle for the
collector (tests/server/test_memory.py). What the collector still finds is the occasional cycle that
a library makes, and it finds it on its own schedule, which this module leaves as Python sets it but
for one step: `settle`, once the server has started, collects once and freezes the heap start-up
built (modules, the engine's lookup tables, the restored tables' settings), which is never garbage,
so that no pass walks it again. Everything made later is collected as usual: nothing is left
uncollected for minutes.

`watch_pauses` times every collection into ``sparrow_gc_pause_seconds{generation}`` (server.metrics):
at a few hundred live tables the oldest generation's pass is the longest pause the server makes
(docs/benchmarks.md, "The collector").
"""

from __future__ import annotations

import gc
import time
from typing import Any

from server import metrics

__all__ = ["settle", "watch_pauses"]

_started: list[float] = []


def settle() -> None:
    """After start-up: collect what start-up left, then freeze the rest out of the collector's sight."""
    gc.collect()
    gc.freeze()


def _time(phase: str, info: dict[str, Any]) -> None:
    """A `gc.callbacks` hook: each collection's pause goes to the histogram of its generation."""
    if phase == "start":
        _started.append(time.perf_counter())
    elif _started:
        metrics.GC_PAUSE.labels(str(info["generation"])).observe(time.perf_counter() - _started.pop())


def watch_pauses(on: bool = True) -> None:
    """Start (or, with ``on=False``, stop) timing every collection."""
    if on and _time not in gc.callbacks:
        gc.callbacks.append(_time)
    elif not on and _time in gc.callbacks:
        gc.callbacks.remove(_time)
        _started.clear()
