"""`Logins`: a member's sessions, one per browser they logged in on. Each is a row in the database
(the signed cookie carries its id), so ending one on the server makes a copied cookie useless at once;
this process keeps the ones it has seen in memory, so checking a cookie costs no query.

Other processes of one club (server/cluster) end sessions too: `refresh`, run with the club's reload
every second, reads the sessions that ended meanwhile, forgets them and closes their sockets here.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from ua_parser import parse

from server.club.sessions import SESSION_MAX_AGE
from server.club.store import ClubStore, Session

__all__ = ["SEEN_EVERY", "Logins", "Socket", "device"]

log = logging.getLogger("sparrow.club")

SEEN_EVERY = 60.0  # a session's "last seen" is written at most this often (seconds), not on every request
_KEPT = 10_000  # sessions remembered here; the oldest are forgotten past that (and read again if used)
_LATE = 300.0  # how far another process's clock may lag ours when `refresh` reads sessions that ended
_KEEP_ENDED = 24 * 3600.0  # an ended session's row is kept this long (every process has read it by then)


class Socket(Protocol):
    """A socket opened with a session (`server.tables.connection.Connection`)."""

    def close(self, code: int, reason: str) -> None:
        """Close it with ``code``."""
        ...


def device(agent: str) -> str:
    """The browser and system a User-Agent names, in plain words ("Firefox on Windows")."""
    found = parse(agent[:500]) if agent else None
    browser = found.user_agent.family if found and found.user_agent and found.user_agent.family != "Other" else None
    system = found.os.family if found and found.os and found.os.family != "Other" else None
    if browser and system:
        return f"{browser} on {system}"
    return browser or system or (f"unknown browser ({agent[:40]})" if agent else "unknown browser")


class Logins:
    """The sessions of one club: started, found (cached), ended, and the sockets opened with each."""

    def __init__(self, store: ClubStore | None, clock: Callable[[], float]) -> None:
        self.store = store
        self.clock = clock
        self._known: dict[str, Session | None] = {}  # None: no such session, or it ended (for good)
        self._sockets: dict[str, set[Socket]] = {}
        self._writes: set[asyncio.Task[None]] = set()
        self._read_until: float | None = None  # `refresh` has read the sessions that ended before this

    async def start(self, member: int, agent: str, address: str) -> Session:
        """A new session of ``member`` on the browser that sent ``agent``, from ``address``."""
        assert self.store is not None
        now = self.clock()
        session = Session(secrets.token_urlsafe(32), member, now, now, agent[:200], address[:64])
        await self.store.add_session(session)
        self._remember(session.id, session)
        # Rows of sessions long ended, or whose cookie has expired, go as new ones come.
        await self.store.prune_sessions(now - _KEEP_ENDED, now - SESSION_MAX_AGE)
        return session

    async def find(self, session_id: str, address: str) -> Session | None:
        """The session ``session_id`` if it has not ended (read from the database once, then kept); notes
        that it was seen now, from ``address``."""
        if self.store is None:
            return None
        if session_id in self._known:
            session = self._known[session_id]
        else:
            session = await self.store.session(session_id)
            self._remember(session_id, session if session is not None and session.ended is None else None)
            session = self._known.get(session_id)
        if session is None:
            return None
        now = self.clock()
        if now - session.seen >= SEEN_EVERY:
            session.seen, session.address = now, address[:64]
            self._write(self.store.seen(session.id, now, session.address))
        return session

    async def of(self, member: int) -> list[Session]:
        """The member's sessions that have not ended, last seen first."""
        if self.store is None:
            return []
        expired = self.clock() - SESSION_MAX_AGE  # its cookie no longer logs anyone in
        found = [s for s in await self.store.sessions_of(member) if s.created >= expired]
        for session in found:  # this process's "last seen" may be newer than the one written
            known = self._known.get(session.id)
            if known is not None and known.seen > session.seen:
                session.seen, session.address = known.seen, known.address
        found.sort(key=lambda s: s.seen, reverse=True)
        return found

    async def end(self, member: int, reason: str, *, only: str | None = None, keep: str | None = None) -> list[str]:
        """End the member's sessions (just ``only``; every one but ``keep``; or all) and close the sockets
        opened with them here with ``reason``; returns the ids of those that ended."""
        if self.store is None:
            return []
        ended = await self.store.end_sessions(member, self.clock(), only=only, keep=keep)
        if only is None:  # those this process knows but the database no longer calls live, too
            ended += [
                k for k, s in self._known.items() if s is not None and s.member == member and k not in (keep, *ended)
            ]
        self._forget(ended, reason)
        return ended

    async def refresh(self) -> None:
        """Forget the sessions other processes ended since the last call, and close their sockets here."""
        if self.store is None:
            return
        now = self.clock()
        since = now - _LATE if self._read_until is None else self._read_until - _LATE
        self._forget(await self.store.ended_since(since), "this session was ended")
        self._read_until = now

    def hold(self, session_id: str | None, socket: Socket) -> None:
        """``socket`` was opened with session ``session_id``: close it when the session ends (at once if
        it has ended meanwhile)."""
        if session_id is None:
            return
        if session_id in self._known and self._known[session_id] is None:
            socket.close(1008, "this session was ended")
            return
        self._sockets.setdefault(session_id, set()).add(socket)

    def release(self, session_id: str | None, socket: Socket) -> None:
        """``socket`` has closed."""
        held = self._sockets.get(session_id) if session_id is not None else None
        if held is not None:
            held.discard(socket)
            if not held:
                del self._sockets[session_id]  # type: ignore[arg-type]

    def _remember(self, session_id: str, session: Session | None) -> None:
        if len(self._known) >= _KEPT:
            for key in list(self._known)[: _KEPT // 10]:
                if key not in self._sockets:
                    del self._known[key]
        self._known[session_id] = session

    def _forget(self, ended: list[str], reason: str) -> None:
        for session_id in ended:
            if session_id in self._known:
                self._known[session_id] = None
            for socket in self._sockets.pop(session_id, set()):
                socket.close(1008, reason)

    def _write(self, write: Coroutine[Any, Any, None]) -> None:
        async def run() -> None:
            try:
                await write
            except Exception:
                log.warning("could not note when a session was last seen; it is noted again in a minute")

        task = asyncio.get_running_loop().create_task(run())
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)
