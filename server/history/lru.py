"""A bounded in-process cache of byte strings, least recently used forgotten first: what the history
keeps of replays it has computed (server/history/replay.py, routes.py), bounded by their size.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

__all__ = ["ByteLru"]

K = TypeVar("K", bound=Hashable)


class ByteLru(Generic[K]):
    """Values of at most ``limit`` bytes in all (keys and bookkeeping not counted); a value larger
    than ``limit`` is not kept. Not thread-safe: used from the event loop only."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0  # bytes held
        self._values: OrderedDict[K, bytes] = OrderedDict()

    def __len__(self) -> int:
        return len(self._values)

    def get(self, key: K) -> bytes | None:
        """The value of ``key`` (now the most recently used), or None."""
        value = self._values.get(key)
        if value is not None:
            self._values.move_to_end(key)
        return value

    def put(self, key: K, value: bytes) -> None:
        """Keep ``value`` for ``key``, forgetting the least recently used values until all fit."""
        old = self._values.pop(key, None)
        if old is not None:
            self.size -= len(old)
        if len(value) > self.limit:
            return
        self._values[key] = value
        self.size += len(value)
        while self.size > self.limit:
            _, dropped = self._values.popitem(last=False)
            self.size -= len(dropped)
