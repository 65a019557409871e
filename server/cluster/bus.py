"""`Bus`: messages between the server processes of one club, over Redis pub/sub.

Each process listens on a channel of its own (``<prefix>proc:<id>``). A message is a list whose
first item says what it is (`server.cluster.node` reads them); what one process sends another in
one turn of its event loop goes as one Redis message, in order. Redis tells a sender how many
listeners a message reached: none means the process it was for is gone, and the sender is told
(``on_gone``), so that no socket waits for an answer that cannot come.

Pub/sub keeps nothing: a message to a process that is not listening is lost. Nothing relies on one
arriving: a call that gets no answer in time is refused ("try again"), and a socket whose table
moved is closed with 1012, so the browser reconnects to wherever the table now runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

import orjson
import redis.asyncio as aioredis

__all__ = ["Bus"]

log = logging.getLogger("sparrow.cluster")

Handler = Callable[[list[object]], None]


class Bus:
    """Process ``me``'s end of the bus on the Redis at ``url``; channel names start with ``prefix``."""

    def __init__(self, url: str, me: str, prefix: str, *, on_gone: Callable[[str], None] | None = None) -> None:
        self.redis = aioredis.from_url(url)
        self.me = me
        self.prefix = prefix
        self.on_gone = on_gone
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        self._outbox: dict[str, list[list[object]]] = {}
        self._flushing: asyncio.Task[None] | None = None
        self._listening: asyncio.Task[None] | None = None

    def channel(self, proc: str) -> str:
        """Where process ``proc`` listens."""
        return f"{self.prefix}proc:{proc}"

    async def start(self, handle: Handler) -> None:
        """Listen: ``handle`` gets each message sent to this process, in order.

        :raises redis.RedisError: when Redis cannot be reached.
        """
        await self.redis.ping()
        await self._pubsub.subscribe(self.channel(self.me))
        self._listening = asyncio.get_running_loop().create_task(self._listen(handle), name="cluster-bus")

    async def _listen(self, handle: Handler) -> None:
        while True:
            try:
                message = await self._pubsub.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the bus lost Redis; listening again in a second")
                await asyncio.sleep(1.0)
                continue
            if message is None or message.get("type") != "message":
                continue
            try:
                batch = orjson.loads(message["data"])
                for item in batch:
                    handle(item)
            except Exception:  # one bad message must not stop the process hearing the rest
                log.exception("the bus could not handle a message")

    def post(self, proc: str, item: list[object]) -> None:
        """Send ``item`` to process ``proc`` as this turn of the loop ends (never waits)."""
        self._outbox.setdefault(proc, []).append(item)
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.get_running_loop().create_task(self._flush())

    async def _flush(self) -> None:
        await asyncio.sleep(0)  # let the rest of this turn's frames join
        while self._outbox:
            proc, batch = next(iter(self._outbox.items()))
            del self._outbox[proc]
            if not await self._publish(proc, batch) and self.on_gone is not None:
                self.on_gone(proc)

    async def _publish(self, proc: str, batch: list[list[object]]) -> bool:
        try:
            heard = await self.redis.publish(self.channel(proc), orjson.dumps(batch))
        except Exception:
            log.exception("the bus could not reach Redis; %d message(s) to %s are lost", len(batch), proc)
            return False
        return bool(heard)

    async def alive(self, procs: list[str]) -> set[str]:
        """Which of ``procs`` are listening."""
        if not procs:
            return set()
        counts = await self.redis.pubsub_numsub(*(self.channel(p) for p in procs))
        return {p for p, (_, n) in zip(procs, counts, strict=True) if n}

    async def members(self) -> list[str]:
        """Every process listening on this bus, this one included."""
        head = self.channel("")
        names = await self.redis.pubsub_channels(f"{head}*")
        return sorted((n.decode() if isinstance(n, bytes) else n)[len(head) :] for n in names)

    async def close(self) -> None:
        """Stop listening and let Redis go (what is posted but not sent is sent first)."""
        if self._flushing is not None:
            with contextlib.suppress(Exception):
                await self._flushing
        if self._listening is not None:
            self._listening.cancel()
            with contextlib.suppress(BaseException):
                await self._listening
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()  # type: ignore[no-untyped-call]
        with contextlib.suppress(Exception):
            await self.redis.aclose()
