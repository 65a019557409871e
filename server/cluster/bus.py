"""`Bus`: messages between the server processes of one club, over Redis pub/sub.

Each process listens on a channel of its own (``<prefix>proc:<id>``). A message is a list whose
first item says what it is (`server.cluster.node` reads them); what one process sends another in
one turn of its event loop goes as one Redis message, in order. Redis tells a sender how many
listeners a message reached: none means the process it was for is gone, and the sender is told
(``on_gone``), so that no socket waits for an answer that cannot come.

Pub/sub keeps nothing: a message to a process that is not listening is lost. Nothing relies on one
arriving: a call that gets no answer in time is refused ("try again"), and a socket whose table
moved is closed with 1012, so the browser reconnects to wherever the table now runs.

Every `BEAT` seconds a process sends itself an echo, through Redis, on its own channel: the check is
end to end, its subscription included. The process is *cut off* (Redis out of reach, as far as it
can tell) from the moment a command fails, an echo reaches no listener (its subscription is gone:
Redis closed it, or it never took), or no echo has come back for `DEAF` seconds (Redis down, or a
partition that forwards nothing and closes nothing), until an echo is heard again: the bus logs one
line when that starts and one when it ends (never a traceback per attempt), says so meanwhile
(`cut_off`: /healthz answers 503, a load balancer drains the process; the metric
``sparrow_bus_cut_off``), and tells the process both (``on_down``, ``on_up``), which closes what may
have lost messages meanwhile. A subscription that hears nothing is replaced by one on a new
connection (after `DEAF` seconds, or `PATIENCE` while cut off, for the echo sent last), and a new
subscription's confirmation has an echo sent at once, so that a process is back within seconds of
Redis answering, however the outage ended (connections carried on, closed, or left silent for good).
A process whose event loop was held (CPU-bound work, a long collection) finds its echo late and its
commands timed out when it runs again, through no fault of Redis: what began before such a stall,
or is judged in the middle of one, says nothing (the next echo, or the next command, does).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

import orjson
import redis.asyncio as aioredis
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.retry import Retry

from server import metrics

__all__ = ["BEAT", "DEAF", "Bus"]

log = logging.getLogger("sparrow.cluster")

BEAT = 1.0  # seconds between a process's echoes to itself
DEAF = 3.0  # no echo heard for this long: Redis is out of reach
PATIENCE = 2.0  # while cut off, an echo not heard for this long: the subscription is replaced
LISTEN = BEAT / 4  # seconds the listener waits for a message before it looks at the echo's clock again
HELD = 1.0  # the event loop has not run for this long: what timed out meanwhile says nothing of Redis
TIMEOUT = 2.0  # seconds a Redis command may take before it counts as failed
_ECHO: list[object] = ["echo"]

Handler = Callable[[list[object]], None]


class Bus:
    """Process ``me``'s end of the bus on the Redis at ``url``; channel names start with ``prefix``."""

    def __init__(
        self,
        url: str,
        me: str,
        prefix: str,
        *,
        on_gone: Callable[[str], None] | None = None,
        on_down: Callable[[], None] | None = None,
        on_up: Callable[[], None] | None = None,
    ) -> None:
        # A command that hangs (a partition) fails after TIMEOUT, so that no message waits behind it
        # for good. One on a connection found closed (an outage ended) is tried once more, on a new one;
        # one that timed out is not (it may yet arrive, when a partition heals: a message sent twice
        # would be read twice).
        self.redis = aioredis.from_url(
            url,
            socket_timeout=TIMEOUT,
            socket_connect_timeout=TIMEOUT,
            retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
            retry_on_error=[RedisConnectionError],
        )
        self.me = me
        self.prefix = prefix
        self.on_gone, self.on_down, self.on_up = on_gone, on_down, on_up
        self.down_since: float | None = None  # (monotonic) since when Redis is out of reach, if it is
        self._why = ""  # what showed it was out of reach
        self._up_at = 0.0  # (monotonic) when Redis was last found back
        self._waiting: float | None = None  # (monotonic) when the oldest echo not yet heard back was sent
        self._pubsub = self.redis.pubsub()
        self._stale = False  # the subscription is to be replaced (an echo reached no listener)
        self._subscribed_at = 0.0  # (monotonic) when the subscription was last made again
        self._nudged = asyncio.Event()  # an echo is to be sent now (a subscription was confirmed)
        self._echoes: set[asyncio.Task[None]] = set()
        self._outbox: dict[str, list[list[object]]] = {}
        self._flushing: asyncio.Task[None] | None = None
        self._listening: asyncio.Task[None] | None = None
        self._beating: asyncio.Task[None] | None = None
        self._dropping: set[asyncio.Task[None]] = set()
        self._ticked = time.monotonic()  # (monotonic) when the loop last ran the bus's clock
        self._held_until = 0.0  # (monotonic) when the loop last ran again after being held
        self._clock: asyncio.Task[None] | None = None

    def reached_for(self) -> float | None:
        """Seconds since Redis was last found back after being out of reach (since the bus started, if it
        never was); None while it is out of reach."""
        if self.down_since is not None:
            return None
        return time.monotonic() - self._up_at

    def cut_off(self) -> str | None:
        """While this process is cut off from the others (Redis out of reach, as far as it can tell),
        since when and why, for /healthz; None while it is on the bus."""
        if self.down_since is None:
            return None
        lasted = time.monotonic() - self.down_since
        return f"cut off from the other processes: Redis out of reach for {lasted:.0f} s ({self._why})"

    def channel(self, proc: str) -> str:
        """Where process ``proc`` listens."""
        return f"{self.prefix}proc:{proc}"

    async def start(self, handle: Handler) -> None:
        """Listen: ``handle`` gets each message sent to this process, in order.

        :raises redis.RedisError: when Redis cannot be reached.
        """
        await self.redis.ping()
        await self._pubsub.subscribe(self.channel(self.me))
        loop = asyncio.get_running_loop()
        self._listening = loop.create_task(self._listen(handle), name="cluster-bus")
        self._beating = loop.create_task(self._beat(), name="cluster-bus-echo")
        self._clock = loop.create_task(self._tick(), name="cluster-bus-clock")

    async def _tick(self) -> None:
        """Note when the event loop runs, to tell a held loop from a silent Redis (`held`)."""
        while True:
            await asyncio.sleep(HELD / 4)
            self.held()

    def held(self, started: float | None = None) -> bool:
        """Whether the loop has been held (not run for `HELD` s) since ``started`` or is held now."""
        now = time.monotonic()
        if now - self._ticked > HELD:
            self._held_until = now
        self._ticked = now
        return now - self._held_until < HELD / 4 or (started is not None and self._held_until >= started)

    async def _listen(self, handle: Handler) -> None:
        while True:
            if self._stale:  # an echo reached no listener: this subscription is gone
                await self._subscribe_again()
            started = time.monotonic()
            try:
                async with asyncio.timeout(LISTEN + 4 * TIMEOUT):  # (a read that hangs fails like one that breaks)
                    message = await self._pubsub.get_message(timeout=LISTEN)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.trouble(exc, started)
                await asyncio.sleep(BEAT)
                await self._subscribe_again()
                continue
            if message is None:  # nothing came meanwhile (a busy loop is not a deaf one)
                waited = 0.0 if self._waiting is None else time.monotonic() - self._waiting
                patience = DEAF if self.down_since is None else PATIENCE
                if waited > patience and self.held(self._waiting):
                    self._waiting = time.monotonic()  # the loop was held, not Redis: the echo gets another chance
                elif waited > patience:
                    self.trouble(f"no echo has come back from Redis for {waited:.0f} s")
                    await self._subscribe_again()  # on a new connection: the old one may be dead silently
                continue
            if message.get("type") == "subscribe":
                self._nudged.set()  # listening again: an echo says at once whether the way round works
                continue
            if message.get("type") != "message":
                continue
            try:
                batch = orjson.loads(message["data"])
                for item in batch:
                    if item == _ECHO:
                        self._heard()
                    else:
                        handle(item)
            except Exception:  # one bad message must not stop the process hearing the rest
                log.exception("the bus could not handle a message")

    async def _subscribe_again(self) -> None:
        """Listen on a new connection (the old one may be dead without a word, or out of step). Its
        echoes are waited for afresh: the next one sent after it (its confirmation sends one)."""
        self._stale, self._waiting, self._subscribed_at = False, None, time.monotonic()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(TIMEOUT):
                await self._pubsub.aclose()  # type: ignore[no-untyped-call]
        self._pubsub = self.redis.pubsub()
        # If this fails, or its confirmation never comes, the next read fails (and this comes again),
        # or the next echo reaches no listener, or is not heard back.
        with contextlib.suppress(Exception):
            async with asyncio.timeout(2 * TIMEOUT):
                await self._pubsub.subscribe(self.channel(self.me))

    async def _beat(self) -> None:
        """Send an echo every `BEAT` seconds, or at once when nudged; each on its own, so that one
        hanging on a dead connection does not hold back the next."""
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(BEAT):
                    await self._nudged.wait()
            self._nudged.clear()
            task = asyncio.get_running_loop().create_task(self._echo())
            self._echoes.add(task)
            task.add_done_callback(self._echoes.discard)

    async def _echo(self) -> None:
        sent = time.monotonic()
        heard_by = await self._publish(self.me, [_ECHO])
        if heard_by is None or sent < self._subscribed_at:
            return  # (Redis out of reach: said; or sent before the subscription was made again)
        if heard_by == 0:  # nobody listens on this process's own channel: its subscription is gone
            self.trouble("an echo reached no listener: this process's subscription was lost", sent)
            self._stale = True
        elif self._waiting is None:
            self._waiting = sent

    def _heard(self) -> None:
        self._waiting = None
        if self.down_since is not None:
            log.warning(
                "the bus reaches Redis again (it was out of reach for %.1f s)", time.monotonic() - self.down_since
            )
            self.down_since = None
            self._up_at = time.monotonic()
            metrics.BUS_CUT_OFF.dec()
            if self.on_up is not None:
                self.on_up()

    def trouble(self, why: object, started: float | None = None) -> None:
        """Redis is out of reach (``why``: an exception, or what was seen, by something that began at
        ``started``): logged once, until it is back. What began before Redis was last found back
        says nothing new (a connection made during the outage timing out just after it)."""
        if self.down_since is not None or (started is not None and started < self._up_at):
            return
        if self.held(started):
            return
        self.down_since = time.monotonic()
        metrics.BUS_CUT_OFF.inc()
        self._drop_idle()

        reason = f"{type(why).__name__}: {why}" if isinstance(why, BaseException) else str(why)
        self._why = reason[:300]
        log.error(
            "the bus cannot reach Redis (%s): sockets forwarded between processes are closed (1012) and "
            "calls to other processes refused until it is back",
            reason,
        )
        if self.on_down is not None:
            self.on_down()

    def _drop_idle(self) -> None:
        """Close the idle connections to Redis as an outage starts: those made before it may be dead
        without a word; commands open new ones. (Not as it ends: a command may have taken one of them
        meanwhile, and closing it under the command loses what it sends. A connection made during an
        outage is in the pool only if its command was answered, or was closed when it failed.)"""
        task = asyncio.get_running_loop().create_task(self.redis.connection_pool.disconnect(inuse_connections=False))
        self._dropping.add(task)
        task.add_done_callback(self._dropping.discard)

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
            # (Sent while cut off too: little is posted then, since the process let go of what
            # crossed the bus (``on_down``), but a call heard as Redis comes back is answered at once.)
            if await self._publish(proc, batch) == 0 and self.on_gone is not None:
                self.on_gone(proc)

    async def _publish(self, proc: str, batch: list[list[object]]) -> int | None:
        """How many processes heard ``batch`` (0: ``proc`` is gone); None when Redis is out of reach
        (the batch is lost)."""
        started = time.monotonic()
        try:
            return int(await self.redis.publish(self.channel(proc), orjson.dumps(batch)))
        except Exception as exc:
            self.trouble(exc, started)
            return None

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
        for task in (self._listening, self._beating, self._clock, *self._echoes):
            if task is not None:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        if self.down_since is not None:  # (no longer cut off: gone)
            self.down_since = None
            metrics.BUS_CUT_OFF.dec()
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()  # type: ignore[no-untyped-call]
        with contextlib.suppress(Exception):
            await self.redis.aclose()
