"""The server's collector schedule (server/collector.py): survivors are frozen out of the collector's
sight, garbage cycles are still freed at each thaw, and cancelling leaves nothing frozen.
"""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest

from server.collector import tame


class _Node:
    other: object = None


@pytest.mark.asyncio
async def test_frozen_cycles_are_freed_at_the_next_thaw_and_cancel_unfreezes() -> None:
    task = asyncio.create_task(tame(freeze_every=0.01, thaw_every=0.2))
    try:
        await asyncio.sleep(0.03)
        assert gc.get_freeze_count() > 0  # long-lived objects are out of the collector's sight
        a, b = _Node(), _Node()
        a.other, b.other = b, a  # a cycle: reference counting alone never frees it
        gone = weakref.ref(a)
        del a, b
        await asyncio.sleep(0.03)  # frozen with everything else
        gc.collect()
        assert gone() is not None  # a collection does not see frozen objects
        await asyncio.sleep(0.3)  # a thaw: everything is collected once, then frozen again
        assert gone() is None
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert gc.get_freeze_count() == 0


@pytest.mark.asyncio
async def test_what_survives_a_young_collection_is_frozen_at_once() -> None:
    # The middle generation's passes walked a second of survivors again and again (70–85 ms pauses at
    # 1,000 tables): a survivor of any collection is now out of the collector's sight straight away.
    task = asyncio.create_task(tame(freeze_every=60, thaw_every=600))
    try:
        await asyncio.sleep(0)  # tame has frozen the heap and hooked the collector
        survivor = [_Node()]
        assert any(o is survivor for o in gc.get_objects(0))  # young: the next collection walks it
        gc.collect(0)
        assert not any(o is survivor for g in range(3) for o in gc.get_objects(g))  # frozen, walked no more
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    gc.collect(0)  # without tame, a survivor moves on to the middle generation as usual
    later = [_Node()]
    gc.collect(0)
    assert any(o is later for o in gc.get_objects(1))
