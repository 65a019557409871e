"""The garbage collector's schedule in a long-running server process.

A full (oldest-generation) collection walks every object the collector tracks, and no table moves
while it runs. With 1,000 live tables that is over a million objects — sockets, tasks, tables and
the last state document each connection was sent — and a pass takes most of a second, every 10–30 s
(docs/benchmarks.md, "Where the server's time goes"). Almost all of those objects live long and
hold no garbage cycles: reference counting frees them.

So every second `tame` moves everything that survived so far out of the collector's sight
(`gc.freeze`); young objects are still collected as usual. The period is short because most of what
a busy server allocates lives about a second — the documents each seat was last sent, the futures a
socket waits on — and every older collection that walks them costs a pause: with a 10 s period the
middle and oldest generations took 100–300 ms a pass at 1,000 tables, with 1 s under 100 ms, and
freezing costs nothing (it moves one list). Cyclic garbage that was frozen waits
until the next thaw: every 15 minutes everything is handed back and collected in one pass, so memory
stays bounded and that pause comes four times an hour instead of several times a minute.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

__all__ = ["tame"]

log = logging.getLogger(__name__)

FREEZE_EVERY = 1.0
THAW_EVERY = 900.0


async def tame(freeze_every: float = FREEZE_EVERY, thaw_every: float = THAW_EVERY) -> None:
    """Freeze the heap every ``freeze_every`` seconds and collect it whole every ``thaw_every``; runs
    until cancelled (then everything is unfrozen again).
    """
    loop = asyncio.get_running_loop()
    gc.freeze()
    thawed = loop.time()
    try:
        while True:
            await asyncio.sleep(freeze_every)
            if loop.time() - thawed < thaw_every:
                gc.freeze()
                continue
            started = time.perf_counter()
            gc.unfreeze()
            found = gc.collect()
            gc.freeze()
            thawed = loop.time()
            log.info("full collection: %d unreachable objects, %.0f ms", found, (time.perf_counter() - started) * 1000)
    finally:
        gc.unfreeze()
