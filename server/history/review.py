"""Reviews of stored or exported games (issue 35): :func:`game.review.review` over a :class:`GameLog`."""

from __future__ import annotations

from game.game import Game
from game.review import GameReview, review
from server.history.logfile import GameLog

__all__ = ["default_seat", "review_log"]


def review_log(log: GameLog, seat: int, *, finished_only: bool = False) -> GameReview:
    """``seat``'s review of the game ``log`` holds (as far as it goes; ``finished_only``: its finished
    hands only). Decisions its clock or a stand-in bot made for a person are reviewed, not counted.

    :raises ValueError: if ``seat`` is not 0–3.
    :raises RulesError: if a stored action does not replay (a corrupted store).
    """
    actions = [(a.seat, a.action) for a in log.actions]
    # A bot seat's own actions are its choices ("bot"); a timer's or a stand-in's are not the seat's.
    made_by = [None if a.auto in (None, "bot") else a.auto for a in log.actions]
    return review(Game(log.rules, log.seed), actions, seat, finished_only=finished_only, made_by=made_by)


def default_seat(log: GameLog) -> int:
    """The seat to review when none is named: the first played by a person, else seat 0."""
    return next((s for s, who in enumerate(log.seats) if not who.get("bot")), 0)
