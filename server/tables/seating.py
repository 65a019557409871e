"""Seats at a table before and after its game (a part of `TableActor`): joining, leaving, bots, the
owner's rights, starting, and the seats a rematch starts with."""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass

from game.bots import LEVELS
from game.game import Game
from game.seating import draw_seats
from game.tiles import WINDS, Tile
from server.tables.errors import TableError
from server.tables.journal import SeatRecord, hash_token
from server.tables.messages import GraceOver
from server.tables.parts import TableParts
from server.tables.settings import NAME_MAX, clean_text

__all__ = ["DEFAULT_LEVEL", "SeatState", "Seating"]

_WIND_NAMES = {Tile.EAST: "East", Tile.SOUTH: "South", Tile.WEST: "West", Tile.NORTH: "North"}
DEFAULT_LEVEL = "normal"  # bots the owner added without a level, older bots, and stand-ins


@dataclass(slots=True)
class SeatState:
    """Who holds a seat: a person (with a token) or a bot, and whether the person is here."""

    name: str
    token_hash: str | None  # SHA-256 of the person's seat token; None: a bot's seat
    member: int | None = None  # the logged-in member who sat here (their sockets need no token)
    connections: int = 0
    away_since: float | None = None  # a person's last connection closed at this time
    substitute: bool = False  # the person has been away past the grace period: a bot plays for them
    level: str | None = None  # a bot's level (`LEVELS`); a stand-in for a person plays at `DEFAULT_LEVEL`

    @property
    def bot(self) -> bool:
        """A bot was seated here."""
        return self.token_hash is None

    @property
    def robot(self) -> bool:
        """A bot plays this seat now (a bot's seat, or a person's seat after the grace period)."""
        return self.token_hash is None or self.substitute


