"""A table moving to another server process while it plays (a part of `TableActor`; server/cluster/handover.py
moves it). Its journal holds the game to the last action; the `Baton` holds the rest, what only the
running table knows: the current decision's token (so that an intent sent for it is not refused as
stale), what is left of its clocks, who is away since when, the answers held for the fair pause, and
each socket's seat and the number of the last update it was sent. The process the table moves to
rebuilds it from the journal beforehand (`TableActor.loaded`), while it still plays where it was;
once it stops there, catches up with the actions played since (`catch_up`), takes the baton and sends
every socket a snapshot numbered on from where it was (`go_on`): nothing is restarted, no clock gains
time and no socket closes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass

from game.actions import Action
from game.errors import RulesError
from game.game import GamePhase
from server.tables.connection import Connection
from server.tables.errors import TableError
from server.tables.messages import Adjourn, Deadline, Deserted, GraceOver, PauseOver
from server.tables.parts import TableParts

__all__ = ["Baton", "Handover"]

Socket = tuple[int | None, str | None, int | None, int]  # seat, its token's hash, member, seq
Held = tuple[int, object, int | None, int]  # seat, action, socket (its index; None: closed), request


def _seconds(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"not a number of seconds: {value!r}")
    return float(value)


def _check(value: object, kind: type) -> None:
    """``value`` is None or a ``kind`` (not a bool).

    :raises ValueError: when it is not."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
        raise ValueError(f"not a {kind.__name__}: {value!r}")


