"""The server's collector schedule (server/collector.py): survivors are frozen out of the collector's
sight, garbage cycles are still freed at each thaw, and cancelling leaves nothing frozen.
"""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Callable

import pytest

from server.collector import tame


class _Node:
    other: object = None


def _cycle() -> weakref.ref[_Node]:
    a, b = _Node(), _Node()
    a.other, b.other = b, a  # a cycle: reference counting alone never frees it
    return weakref.ref(a)


async def _until(condition: Callable[[], bool], what: str) -> None:
    for _ in range(1000):  # (a loaded machine stretches the schedule's sleeps: wait, up to 5 s)
        if condition():
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"timed out waiting until {what}")


@pytest.mark.asyncio
async def test_frozen_cycles_are_out_of_the_collectors_sight_and_cancel_unfreezes() -> None:
    task = asyncio.create_task(tame(freeze_every=0.01, thaw_every=3600))  # no thaw during the test
    try:
        await asyncio.sleep(0)
        before = gc.get_freeze_count()
        assert before > 0  # long-lived objects are out of the collector's sight
        gone = _cycle()
        await _until(lambda: gc.get_freeze_count() >= before + 2, "the cycle is frozen")
        gc.collect()
        assert gone() is not None  # a collection does not see frozen objects
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert gone() is None  # unfrozen, it is garbage like any other


@pytest.mark.asyncio
async def test_frozen_cycles_are_freed_at_the_next_thaw() -> None:
    gc.disable()  # no automatic collection: only the thaw's own can free the cycle
    task = asyncio.create_task(tame(freeze_every=0.01, thaw_every=0.2))
    try:
        gone = _cycle()
        await _until(lambda: gone() is None, "a thaw collects the cycle")
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        gc.enable()


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


@pytest.mark.asyncio
async def test_the_young_generation_never_holds_more_than_a_moment_of_survivors() -> None:
    # In steady play each connection's new document replaces its last, frozen one: allocations hardly
    # outrun deallocations, so young passes are rare, and every survivor waits in the young
    # generation for the next freeze. One pass then walked up to a second of them (up to 50 ms with
    # no table moving, at 1,000 tables). Here no young pass starts at all (the threshold is out of
    # reach), so only the freezes keep the young generation small.
    thresholds = gc.get_threshold()
    gc.set_threshold(10**9, *thresholds[1:])
    task = asyncio.create_task(tame())
    try:
        last = [{"seat": i, "tiles": [i]} for i in range(20_000)]  # each connection's last document
        await asyncio.sleep(0.1)  # frozen by now
        made, most_young = 0, 0
        loop = asyncio.get_running_loop()
        until = loop.time() + 0.3
        while loop.time() < until:
            for _ in range(50):
                last[made % len(last)] = {"seat": made, "tiles": [made]}  # a new one; the old one dies
                made += 1
            most_young = max(most_young, len(gc.get_objects(0)))
            await asyncio.sleep(0.001)
        assert made > 2_000
        # Two tracked objects per document: with a freeze every second the young generation would end
        # up holding every document made in these 0.3 s.
        assert most_young < made / 2
    finally:
        gc.set_threshold(*thresholds)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
