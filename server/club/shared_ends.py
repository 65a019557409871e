"""`SharedEnds`: the sessions that ended, as records in the Redis every process of one club shares
(server/cluster), so that a session ended (logged out, ended on *Your account*, a new password, a
disabled member) through one process is refused by every other at its very next request.

Each process keeps the sessions it has seen in memory (`server.club.logins`) and reads the ones that
ended elsewhere from the database once a second; between those reads, each request with a session
cookie asks Redis whether its session ended (one ``EXISTS``). The process that ends a session writes
the database first (the truth), then the record, before it answers.

Fail safe: when Redis cannot say (out of reach, or slow past `ASK_TIMEOUT`), the request asks the
database instead, and goes on asking it for `SETTLE` seconds after Redis answers again: a record
another process could not write meanwhile (it is written again with each reload until it is), or one
a restarted Redis lost, is missing from Redis then, and every process has read the ends from the
database by the time its answers are trusted again. In a partition where the ending process cannot
reach Redis and another can, the other learns of the end from the database within a second, as it
would without Redis.
Records are keyed by a hash of the session's id (the id, with the server's secret, makes a cookie) and
expire when the session's cookie would have.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Callable

import redis.asyncio as aioredis

from server.club.sessions import SESSION_MAX_AGE

__all__ = ["ASK_TIMEOUT", "SharedEnds"]

log = logging.getLogger("sparrow.club")

ASK_TIMEOUT = 1.0  # seconds Redis has to say whether a session ended, before the database is asked
SETTLE = 5.0  # seconds after Redis was out of reach (for the bus, or for a question here) when it is trusted again
_UNSHARED_MAX = 10_000  # ends kept to write again while Redis is out of reach


class SharedEnds:
    """Ended sessions in the Redis ``redis`` (keys start with ``prefix``); ``reached_for`` says for how
    long the process has reached Redis without a break, None while it does not (the bus's judgement:
    `server.cluster.bus.Bus.reached_for`)."""

    def __init__(self, redis: aioredis.Redis, prefix: str, reached_for: Callable[[], float | None]) -> None:
        self.redis = redis
        self.prefix = prefix
        self.reached_for = reached_for
        self._unshared: dict[str, None] = {}  # ends not yet written, oldest first
        self._trouble = False
        self._failed_at = -SETTLE  # (monotonic) when a question here last went unanswered

    def reachable(self) -> bool:
        """Whether Redis may be asked now."""
        return self.reached_for() is not None

    def trusted(self) -> bool:
        """Whether Redis's "not ended" may be believed now (it has answered for `SETTLE` s)."""
        steady = self.reached_for()
        return steady is not None and steady >= SETTLE and time.monotonic() - self._failed_at >= SETTLE

    def _key(self, session_id: str) -> str:
        return f"{self.prefix}ended:{hashlib.sha256(session_id.encode()).hexdigest()[:32]}"

    async def share(self, session_ids: list[str]) -> None:
        """Record that these sessions ended (kept to write again if Redis cannot take them now)."""
        for session_id in session_ids:
            self._unshared[session_id] = None
        while len(self._unshared) > _UNSHARED_MAX:
            del self._unshared[next(iter(self._unshared))]
        await self.retry()

    async def retry(self) -> None:
        """Write the records not written yet (run with the club's reload)."""
        if not self._unshared or not self.reachable():
            return
        pending = list(self._unshared)
        try:
            async with asyncio.timeout(ASK_TIMEOUT):
                async with self.redis.pipeline(transaction=False) as pipe:
                    for session_id in pending:
                        pipe.set(self._key(session_id), b"1", ex=SESSION_MAX_AGE)
                    await pipe.execute()
        except Exception as exc:
            self._said(exc)
            return
        for session_id in pending:
            self._unshared.pop(session_id, None)
        self._said(None)

    async def ended(self, session_id: str) -> bool | None:
        """Whether the session ended in some process; None when Redis cannot say (ask the database)."""
        if session_id in self._unshared:
            return True
        if not self.trusted():
            return None
        try:
            async with asyncio.timeout(ASK_TIMEOUT):
                found = await self.redis.exists(self._key(session_id))
        except Exception as exc:
            self._said(exc)
            return None
        self._said(None)
        return bool(found)

    def _said(self, trouble: BaseException | None) -> None:
        """Log once when Redis stops answering for sessions, and once when it answers again."""
        if trouble is not None:
            self._failed_at = time.monotonic()
        if trouble is not None and not self._trouble:
            log.warning(
                "ended sessions cannot be shared in Redis (%s): each request with a session asks the database",
                type(trouble).__name__,
            )
        elif trouble is None and self._trouble:
            log.warning("ended sessions are shared in Redis again")
        self._trouble = trouble is not None
