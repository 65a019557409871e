"""What the parts of a table actor share: the attributes `TableActor` (server/tables/actor.py) sets
and the methods it defines, declared once for its parts, seating (server/tables/seating.py),
presence (server/tables/presence.py) and handover (server/tables/handover.py), which it inherits."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from game.actions import Action
    from game.game import Game
    from server.tables.clock import Clock, Timer
    from server.tables.connection import Connection
    from server.tables.journal import Journal
    from server.tables.messages import Message
    from server.tables.seating import SeatState
    from server.tables.settings import TableSettings

__all__ = ["TableParts"]


class TableParts:
    """The actor's state and methods that its parts use (declarations only)."""

    id: str
    settings: TableSettings
    clock: Clock
    journal: Journal
    seed: int
    seats: list[SeatState | None]
    owner: int | None
    game: Game | None
    status: str
    connections: set[Connection]
    chat: deque[dict[str, object]]
    deadline: float | None
    window: int
    held: dict[int, tuple[Action, Connection, int]]
    inbox: asyncio.Queue[Message]
    paused_since: float | None
    adjourn_after: float
    rematch: str | None
    _rematching: bool
    _grace_timers: dict[int, Timer]
    _bot_timers: dict[int, Timer]
    _empty_since: float | None
    _presence_timer: Timer | None
    _deadline_timer: Timer | None
    _pause_timer: Timer | None
    _pause_at: float | None
    _left_at: float
    _over_at: float | None

    if TYPE_CHECKING:

        async def _journal(self, write: Awaitable[None]) -> None: ...
        def _post_at(self, when: float, msg: Message) -> Timer: ...
        def _publish(self, only: int | None = None) -> None: ...
        def _cancel(self, timer: Timer | None) -> None: ...
        def _cancel_all(self) -> None: ...
        def _after_change(self, only: int | None = None) -> None: ...
        def _arm_deadline(self, game: Game, extra: float = 0.0) -> None: ...
        def _schedule_bots(self) -> None: ...
        def _seat_of(self, token: object, member: int | None = None) -> int | None: ...
        def _watch_presence(self, extra: float = 0.0) -> None: ...
        def _people_here(self) -> bool: ...
        def _snapshot(self, conn: Connection) -> None: ...
        def _new_decision(self, game: Game) -> bool: ...
        def _retry(self, attempt: int, msg: Message) -> Timer: ...
        def _close(self, code: int) -> None: ...
