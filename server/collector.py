"""The garbage collector's schedule in a long-running server process.

A collection walks every object of the generations it collects, and no table moves while it runs.
With 1,000 live tables the heap holds over a million tracked objects — sockets, tasks, tables and
the last state document each connection was sent — and a full pass takes most of a second. Almost
none of them is ever cyclic garbage: reference counting frees them. Measured at 1,000 tables
(docs/benchmarks.md, "The collector"), steady play makes no cyclic garbage at all; the collections
found some only while tables were being set up.

So `tame` takes every object that survives a young collection out of the collector's sight at once
(`gc.freeze`, from a `gc.callbacks` hook): each object is walked at most once, by the youngest
generation, and the middle generation's passes, which walked a second of survivors again and again
(70–85 ms pauses at 1,000 tables), find almost nothing to walk. A freeze costs nothing: it moves one
list. Everything is also frozen every ``freeze_every`` seconds, 50 times a second: a young pass
starts when allocations exceed deallocations by 700, and in steady play they hardly do, as each
connection's new document replaces its last (frozen) one. So the young generation kept every
survivor until the next freeze, and its rare passes walked them all: once a second at 1,000 tables
that was up to 50 ms with no table moving, and 6 s of CPU in a two-minute run (docs/benchmarks.md,
"The collector"). Frozen every 20 ms, it holds 20 ms of survivors at most. Cyclic garbage that was frozen
waits until the next thaw: every 15 minutes everything is handed back and collected in one pass, so
memory stays bounded and that pause comes four times an hour.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from typing import Any

__all__ = ["tame"]

log = logging.getLogger(__name__)

FREEZE_EVERY = 0.02
THAW_EVERY = 900.0


def _freeze_survivors(phase: str, info: dict[str, Any]) -> None:
    """A `gc.callbacks` hook: what survived the collection just made is frozen."""
    if phase == "stop":
        gc.freeze()


async def tame(freeze_every: float = FREEZE_EVERY, thaw_every: float = THAW_EVERY) -> None:
    """Freeze the survivors of every collection and the whole heap every ``freeze_every`` seconds, and
    collect it whole every ``thaw_every``; runs until cancelled (then everything is unfrozen again).
    """
    loop = asyncio.get_running_loop()
    gc.freeze()
    gc.callbacks.append(_freeze_survivors)
    thawed = loop.time()
    try:
        while True:
            await asyncio.sleep(freeze_every)
            if loop.time() - thawed < thaw_every:
                gc.freeze()
                continue
            started = time.perf_counter()
            gc.unfreeze()
            found = gc.collect()  # (frozen again by the hook when it stops)
            thawed = loop.time()
            log.info("full collection: %d unreachable objects, %.0f ms", found, (time.perf_counter() - started) * 1000)
    finally:
        gc.callbacks.remove(_freeze_survivors)
        gc.unfreeze()