@dataclass(frozen=True, slots=True)
class Baton:
    """What a table hands over besides its journal; times are seconds before or after the handover."""

    status: str  # waiting, playing, over or adjourned (as its journal says: to check a table read beforehand)
    window: int  # the current decision's token
    deadline: float | None  # seconds left before the decision's deadline
    pause: float | None  # seconds left of the fair pause (R6.9), if one runs
    paused: float | None  # seconds since the table paused because nobody was at it
    empty: float | None  # seconds since the last socket left (none is open)
    away: list[float | None]  # per seat: seconds since its person left (None: here, or no person)
    substitute: list[bool]  # per seat: a bot stands in for its person
    held: list[Held]  # answers held for the fair pause
    sockets: list[Socket]
    rematch: str | None

    def to_json(self) -> dict[str, object]:
        """The baton as JSON, for the bus."""
        return {
            "status": self.status,
            "window": self.window,
            "deadline": self.deadline,
            "pause": self.pause,
            "paused": self.paused,
            "empty": self.empty,
            "away": self.away,
            "substitute": self.substitute,
            "held": [list(h) for h in self.held],
            "sockets": [list(s) for s in self.sockets],
            "rematch": self.rematch,
        }

    @classmethod
    def from_json(cls, data: object) -> Baton:
        """The baton `to_json` made ``data`` of.

        :raises ValueError: when ``data`` is not one.
        """
        if not isinstance(data, dict):
            raise ValueError("a baton is an object")
        try:
            window = data["window"]
            if isinstance(window, bool) or not isinstance(window, int):
                raise ValueError(f"not a decision token: {window!r}")
            away, substitute = list(data["away"]), [bool(s) for s in data["substitute"]]
            if len(away) != 4 or len(substitute) != 4:
                raise ValueError("a baton has four seats")
            sockets: list[Socket] = []
            for seat, token, member, seq in data["sockets"]:
                for value, kind in ((seat, int), (token, str), (member, int), (seq, int)):
                    _check(value, kind)
                sockets.append((seat, token, member, seq or 0))
            rematch = data["rematch"]
            if rematch is not None and not isinstance(rematch, str):
                raise ValueError(f"not a table id: {rematch!r}")
            held: list[Held] = []
            for seat, action, index, request in data["held"]:
                for value, kind in ((seat, int), (index, int), (request, int)):
                    _check(value, kind)
                if index is not None and not 0 <= index < len(sockets):
                    raise ValueError(f"no socket {index}")
                held.append((seat, action, index, request))
            status = data["status"]
            if not isinstance(status, str):
                raise ValueError(f"not a status: {status!r}")
            return cls(
                status=status,
                window=window,
                deadline=_seconds(data["deadline"]),
                pause=_seconds(data["pause"]),
                paused=_seconds(data["paused"]),
                empty=_seconds(data["empty"]),
                away=[_seconds(a) for a in away],
                substitute=substitute,
                held=held,
                sockets=sockets,
                rematch=rematch,
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a baton: {exc}") from None


class Handover(TableParts):
    """Handing the table over (`_hand_over`, in the process it leaves) and taking it (`_take_baton`)."""

    def _hand_over(self) -> tuple[Baton, list[Connection]]:
        """Stop here, writing nothing more and leaving every socket open: the baton, and the sockets in
        the order its ``sockets`` lists them. Whatever still waits in the inbox is answered
        ``table/moving`` (a timer's firing is dropped: the next process arms its clocks again)."""
        now = self.clock.now()
        conns = [conn for conn in self.connections if not conn.closed]
        index = {conn: i for i, conn in enumerate(conns)}
        held: list[Held] = []
        for seat, (action, conn, request) in self.held.items():
            held.append((seat, action.to_json(), index.get(conn), request))
        seats = self.seats
        baton = Baton(
            status=self.status,
            window=self.window,
            deadline=None if self.deadline is None else self.deadline - now,
            pause=None if self._pause_timer is None or self._pause_at is None else max(0.0, self._pause_at - now),
            paused=None if self.paused_since is None else now - self.paused_since,
            empty=None if self._empty_since is None else now - self._empty_since,
            away=[None if s is None or s.away_since is None else now - s.away_since for s in seats],
            substitute=[s is not None and s.substitute for s in seats],
            held=held,
            sockets=[(conn.seat, conn.token, conn.member, conn.seq) for conn in conns],
            rematch=self.rematch,
        )
        self._cancel_all()
        self.status = "closed"
        self.connections.clear()
        self.held.clear()
        moving = TableError("table/moving", "that table is moving to another server process; try again", status=503)
        while not self.inbox.empty():
            pending = self.inbox.get_nowait()
            self.inbox.task_done()
            reply = getattr(pending, "reply", None)
            if reply is not None and not reply.done():
                reply.set_exception(moving)
        return baton, conns

    def catch_up(self, actions: Sequence[tuple[int, dict[str, object]]], chat: Sequence[dict[str, object]]) -> None:
        """Apply ``actions``, played (and stored) since the table was loaded here (`TableActor.loaded`), and
        take ``chat``, its chat now; before its task starts.

        :raises ValueError: if an action does not apply (`RulesError`), or there is no game to apply it to.
        """
        game = self.game
        if actions and game is None:
            raise ValueError(f"table {self.id}: actions to catch up with, and no game")
        for seat, action in actions:
            assert game is not None
            game.apply(seat, action)
            self._new_decision(game)
        if game is not None and game.phase is GamePhase.OVER and self.status != "over":
            self.status, self._over_at = "over", self.clock.now()
        self.chat.clear()
        self.chat.extend(chat)

    def go_on(self, baton: Baton, conns: list[Connection]) -> None:
        """Go on from ``baton`` with ``conns`` (in the order of its ``sockets``) attached, once loaded
        (`TableActor.loaded`) and caught up, before the table's task starts; every socket is sent a
        snapshot."""
        now = self.clock.now()
        self.rematch = self.rematch or baton.rematch
        for i, seat in enumerate(self.seats):
            if seat is not None and not seat.bot:
                away = baton.away[i]
                seat.away_since = None if away is None else now - away
                seat.substitute = baton.substitute[i]
        for conn, (seat_no, token, member, seq) in zip(conns, baton.sockets, strict=True):
            conn.member, conn.seq = member, seq
            state = None if seat_no is None or not 0 <= seat_no < 4 else self.seats[seat_no]
            if state is not None and token is not None and state.token_hash == token:
                conn.seat, conn.token = seat_no, token
                state.connections += 1
                state.away_since, state.substitute = None, False
            else:
                conn.seat = None
            self.connections.add(conn)
        game = self.game
        if game is not None and self.status == "playing" and baton.paused is not None:
            since = self.paused_since = now - baton.paused
            self.deadline = None
            self._presence_timer = self._post_at(since + self.adjourn_after, Adjourn(since))
        elif game is not None and self.status == "playing":
            self.window = baton.window
            self._arm_deadline(game)  # (its kind, and its timers as for a new decision: set right below)
            if self._deadline_timer is not None and baton.deadline is not None:
                self._cancel(self._deadline_timer)
                self.deadline = now + baton.deadline
                self._deadline_timer = self._post_at(self.deadline, Deadline(self.window))
            self._cancel(self._pause_timer)
            self._pause_timer = self._pause_at = None
            if baton.pause is not None:
                self._pause_at = now + baton.pause
                self._pause_timer = self._post_at(self._pause_at, PauseOver(self.window))
            for seat_no, action, socket, request in baton.held:
                with contextlib.suppress(RulesError):
                    conn = conns[socket] if socket is not None else _gone()
                    self.held[seat_no] = (Action.from_json(action), conn, request)
            grace = self.settings.timers.grace
            for i, seat in enumerate(self.seats):
                if seat is not None and not seat.bot and seat.away_since is not None and not seat.substitute:
                    self._grace_timers[i] = self._post_at(seat.away_since + grace, GraceOver(i, seat.away_since))
            self._schedule_bots()
            if baton.empty is not None and not self._people_here():
                since = self._empty_since = now - baton.empty
                self._presence_timer = self._post_at(since + grace, Deserted(since))
            else:
                self._watch_presence()
        for conn in conns:
            if not conn.closed:
                self._snapshot(conn)


def _gone() -> Connection:
    """A socket that closed while its answer was held: the answer still counts, and its ack goes nowhere."""
    conn = Connection(None, limit=1)
    conn.mark_closed(1001, "")
    return conn