class Seating(TableParts):
    """Who sits where, and what the table's owner may do."""

    async def _join(self, name: str, seat: int | None, member: int | None = None) -> dict[str, object]:
        name = clean_text(name, "your name", NAME_MAX)
        mine = self._seat_of(None, member)
        if mine is not None:  # a member already seated here, on another device: the seat is theirs
            return {"table": self.id, "seat": mine, "token": None, "owner": mine == self.owner}
        if self.status != "waiting":
            raise TableError("table/started", "this game has already started; you can watch it", status=409)
        if any(s is not None and s.name.casefold() == name.casefold() for s in self.seats):
            raise TableError("seat/name_taken", f"someone at this table is already called {name!r}", status=409)
        free = [i for i, s in enumerate(self.seats) if s is None]
        if seat is None:
            if not free:
                raise TableError("seat/full", "every seat at this table is taken", status=409)
            seat = free[0]
        elif isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
            raise TableError("seat/bad_seat", "seat must be 0, 1, 2 or 3")
        elif seat not in free:
            raise TableError("seat/taken", f"seat {seat} is taken", status=409)
        token = secrets.token_urlsafe(24)
        seats = list(self.seats)
        seats[seat] = SeatState(name, hash_token(token), member)
        owner = seat if self.owner is None else self.owner
        await self._save_seats(seats, owner)
        return {"table": self.id, "seat": seat, "token": token, "owner": owner == seat}

    async def _save_seats(self, seats: list[SeatState | None], owner: int | None) -> None:
        """Persist a change of seats, then make it (so a refused write changes nothing)."""
        await self._journal(self.journal.seats_changed(self.id, [_seat_record(s) for s in seats], owner))
        self.seats, self.owner = seats, owner

    def _seat_of(self, token: object, member: int | None = None) -> int | None:
        """The seat of whoever holds ``token``, or else of the logged-in ``member``."""
        if isinstance(token, str):
            digest = hash_token(token)
            for i, s in enumerate(self.seats):
                if s is not None and s.token_hash is not None and hmac.compare_digest(s.token_hash, digest):
                    return i
        if member is not None:
            for i, s in enumerate(self.seats):
                if s is not None and s.member == member:
                    return i
        return None

    def _require_owner(self, token: str | None, member: int | None) -> None:
        seat = self._seat_of(token, member)
        if seat is None or seat != self.owner:
            raise TableError("table/not_owner", "only the player who created the table may do that", status=403)

    async def _leave(self, token: str | None, member: int | None) -> dict[str, object]:
        seat = self._seat_of(token, member)
        if seat is None:
            raise TableError("auth/bad_token", "that seat token is not valid at this table", status=403)
        if self.status != "waiting":
            raise TableError("table/started", "the game has started: your seat stays yours until it ends", status=409)
        seats = list(self.seats)
        seats[seat] = None
        owner = self.owner
        if owner == seat:  # the table passes to the next person still seated
            owner = _first_person(seats)
        await self._save_seats(seats, owner)
        for conn in [c for c in self.connections if c.seat == seat]:
            conn.close(1000, "you left the seat")
        return {"left": seat}

    async def _add_bots(self, token: str | None, member: int | None, level: object = None) -> dict[str, object]:
        self._require_owner(token, member)
        if self.status != "waiting":
            raise TableError("table/started", "the game has already started", status=409)
        if level is None:
            level = DEFAULT_LEVEL
        if not isinstance(level, str) or level not in LEVELS:
            raise TableError("bot/bad_level", f"a bot's level is one of {', '.join(LEVELS)}")
        seats = list(self.seats)
        added = []
        for i, s in enumerate(seats):
            if s is None:
                names = {x.name for x in seats if x is not None}
                n = next(k for k in range(1, 9) if f"Bot {k}" not in names)
                seats[i] = SeatState(f"Bot {n}", None, level=level)
                added.append(i)
        await self._save_seats(seats, self.owner)
        return {"added": added}

    async def _remove(
        self, token: str | None, seat: object, member: int | None, admin: bool = False
    ) -> dict[str, object]:
        """The owner frees a seat before the game starts: a bot's, so that a late friend can sit, or a
        person's (whose sockets are told why and closed). The owner's own seat is left with "leave".
        A club admin may free any seat, the owner's too (the next person seated then owns the table).
        """
        if not admin:
            self._require_owner(token, member)
        if self.status != "waiting":
            raise TableError("table/started", "the game has started: seats can no longer be changed", status=409)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
            raise TableError("seat/bad_seat", "seat must be 0, 1, 2 or 3")
        if self.seats[seat] is None:
            raise TableError("seat/empty", f"seat {seat} is already free", status=409)
        if seat == self.owner and not admin:
            raise TableError("seat/own", "that is your own seat: use leave to give it up", status=409)
        seats = list(self.seats)
        seats[seat] = None
        owner = self.owner
        if owner == seat:
            owner = _first_person(seats)
        await self._save_seats(seats, owner)
        who = "a club admin" if admin else "the table's owner"
        for conn in [c for c in self.connections if c.seat == seat]:
            conn.close(1000, f"{who} gave your seat to someone else")
        return {"removed": seat}

    async def _start(self, token: str | None, member: int | None) -> dict[str, object]:
        self._require_owner(token, member)
        if self.status != "waiting":
            raise TableError("table/started", "the game has already started", status=409)
        if any(s is None for s in self.seats):
            raise TableError("table/not_full", "four players are needed: invite friends or add bots", status=409)
        if self.settings.ruleset.rules.seat_draw:
            await self._draw_seats()
        await self._journal(self.journal.started(self.id, self.clock.now()))
        self.game = Game(self.settings.ruleset.rules, self.seed)
        self.status = "playing"
        now = self.clock.now()
        for s in self.seats:  # a person who never connected is away from the start
            if s is not None and not s.bot and s.connections == 0 and s.away_since is None:
                s.away_since = now
        for i, s in enumerate(self.seats):
            if s is not None and s.away_since is not None:
                self._grace_timers[i] = self._post_at(
                    s.away_since + self.settings.timers.grace, GraceOver(i, s.away_since)
                )
        self._watch_presence()
        self._after_change()
        return {"started": True}

    async def _draw_seats(self) -> None:
        """The seating draw (R2.6): the players, in the seats they took, draw the winds; each moves to
        the seat the draw gives them (seat 0 deals first), with their sockets, and the table says so
        in its chat. The new seats are stored before the game starts, so a restart finds them."""
        draw = draw_seats(self.seed)
        seats = [self.seats[p] for p in draw.order]
        moved = {p: s for s, p in enumerate(draw.order)}  # old seat → new seat
        owner = None if self.owner is None else moved[self.owner]
        names = [s.name if s is not None else "" for s in self.seats]
        thrower = names[draw.tiles.index(Tile.EAST)]
        winds = " · ".join(f"{_WIND_NAMES[w]} {names[p]}" for w, p in zip(WINDS, draw.order, strict=True))
        text = (
            f"Seats drawn: {winds}. {thrower} drew East and threw {draw.dice[0]} and {draw.dice[1]}, "
            f"so {names[draw.first_dealer]} deals first."
        )
        line: dict[str, object] = {"seat": None, "name": "Table", "text": text, "at": round(self.clock.now() * 1000)}
        await self._save_seats(seats, owner)
        await self._journal(self.journal.chat(self.id, line))
        self.chat.append(line)
        for conn in self.connections:
            if conn.seat is not None:
                conn.seat = moved[conn.seat]

    def _plan_rematch(self, token: str | None, member: int | None) -> dict[str, object]:
        """The seats a rematch starts with (the same people, with the same tokens, and the bots), or
        the rematch table if it is open already."""
        self._require_owner(token, member)
        if self.status != "over":
            raise TableError("table/not_over", "you can play again once this game is over", status=409)
        if self.rematch is not None:
            return {"table": self.rematch}
        if self._rematching:
            raise TableError("table/rematch_pending", "the new table is being set up: a moment", status=409)
        self._rematching = True
        seats = [None if s is None else SeatState(s.name, s.token_hash, s.member, level=s.level) for s in self.seats]
        return {"seats": seats, "owner": self.owner}

    async def seat_everyone(self, seats: list[SeatState | None], owner: int | None) -> None:
        """Seat these people and bots at a table that has not started (a rematch, before its task runs)."""
        await self._save_seats(seats, owner)


def _seat_record(seat: SeatState | None) -> SeatRecord | None:
    return None if seat is None else SeatRecord(seat.name, seat.token_hash, member=seat.member, level=seat.level)


def _first_person(seats: list[SeatState | None]) -> int | None:
    """The seat a table passes to when its owner's is freed: the first person still seated."""
    return next((i for i, s in enumerate(seats) if s is not None and not s.bot), None)
