"""Who is at a table (a part of `TableActor`): sockets coming and going, a person's grace period before
a bot stands in, the pause when nobody is there, and adjournment. An adjourned table is stored as
such; the lobby lets it leave memory (`Lobby.retire`) and brings it back when someone opens it."""

from __future__ import annotations

import logging

from server.tables.connection import Connection
from server.tables.errors import TableError
from server.tables.journal import WriteOutcomeUnknown
from server.tables.messages import Adjourn, Deserted, GraceOver
from server.tables.parts import TableParts

__all__ = ["MAX_SPECTATORS", "MAX_SOCKETS_PER_SEAT", "Presence"]

# Sockets a table takes: every change is projected and sent to each, so one client opening thousands
# would cost the table's process a core (1,000 spectators on a bot table: 44% of one).
MAX_SPECTATORS = 100
MAX_SOCKETS_PER_SEAT = 8  # a person's tabs and devices

log = logging.getLogger("sparrow.table")


class Presence(TableParts):
    """Connections and presence."""

    def _attach(self, conn: Connection, token: str | None, member: int | None = None) -> dict[str, object]:
        seat = self._seat_of(token, member)
        conn.member = member
        if seat is None and token is not None:
            raise TableError("auth/bad_token", "that seat token is not valid at this table", status=403)
        if seat is None:
            if sum(1 for c in self.connections if c.seat is None) >= MAX_SPECTATORS:
                raise TableError(
                    "table/too_many_watchers",
                    f"this table has as many spectators as it can take ({MAX_SPECTATORS}); try again later",
                    status=503,
                )
            conn.seat = None
        else:
            state = self.seats[seat]
            assert state is not None
            if state.connections >= MAX_SOCKETS_PER_SEAT:
                raise TableError(
                    "seat/too_many_sockets",
                    f"this seat is open in {MAX_SOCKETS_PER_SEAT} places already; close one of them first",
                    status=429,
                )
            conn.seat, conn.token = seat, state.token_hash
            state.connections += 1
            if state.away_since is not None or state.substitute:  # the person is back: the seat is theirs again
                state.away_since, state.substitute = None, False
                self._cancel(self._grace_timers.pop(seat, None))
                self._cancel(self._bot_timers.pop(seat, None))
        self.connections.add(conn)
        self._someone_here()
        return {"seat": conn.seat}

    def _detach(self, conn: Connection) -> None:
        if conn not in self.connections:
            return
        self.connections.discard(conn)
        self._left_at = self.clock.now()
        self._watch_presence()
        if conn.seat is None:
            return
        state = self.seats[conn.seat]
        if state is None or state.token_hash != conn.token:
            return
        state.connections -= 1
        if state.connections == 0 and self.status in ("waiting", "playing"):
            since = self.clock.now()
            state.away_since = since
            if self.status == "playing":
                seat = conn.seat
                self._grace_timers[seat] = self._post_at(since + self.settings.timers.grace, GraceOver(seat, since))
        self._publish()

    # ------------------------------------------------------------ presence
    def _people_here(self) -> bool:
        """Whether anyone is at the table: a seated person, or someone watching."""
        return any(not conn.closed for conn in self.connections)

    def _watch_presence(self, extra: float = 0.0) -> None:
        """If nobody is connected, pause the table once that has lasted the grace period."""
        if self.status != "playing" or self._people_here() or self._empty_since is not None:
            return
        since = self._empty_since = self.clock.now()
        self._cancel(self._presence_timer)
        self._presence_timer = self._post_at(since + self.settings.timers.grace + extra, Deserted(since))

    def _deserted(self, since: float) -> None:
        """Nobody has been here for the grace period: stop every clock and bot until someone returns,
        so that nobody's record fills with hands that only stand-ins played."""
        if since != self._empty_since or self.status != "playing" or self._people_here():
            return
        self._cancel_all()
        self.paused_since = self.clock.now()
        self.deadline = None
        self._presence_timer = self._post_at(self.paused_since + self.adjourn_after, Adjourn(self.paused_since))
        log.info("table %s paused: nobody has been at it for %g s", self.id, self.settings.timers.grace)
        self._publish()

    async def _adjourn(self, since: float, attempt: int = 0) -> None:
        """Paused for long: adjourned. The game is stored as adjourned (and tried again later if that
        cannot be stored); a seated person who opens the table resumes it."""
        if since != self.paused_since or self.status != "playing":
            return
        try:
            await self._journal(self.journal.adjourned(self.id))
        except TableError:
            self._presence_timer = self._retry(attempt, Adjourn(since, attempt + 1))
            return
        self.status = "adjourned"
        log.info("table %s adjourned: nobody has been at it for %g s", self.id, self.clock.now() - since)
        self._publish()
        for conn in list(self.connections):  # spectators: there is nothing to watch
            conn.close(1001, "the table is adjourned")

    async def _adjourn_now(self) -> dict[str, object]:
        """A club admin's adjournment: as if nobody had been here for a day, at once.

        :raises TableError: when no game is being played, or the adjournment cannot be stored.
        """
        if self.status != "playing":
            raise TableError("table/not_started", "only a game being played can be adjourned", status=409)
        await self._journal(self.journal.adjourned(self.id))
        self._cancel_all()
        self.paused_since = self.clock.now()
        self.deadline = None
        self.status = "adjourned"
        for conn in list(self.connections):  # 1000: the pages do not reconnect by themselves
            conn.close(1000, "a club admin adjourned the table: open it again to play on")
        log.info("table %s adjourned by a club admin", self.id)
        return {"adjourned": True}

    async def _resume_stored(self) -> None:
        """Someone opens the adjourned table: its journal says it is played again before it is.

        :raises TableError: (503) when that cannot be stored; the table stays adjourned.
        """
        try:
            await self._journal(self.journal.resumed(self.id))
        except WriteOutcomeUnknown:  # either way the table stays adjourned; `_put_away` says so again
            raise TableError("server/storage", "the server could not save that; try again", status=503) from None

    async def _put_away(self, paused: bool = False) -> bool:
        """The lobby lets the table leave memory if it is adjourned and nobody is at it: its journal
        says adjourned (again: a resumption whose write's outcome was unknown may have landed), then
        it closes. False when it stays (someone came, or the journal cannot be written now). With
        ``paused``, a game paused because nobody is at it (`deserted_since`) is adjourned first, as a
        day of that pause would adjourn it."""
        since = self.deserted_since
        if paused and since is not None:
            await self._adjourn(since)
        if self.status != "adjourned" or self._people_here():
            return False
        try:
            await self._journal(self.journal.adjourned(self.id))
        except (TableError, WriteOutcomeUnknown):
            return False
        self._close(1001)
        return True

    @property
    def dormant_since(self) -> float | None:
        """Since when the table has been adjourned with nobody at it (None while it is not adjourned, or
        while a socket is open): the lobby lets such a table leave memory (`Lobby.retire`)."""
        if self.status != "adjourned" or self.paused_since is None or self._people_here():
            return None
        return max(self.paused_since, self._left_at)

    @property
    def deserted_since(self) -> float | None:
        """Since when the game has been paused because nobody is at it (`_deserted`; None while it is
        not, or once it is adjourned): it is adjourned a day later, or sooner when the lobby is full."""
        if self.status != "playing" or self.paused_since is None or self._people_here():
            return None
        return self.paused_since

    def _someone_here(self) -> None:
        """Someone connected: the table goes on (with fresh clocks) if it was paused."""
        self._empty_since = None
        self._cancel(self._presence_timer)
        self._presence_timer = None
        if self.paused_since is None:
            return
        self.paused_since = None
        if self.status == "adjourned":
            self.status = "playing"
        game = self.game
        if game is not None and self.status == "playing":
            now = self.clock.now()
            for i, s in enumerate(self.seats):  # the others' grace periods start again now
                if s is not None and not s.bot and s.connections == 0 and not s.substitute:
                    s.away_since = now
                    self._grace_timers[i] = self._post_at(now + self.settings.timers.grace, GraceOver(i, now))
            self._arm_deadline(game)
            self._schedule_bots()

    def _grace_over(self, seat: int, since: float) -> None:
        state = self.seats[seat]
        if state is None or state.away_since != since or self.status != "playing":
            return  # the person came back in time
        self._grace_timers.pop(seat, None)
        state.substitute = True
        self._schedule_bots()
        self._publish()
