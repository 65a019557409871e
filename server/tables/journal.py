"""Where a table writes what happened, before anyone is told (ARCHITECTURE lesson 11).

`server.store.journal.SqlJournal` keeps it in the database; `MemoryJournal` keeps it in lists (tests,
and ``sparrow serve --db memory``). A journal also hands back, on start, every table that was not
finished, so it can be rebuilt to the exact action. An adjourned table is stored as such and is not
handed back on start: it is loaded when someone opens it (`server.lobby.Lobby.find`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # (annotations only: the journal's writer process imports this module, and no game)
    from game.deal import Event
    from server.tables.settings import TableSettings

__all__ = [
    "WriteOutcomeUnknown",
    "Journal",
    "MemoryJournal",
    "Record",
    "STAND_IN",
    "SeatRecord",
    "StoredTable",
    "hash_token",
    "new_table_id",
]


STAND_IN = "stand-in"  # an action's `auto` when a bot played the seat of a person who was away (R2, lesson 8)


def new_table_id() -> str:
    """A new table's (and its game's) id: 12 unguessable URL-safe characters, never starting with
    "-", which a command line takes for an option (`sparrow export -Xb…` failed)."""
    while True:
        table_id = secrets.token_urlsafe(9)
        if not table_id.startswith("-"):
            return table_id


def hash_token(token: str) -> str:
    """The SHA-256 hex digest kept in place of a seat token (tokens themselves are never stored)."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """Who sits in a seat: a name, a token hash (None for a bot), and the member it belongs to, if any."""

    name: str
    token_hash: str | None
    bot: bool | None = None  # None: a bot exactly when there is no token (imported games have no tokens)
    member: int | None = None
    level: str | None = None  # a bot's level ("easy", "normal", "strong"); None for a person


@dataclass(frozen=True, slots=True)
class Record:
    """One accepted action: the game version it produced, who acted, the action and its events."""

    table: str
    version: int
    seat: int
    action: dict[str, object]
    events: list[Event]
    at: float
    auto: str | None = None  # "timer", "bot" or STAND_IN when the server acted for the seat
    deal: int = 0  # the deal the action was played in: its number, dealer and prevailing wind
    dealer: int = 0
    round_wind: str = "E"


@dataclass(slots=True)
class StoredTable:
    """Everything needed to rebuild a table: settings, seed, seats, and the action log."""

    id: str
    settings: TableSettings
    seed: int
    created: float
    status: str = "waiting"  # waiting, playing, adjourned, over; stopped (closed before it ended)
    owner: int | None = None
    seats: list[SeatRecord | None] = field(default_factory=lambda: [None] * 4)
    actions: list[tuple[int, dict[str, object]]] = field(default_factory=list)
    chat: list[dict[str, object]] = field(default_factory=list)


class WriteOutcomeUnknown(RuntimeError):
    """A write whose commit went unanswered: it may or may not be stored. Whoever made it must not
    say that nothing changed; the table is rebuilt from what the journal holds (lesson 17).
    """


class WriteRefused(RuntimeError):
    """A write the journal refused, having said why in one line of its own (a table another process
    has taken over: server/store/journal.py): nothing was stored, and whoever made it logs no more.
    """


class Journal(Protocol):
    """Durable record of tables and their actions. Each call returns once the write is durable."""

    trouble: str | None  # why writes are failing now, or None (shown by /healthz)

    async def table_created(self, table: StoredTable) -> None:
        """A new table (no seats yet)."""

    async def seats_changed(self, table: str, seats: list[SeatRecord | None], owner: int | None) -> None:
        """The seats (and the owner) are now these."""

    async def started(self, table: str, at: float) -> None:
        """The game began."""

    async def record(self, record: Record) -> None:
        """One accepted action."""

    async def chat(self, table: str, line: dict[str, object]) -> None:
        """A chat line."""

    async def stopped(self, table: str) -> None:
        """The table was closed before its game ended: kept, but never restored."""

    async def adjourned(self, table: str) -> None:
        """The game was adjourned: kept, not restored on start, brought back when someone opens it."""

    async def resumed(self, table: str) -> None:
        """The adjourned game is being played again."""

    async def unfinished(self) -> list[StoredTable]:
        """Every table that is waiting or playing (not adjourned), with its log, oldest first."""

    async def load(self, table: str) -> StoredTable | None:
        """One table as stored, with its log (None if there is no such table)."""

    async def status(self, table: str) -> str | None:
        """The stored status of ``table`` (`StoredTable.status`), None if there is no such table."""

    async def adjourned_tables(self, member: int | None, limit: int) -> list[StoredTable]:
        """The newest ``limit`` public adjourned tables, newest first: those where the member ``member``
        sat (None: every one). Their seats, without their logs or chat."""


@dataclass
class MemoryJournal:
    """A journal that keeps everything in memory: lost when the process ends."""

    tables: dict[str, StoredTable] = field(default_factory=dict)
    records: list[Record] = field(default_factory=list)
    trouble: str | None = None  # memory never fails

    async def table_created(self, table: StoredTable) -> None:
        """Keep the table."""
        self.tables[table.id] = table

    async def seats_changed(self, table: str, seats: list[SeatRecord | None], owner: int | None) -> None:
        """Replace the seats."""
        self.tables[table].seats, self.tables[table].owner = list(seats), owner

    async def started(self, table: str, at: float) -> None:
        """Mark it playing."""
        self.tables[table].status = "playing"

    async def record(self, record: Record) -> None:
        """Append the record."""
        self.records.append(record)
        stored = self.tables.get(record.table)
        if stored is not None:
            stored.actions.append((record.seat, record.action))
            if any(e["type"] == "game_end" for e in record.events):
                stored.status = "over"

    async def chat(self, table: str, line: dict[str, object]) -> None:
        """Append the line."""
        self.tables[table].chat.append(line)

    async def stopped(self, table: str) -> None:
        """Mark it stopped."""
        self.tables[table].status = "stopped"

    async def adjourned(self, table: str) -> None:
        """Mark it adjourned."""
        self.tables[table].status = "adjourned"

    async def resumed(self, table: str) -> None:
        """Mark it playing again."""
        self.tables[table].status = "playing"

    async def unfinished(self) -> list[StoredTable]:
        """Tables waiting or playing."""
        return [t for t in self.tables.values() if t.status in ("waiting", "playing")]

    async def status(self, table: str) -> str | None:
        """The table's status, if it is kept."""
        stored = self.tables.get(table)
        return None if stored is None else stored.status

    async def adjourned_tables(self, member: int | None, limit: int) -> list[StoredTable]:
        """The public adjourned tables ``member`` sat at (None: every one), newest first."""
        found = [
            t
            for t in self.tables.values()
            if t.status == "adjourned"
            and t.settings.public
            and (member is None or any(s is not None and s.member == member for s in t.seats))
        ]
        found.sort(key=lambda t: t.created, reverse=True)
        return [dataclasses.replace(t, seats=list(t.seats), actions=[], chat=[]) for t in found[:limit]]

    async def load(self, table: str) -> StoredTable | None:
        """The table as kept (a copy, so that rebuilding from it cannot change it)."""
        stored = self.tables.get(table)
        if stored is None:
            return None
        return dataclasses.replace(
            stored, seats=list(stored.seats), actions=list(stored.actions), chat=list(stored.chat)
        )
