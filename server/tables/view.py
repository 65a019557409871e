"""The state document a connection receives: the engine's `view()` of the game for that seat, plus
the table around it (names, who is here, timers, the clock, chat). The game part comes only from
`game.view.view`, the one projection; the table part holds nothing secret (no tokens, no seed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from game.view import view

if TYPE_CHECKING:
    from server.tables.actor import TableActor

__all__ = ["TableState"]


class TableState:
    """Builds the per-seat state documents of one table."""

    def __init__(self, actor: TableActor) -> None:
        self.actor = actor

    def document(self, seat: int | None) -> dict[str, object]:
        """Everything ``seat`` (or a spectator, ``None``) may see of the table now."""
        actor = self.actor
        return {
            "seat": seat,
            "table": self.public(),
            "game": None if actor.game is None else view(actor.game, seat),
            "clock": {
                "window": actor.window,
                "kind": actor.deadline_kind,
                "deadline": None if actor.deadline is None else int(actor.deadline * 1000),
            },
            "chat": list(actor.chat),
        }

    def public(self) -> dict[str, object]:
        """The table as anyone may see it, in the lobby list too."""
        actor = self.actor
        settings = actor.settings
        return {
            "id": actor.id,
            "name": settings.name,
            "public": settings.public,
            "status": actor.status,
            "owner": actor.owner,
            "ruleset": settings.ruleset.to_json(),
            "timers": settings.timers.to_json(),
            "seats": [
                None
                if s is None
                else {
                    "name": s.name,
                    "bot": s.bot,
                    "connected": s.connections > 0,
                    "away": s.away_since is not None,
                    "substitute": s.substitute,
                }
                for s in actor.seats
            ],
        }
