"""Sparrow's rules engine for Chinese Classical Mahjong: pure, typed and deterministic.

Vocabulary, used everywhere:

- **tile**: one of the 42 kinds (:class:`Tile`), written in R0 notation (``5b``, ``W``, ``2f``).
- **meld**: a set declared on the table (chow, pung, kong), :class:`Meld`.
- **hand**: one seat's tiles (concealed tiles, melds and bonus tiles).
- **deal**: from the shuffle to a win or a wash-out, :class:`Deal`.
- **game**: a series of deals over one or four prevailing-wind rounds, :class:`Game`.
- **seat**: 0–3, fixed for the table; the seat wind rotates between deals (seat ``dealer`` is East).

The API, in the spirit of python-chess::

    game = Game(Rules(), seed=7)
    legal_actions(game, seat)          # exactly what that seat may do now
    events = apply(game, seat, action) # events caused, or an error saying why not
    view(game, seat_or_None)           # the one projection for players (R12)
    digest(game)                       # same rules + seed + actions => same digest

This package does no I/O (but for the lookup tables' cache file, :mod:`game.cachefile`), reads no clock
and uses no randomness but the seeded shuffle.
"""

from __future__ import annotations

from collections.abc import Mapping

from game.actions import Action, ActionType
from game.deal import Deal, DealPhase, DealResult, Event, Termination
from game.errors import IllegalActionError, InvalidActionError, Reason, RulesError
from game.game import Game, GamePhase, Outcome, replay
from game.melds import Meld, MeldKind
from game.notation import NotationError, format_tiles, parse_tiles
from game.rules import OptionError, Rules
from game.tiles import Tile
from game.view import view
from game.wall import Wall

__all__ = [
    "Action",
    "ActionType",
    "Deal",
    "DealPhase",
    "DealResult",
    "Event",
    "Game",
    "GamePhase",
    "IllegalActionError",
    "InvalidActionError",
    "Meld",
    "MeldKind",
    "NotationError",
    "OptionError",
    "Outcome",
    "Reason",
    "Rules",
    "RulesError",
    "Termination",
    "Tile",
    "Wall",
    "apply",
    "digest",
    "format_tiles",
    "legal_actions",
    "parse_tiles",
    "replay",
    "view",
]


def legal_actions(game: Game, seat: int) -> list[Action]:
    """Exactly the actions ``seat`` may take now (including ``pass`` in a claim window)."""
    return game.legal_actions(seat)


def apply(game: Game, seat: int, action: Action | Mapping[str, object] | str) -> list[Event]:
    """Apply ``seat``'s action to ``game`` and return the events it caused.

    :raises InvalidActionError: if the action is malformed.
    :raises IllegalActionError: if it is not allowed now (the game is unchanged).
    """
    return game.apply(seat, action)


def digest(game: Game) -> str:
    """A SHA-256 digest of the complete state (secrets included; the digest reveals none)."""
    return game.digest()
