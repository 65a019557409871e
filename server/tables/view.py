"""The state document a connection receives: the engine's `view()` of the game for that seat, plus
the table around it (names, who is here, timers, the clock, chat). The game part comes only from
`game.view.view`, the one projection; the table part holds nothing secret (no tokens, no seed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from game.actions import Action
from game.game import Game, GamePhase
from game.hints import ready_hint
from game.view import ViewCache, views
from server.tables.journal import StoredTable
from server.tables.settings import TableSettings

__all__ = ["TableState", "ViewedSeat", "ViewedTable", "adjourned_public"]


class ViewedSeat(Protocol):
    """What the state document shows of a seat (`server.tables.actor.SeatState` is one)."""

    @property
    def name(self) -> str: ...
    @property
    def bot(self) -> bool: ...
    @property
    def level(self) -> str | None: ...
    @property
    def connections(self) -> int: ...
    @property
    def away_since(self) -> float | None: ...
    @property
    def substitute(self) -> bool: ...


class ViewedTable(Protocol):
    """What the state document is built from (`server.tables.actor.TableActor` is one). Read only:
    building a document never changes the table.
    """

    @property
    def id(self) -> str: ...
    @property
    def settings(self) -> TableSettings: ...
    @property
    def game(self) -> Game | None: ...
    @property
    def status(self) -> str: ...
    @property
    def paused_since(self) -> float | None: ...
    @property
    def owner(self) -> int | None: ...
    @property
    def rematch(self) -> str | None: ...
    @property
    def seats(self) -> Sequence[ViewedSeat | None]: ...
    @property
    def window(self) -> int: ...
    @property
    def deadline_kind(self) -> str | None: ...
    @property
    def deadline(self) -> float | None: ...
    @property
    def chat(self) -> Sequence[dict[str, object]]: ...
    @property
    def held(self) -> Mapping[int, tuple[Action, object, int]]: ...


class TableState:
    """Builds the per-seat state documents of one table."""

    def __init__(self, actor: ViewedTable) -> None:
        self.actor = actor
        # The settings never change: their JSON is built once. The public part is rebuilt on every
        # call but the previous object is handed out while it is equal, so the documents of a table
        # share it and `statediff.diff` passes over it by identity.
        self._settings_json = (actor.settings.ruleset.to_json(), actor.settings.timers.to_json())
        self._public: dict[str, object] | None = None
        self._seated: tuple[dict[str, object], dict[str, object]] | None = None  # (public, as the seated see it)
        self._views = ViewCache()  # the game parts that did not change are handed out again
        self._clock: dict[str, object] = {}
        self._chat: list[dict[str, object]] = []

    def document(self, seat: int | None) -> dict[str, object]:
        """Everything ``seat`` (or a spectator, ``None``) may see of the table now."""
        return self.documents((seat,))[seat]

    def documents(self, seats: Iterable[int | None]) -> dict[int | None, dict[str, object]]:
        """`document` for each of ``seats``; what they see alike is built once and shared (read-only)."""
        actor = self.actor
        wanted = set(seats)
        games: dict[int | None, dict[str, object]] = {}
        if actor.game is not None:
            games = views(actor.game, wanted, self._views)
        table = self.public()
        seated = self._seated_table(table)
        clock: dict[str, object] = {
            "window": actor.window,
            "kind": actor.deadline_kind,
            "deadline": None if actor.deadline is None else int(actor.deadline * 1000),
        }
        if clock == self._clock:  # the same object while equal: diffs pass over it by identity
            clock = self._clock
        self._clock = clock
        chat = self._chat
        if len(chat) != len(actor.chat) or (chat and chat[-1] is not actor.chat[-1]):  # a line was added
            chat = self._chat = list(actor.chat)
        documents: dict[int | None, dict[str, object]] = {
            seat: {
                "seat": seat,
                "table": table if seat is None else seated,
                "game": games.get(seat),
                "clock": clock,
                "chat": chat,
            }
            for seat in wanted
        }
        for held, (action, _conn, _request) in actor.held.items():  # held for the fair pause: its seat's alone
            if held in documents:
                documents[held]["answer"] = action.to_json()
        game = actor.game
        if actor.settings.hints and game is not None and game.phase is GamePhase.DEAL and not game.deal.over:
            for seat in wanted:  # the ready hint: from what this seat sees, for this seat alone
                if seat is not None:
                    hint = ready_hint(game.deal, seat)
                    documents[seat]["hint"] = [{"tile": t.code, "unseen": n} for t, n in hint]
        return documents

    def _seated_table(self, table: dict[str, object]) -> dict[str, object]:
        """The table as its seated players see it: a private game's rematch (the new private table,
        which anyone knowing its id could watch) is theirs alone; the rest is what anyone sees."""
        rematch = self.actor.rematch
        if table["rematch"] == rematch:
            return table
        if self._seated is None or self._seated[0] is not table:  # the same object while ``table`` is
            self._seated = (table, {**table, "rematch": rematch})
        return self._seated[1]

    def public(self) -> dict[str, object]:
        """The table as anyone may see it, in the lobby list too (and a spectator's document); a
        private game's rematch is left out (`_seated_table`)."""
        actor = self.actor
        settings = actor.settings
        ruleset, timers = self._settings_json
        fresh: dict[str, object] = {
            "id": actor.id,
            "name": settings.name,
            "public": settings.public,
            "status": actor.status,
            "paused": actor.paused_since is not None,
            "owner": actor.owner,
            "rematch": actor.rematch if settings.public else None,
            "ruleset": ruleset,
            "timers": timers,
            "seats": [
                None
                if s is None
                else {
                    "name": s.name,
                    "bot": s.bot,
                    "level": s.level if s.bot else None,
                    "connected": s.connections > 0,
                    "away": s.away_since is not None,
                    "substitute": s.substitute,
                }
                for s in actor.seats
            ],
        }
        cached = self._public
        if cached is not None and cached == fresh:
            return cached
        self._public = fresh
        return fresh


def adjourned_public(stored: StoredTable) -> dict[str, object]:
    """An adjourned table that no process runs, as `TableState.public` shows it once it is brought back:
    paused, nobody connected, every person away."""
    settings = stored.settings
    seats: list[dict[str, object] | None] = []
    for s in stored.seats:
        bot = s is not None and s.token_hash is None  # as the table brought back seats it (`TableActor._load`)
        seats.append(
            None
            if s is None
            else {
                "name": s.name,
                "bot": bot,
                "level": s.level if bot else None,
                "connected": False,
                "away": not bot,
                "substitute": False,
            }
        )
    return {
        "id": stored.id,
        "name": settings.name,
        "public": settings.public,
        "status": "adjourned",
        "paused": True,
        "owner": stored.owner,
        "rematch": None,
        "ruleset": settings.ruleset.to_json(),
        "timers": settings.timers.to_json(),
        "seats": seats,
    }
