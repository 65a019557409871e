"""The server's garbage collector (server/collector.py): Python's own schedule, with what start-up built
frozen once, and every pause measured. Nothing made after start-up waits for a thaw to be collected.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from server import metrics
from server.collector import settle, watch_pauses


class _Node:
    other: object = None


def _cycle() -> weakref.ref[_Node]:
    a, b = _Node(), _Node()
    a.other, b.other = b, a  # a cycle: reference counting alone never frees it
    return weakref.ref(a)


@pytest.fixture
def settled() -> Iterator[weakref.ref[_Node]]:
    """`settle` done; a cycle made just before it."""
    before = _cycle()
    settle()
    try:
        yield before
    finally:
        gc.unfreeze()


def _pauses(generation: int) -> float:
    value = metrics.REGISTRY.get_sample_value("sparrow_gc_pause_seconds_count", {"generation": str(generation)})
    return value or 0.0


def test_settle_freezes_what_start_up_built_and_collects_its_garbage_first(settled: weakref.ref[_Node]) -> None:
    assert gc.get_freeze_count() > 0  # start-up's heap is out of the collector's sight
    assert settled() is None  # start-up's garbage was collected, not frozen with the rest
    assert gc.isenabled()


def test_a_cycle_made_after_start_up_is_freed_by_the_next_young_collection(settled: weakref.ref[_Node]) -> None:
    frozen = gc.get_freeze_count()
    gone = _cycle()
    gc.collect(0)  # what the collector runs on its own every few hundred allocations
    assert gone() is None
    assert gc.get_freeze_count() == frozen  # nothing else is ever frozen: no thaw to wait for


def test_every_collection_is_timed_by_generation() -> None:
    watch_pauses()
    try:
        before = [_pauses(g) for g in range(3)]
        gc.collect(0)
        gc.collect(2)
        assert _pauses(0) == before[0] + 1 and _pauses(2) == before[2] + 1
    finally:
        watch_pauses(False)
    gc.collect(0)
    assert _pauses(0) == before[0] + 1  # stopped
