"""`SharedEnds`: the sessions that ended, as records in the Redis every process of one club shares
(server/cluster), so that a session ended (logged out, ended on *Your account*, a new password, a
disabled member) through one process is refused by every other at its very next request.

Each process keeps the sessions it has seen in memory (`server.club.logins`) and reads the ones that
ended elsewhere from the database once a second; between those reads, each request with a session
cookie asks Redis whether its session ended (one ``EXISTS``). The process that ends a session writes
the database first (the truth), then the record, before it answers.

Fail safe: when Redis cannot say (out of reach, or slow past `ASK_TIMEOUT`), the request asks the
database instead. A record that could not be written is written again with each reload until it is;
meanwhile the other processes learn of the end from the database within a second, as they always do.
Records are keyed by a hash of the session's id (the id, with the server's secret, makes a cookie) and
expire when the session's cookie would have.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable

import redis.asyncio as aioredis

from server.club.sessions import SESSION_MAX_AGE

__all__ = ["ASK_TIMEOUT", "SharedEnds"]

log = logging.getLogger("sparrow.club")

ASK_TIMEOUT = 1.0  # seconds Redis has to say whether a session ended, before the database is asked
_UNSHARED_MAX = 10_000  # ends kept to write again while Redis is out of reach


class SharedEnds:
    """Ended sessions in the Redis ``redis`` (keys start with ``prefix``); ``reachable`` says whether
    the process can count on Redis now (the bus's judgement: `server.cluster.bus.Bus.down_since`)."""

    def __init__(self, redis: aioredis.Redis, prefix: str, reachable: Callable[[], bool]) -> None:
        self.redis = redis
        self.prefix = prefix
        self.reachable = reachable
        self._unshared: dict[str, None] = {}  # ends not yet written, oldest first
        self._trouble = False

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
        if not self.reachable():
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
        if trouble is not None and not self._trouble:
            log.warning(
                "ended sessions cannot be shared in Redis (%s): each request with a session asks the database",
                type(trouble).__name__,
            )
        elif trouble is None and self._trouble:
            log.warning("ended sessions are shared in Redis again")
        self._trouble = trouble is not None
