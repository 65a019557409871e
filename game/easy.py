"""The "easy" bot level (issue 22): the normal policy, with a beginner's slips.

:class:`EasyBot` asks the built-in policy (:func:`game.policy.decide`) what to do and then, driven by its
own seeded generator, sometimes does something a little worse, the way a new player does:

- it never misses a win (R7.3): a complete hand is always declared;
- it misses some claims: when the policy would claim a chow, pung or kong, it passes instead about a
  third of the time (:data:`MISSED_CLAIM`);
- about one discard in seven (:data:`SLIP`) is another tile than the policy's choice, one that leaves
  the hand at most one step further from ready;
- its defence is weak: it decides as if no opponent's exposed sets said anything, so it neither avoids
  feeding a shown big hand nor keeps back the tile that would make it pay for one (pao, R11.3).

The same seed and the same views give the same choices.
"""

from __future__ import annotations

import dataclasses
import random

from game.actions import Action, ActionType
from game.hand import shanten
from game.policy import decide as policy_decide
from game.seatview import SeatView
from game.tiles import Tile

__all__ = ["EasyBot", "MISSED_CLAIM", "SLIP"]

MISSED_CLAIM = 0.35
"""Chance of passing on a claim the normal policy would make."""

SLIP = 0.15
"""Chance of throwing another tile than the normal policy's choice."""


class EasyBot:
    """The "easy" level: see the module docstring."""

    name = "easy"

    def __init__(self, seed: int | str = 0) -> None:
        self._rng = random.Random(f"sparrow-bot/easy/{seed}")

    def decide(self, seen: SeatView) -> Action:
        """The bot's action for ``seen``, one of ``seen.legal``.

        :raises ValueError: if the seat has nothing to do.
        """
        if not seen.legal:
            raise ValueError(f"seat {seen.seat} has nothing to do now")
        if seen.phase != "deal":
            return policy_decide(seen)
        # Weak defence: the policy is shown no opponent's sets, so it reads no danger from them.
        own = tuple(m if s == seen.seat else () for s, m in enumerate(seen.melds))
        choice = policy_decide(dataclasses.replace(seen, melds=own))
        if choice.type in (ActionType.CHOW, ActionType.PUNG, ActionType.KONG) and seen.offered is not None:
            if self._rng.random() < MISSED_CLAIM:
                return next(a for a in seen.legal if a.type is ActionType.PASS)
            return choice
        if choice.type is ActionType.DISCARD and self._rng.random() < SLIP:
            return self._slip(seen, choice)
        return choice

    def _slip(self, seen: SeatView, choice: Action) -> Action:
        """Another discard than ``choice``, leaving the hand at most one step further from ready."""
        hand = list(seen.hand)
        after: dict[int, int] = {}
        for a in seen.legal:
            if a.type is ActionType.DISCARD and a.tile is not None and a.tile not in after:
                hand[a.tile] -= 1
                after[a.tile] = shanten(hand)
                hand[a.tile] += 1
        assert choice.tile is not None
        limit = after[choice.tile] + 1
        others = sorted(t for t, s in after.items() if t != choice.tile and s <= limit)
        if not others:
            return choice
        return Action(ActionType.DISCARD, Tile(self._rng.choice(others)))
