"""`Rates`: the counts behind `Limits`, kept by the `limits` library in a storage every process of
the club shares (Redis when several processes serve it, this process's memory otherwise).

Rates use the moving window: a visitor who made ``N`` hits within the window may make the next when
the oldest leaves it. Each rate counts apart, by its name (two limits set to one rate, say
handshakes and requests both "3/hour", are still two counts). Live sockets are a counter raised on
open and lowered on close. When the storage cannot be reached, nothing is refused (one warning is
logged): a visitor is never refused for the server's own trouble.
"""

from __future__ import annotations

import logging
import math
import time

from limits import RateLimitItem
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.errors import StorageError

from server.rates.addresses import address_key
from server.rates.policy import Limits

__all__ = ["Rates", "SOCKETS_TTL", "storage_for"]

log = logging.getLogger("sparrow.rates")

# A visitor's count of live sockets is forgotten this long after their first socket opened, in case a
# process died without closing its sockets (a graceful stop closes them). Longer than a club's night.
SOCKETS_TTL = 12 * 3600


def storage_for(redis: str | None, prefix: str = "sparrow:") -> Storage:
    """The storage for ``redis`` (a ``redis://`` URL; keys start with ``prefix``), else memory."""
    if redis is None:
        return MemoryStorage()
    return RedisStorage(
        f"async+{redis}",
        implementation="redispy",
        key_prefix=f"{prefix}limits",
        wrap_exceptions=True,
        socket_timeout=2.0,  # a Redis that hangs must not hold every request: past this, nothing is refused
        socket_connect_timeout=2.0,
    )


class Rates:
    """Counts hits against the rates of ``limits`` (a `Limits`), and live sockets, in ``storage``."""

    def __init__(self, limits: Limits | None = None, storage: Storage | None = None) -> None:
        self.limits = self.base = limits or Limits()  # (base: as `sparrow serve --limit` set them)
        self.storage = storage if storage is not None else MemoryStorage()
        self._limiter = MovingWindowRateLimiter(self.storage)
        self._trouble = False
        self._items: dict[str, RateLimitItem | None] = {}  # (parsing a rate costs more than counting it)

    def _item(self, rate: str) -> RateLimitItem | None:
        try:
            return self._items[rate]
        except KeyError:
            item = self._items[rate] = self.limits.item(rate)
            return item

    def adjust(self, values: dict[str, object]) -> None:
        """Count with the base limits changed by ``values`` (the admin's, `Limits.with_values`)."""
        limits = self.base.with_values(values)
        if limits != self.limits:
            self.limits = limits
            self._items.clear()

    def address(self, host: str | None) -> str:
        """Whom per-address limits count ``host`` as (`address_key`, with the IPv6 prefix as set now)."""
        return address_key(host, self.limits.ipv6_prefix)

    async def hit(self, rate: str, *who: str) -> float:
        """Count one hit of ``who`` against the rate named ``rate`` (a `Limits` field): 0 if it is
        allowed, else the seconds until it would be (the hit is then not counted)."""
        item = self._item(rate)
        if item is None:
            return 0.0
        try:
            if await self._limiter.hit(item, rate, *who):
                return self._fine()
            return await self._wait(rate, *who)
        except StorageError as exc:
            return self._failed(exc)

    async def wait(self, rate: str, *who: str) -> float:
        """The seconds until ``who`` may hit ``rate`` again (0: now), counting nothing."""
        item = self._item(rate)
        if item is None:
            return 0.0
        try:
            if await self._limiter.test(item, rate, *who):
                return self._fine()
            return await self._wait(rate, *who)
        except StorageError as exc:
            return self._failed(exc)

    async def spent(self, rate: str, *who: str) -> bool:
        """Whether ``who`` has no hit of ``rate`` left (the last one took the last)."""
        item = self._item(rate)
        if item is None:
            return False
        try:
            return (await self._limiter.get_window_stats(item, rate, *who)).remaining <= 0
        except StorageError as exc:
            self._failed(exc)
            return False

    async def counted(self, rate: str, *who: str) -> int:
        """How many hits of ``who`` the window of ``rate`` holds now."""
        item = self._item(rate)
        if item is None:
            return 0
        try:
            return item.amount - (await self._limiter.get_window_stats(item, rate, *who)).remaining
        except StorageError as exc:
            self._failed(exc)
            return 0

    async def clear(self, rate: str, *who: str) -> None:
        """Forget ``who``'s hits of ``rate``."""
        item = self._item(rate)
        if item is None:
            return
        try:
            await self._limiter.clear(item, rate, *who)
        except StorageError as exc:
            self._failed(exc)

    async def open_socket(self, who: str) -> bool:
        """Count a socket of ``who`` opening; False (nothing counted) when they have `Limits.sockets`."""
        key, most = f"sockets/{who}", self.limits.sockets
        if most is None:
            return True
        try:
            if await self.storage.incr(key, SOCKETS_TTL) <= most:
                return self._fine() == 0
            await self.storage.incr(key, SOCKETS_TTL, amount=-1)
            return False
        except StorageError as exc:
            self._failed(exc)
            return True

    async def close_socket(self, who: str) -> None:
        """Count a socket of ``who`` closing (one that `open_socket` let open)."""
        key = f"sockets/{who}"
        if self.limits.sockets is None:
            return
        try:
            if await self.storage.incr(key, SOCKETS_TTL, amount=-1) <= 0:
                await self.storage.clear(key)  # (below 0 once the count expired under live sockets)
        except StorageError as exc:
            self._failed(exc)

    async def sockets(self, who: str) -> int:
        """How many live sockets ``who`` has, as counted."""
        try:
            return max(0, await self.storage.get(f"sockets/{who}"))
        except StorageError as exc:
            self._failed(exc)
            return 0

    async def close(self) -> None:
        """Let go of the storage's connections (Redis's)."""
        if isinstance(self.storage, RedisStorage):
            client = getattr(getattr(self.storage, "bridge", None), "storage", None)  # (limits offers no close)
            if client is not None:
                await client.aclose()

    async def _wait(self, rate: str, *who: str) -> float:
        item = self._item(rate)
        assert item is not None
        stats = await self._limiter.get_window_stats(item, rate, *who)
        return max(1.0, math.ceil(stats.reset_time - time.time()))

    def _fine(self) -> float:
        if self._trouble:
            log.warning("the limits' storage answers again")
            self._trouble = False
        return 0.0

    def _failed(self, exc: StorageError) -> float:
        if not self._trouble:
            log.warning("the limits' storage cannot be reached (%s): nothing is refused until it is", exc)
            self._trouble = True
        return 0.0
