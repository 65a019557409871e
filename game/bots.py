"""The bots, by name: each decides from one seat's :class:`~game.seatview.SeatView` and nothing else.

A bot is any object with a ``name`` and a ``decide(seen) -> Action`` method (:class:`Bot`);
:func:`make_bot` builds one by name from a seed. The built-in names:

- ``random``: a uniformly random legal action, from its own seeded generator.
- ``greedy``: speed only. It declares every win it can (R7.3); otherwise it throws the tile that leaves
  its hand fewest tiles from ready (shanten), the highest tile in notation order among equals
  (honours first, then dots, characters, bamboo, high ranks before low); it claims a set only when
  that brings the hand closer to ready and declares a kong in its own turn when that costs nothing.
  It knows no value and no defence.
- ``normal``: the built-in policy (:mod:`game.policy`), the level the server plays by default.

The levels ``easy`` and ``strong`` live in their own modules and are registered in :data:`BOTS`.

>>> from game.game import Game
>>> from game.seatview import SeatView
>>> make_bot("greedy", 0).decide(SeatView.of(Game(seed=1), 0)).type.value
'discard'
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol

from game.actions import Action, ActionType
from game.easy import EasyBot
from game.hand import shanten
from game.policy import decide as _policy_decide
from game.seatview import SeatView
from game.strong import StrongBot

__all__ = ["BOTS", "LEVELS", "Bot", "Declaring", "GreedyBot", "NormalBot", "RandomBot", "make_bot"]


class Bot(Protocol):
    """Anything that can play a seat: it is given that seat's view and answers with a legal action."""

    @property
    def name(self) -> str:
        """The name :func:`make_bot` knows it by."""
        ...

    def decide(self, seen: SeatView) -> Action:
        """One of ``seen.legal``."""
        ...


Seed = int | str


class RandomBot:
    """A uniformly random legal action; the same seed gives the same sequence of choices."""

    name = "random"

    def __init__(self, seed: Seed = 0) -> None:
        self._rng = random.Random(f"sparrow-bot/random/{seed}")

    def decide(self, seen: SeatView) -> Action:
        """A legal action picked at random.

        :raises ValueError: if the seat has nothing to do.
        """
        if not seen.legal:
            raise ValueError(f"seat {seen.seat} has nothing to do now")
        return seen.legal[self._rng.randrange(len(seen.legal))]


class GreedyBot:
    """Shanten and nothing else; deterministic, so its seed is ignored."""

    name = "greedy"

    def __init__(self, seed: Seed = 0) -> None:
        del seed

    def decide(self, seen: SeatView) -> Action:
        """Win if possible, else the move that leaves the hand fewest tiles from ready.

        :raises ValueError: if the seat has nothing to do.
        """
        by_type = seen.by_type()
        plain = seen.obvious(by_type)
        if plain is not None:
            return plain
        hand = list(seen.hand)
        if ActionType.PASS in by_type:
            return _greedy_claim(seen, by_type)
        now = shanten(hand)
        for kong in by_type.get(ActionType.KONG, []):
            assert kong.tile is not None
            after = list(hand)
            after[kong.tile] -= 4 if hand[kong.tile] == 4 else 1
            if shanten(after) <= now:  # a loose tile follows (R6.1): the hand keeps its size class
                return kong
        return _greedy_discard(hand, by_type[ActionType.DISCARD])


def _greedy_discard(hand: list[int], discards: Sequence[Action]) -> Action:
    best: tuple[int, int] | None = None
    choice = discards[0]
    for action in discards:
        assert action.tile is not None
        hand[action.tile] -= 1
        key = (shanten(hand), -int(action.tile))
        hand[action.tile] += 1
        if best is None or key < best:
            best, choice = key, action
    return choice


def _greedy_claim(seen: SeatView, by_type: dict[ActionType, list[Action]]) -> Action:
    """The claim that brings the hand closest to ready, if any brings it closer than passing does."""
    choice = by_type[ActionType.PASS][0]
    if seen.offered is None:
        return choice
    best = shanten(list(seen.hand))
    for kind in (ActionType.CHOW, ActionType.PUNG, ActionType.KONG):
        for action in by_type.get(kind, []):
            after = seen.hand_after(action)
            if kind is ActionType.KONG:
                value = shanten(after)  # a loose tile follows
            else:
                value = min(_without(after, k) for k in range(len(after)) if after[k])
            if value < best:
                best, choice = value, action
    return choice


def _without(hand: list[int], tile: int) -> int:
    hand[tile] -= 1
    value = shanten(hand)
    hand[tile] += 1
    return value


class NormalBot:
    """The built-in policy (:func:`game.policy.decide`); deterministic, so its seed is ignored."""

    name = "normal"

    def __init__(self, seed: Seed = 0) -> None:
        del seed

    def decide(self, seen: SeatView) -> Action:
        """The policy's choice.

        :raises ValueError: if the seat has nothing to do.
        """
        return _policy_decide(seen)


#: Every bot by name: a callable that takes a seed and returns a new bot.
BOTS: dict[str, Callable[[Seed], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "normal": NormalBot,
    "easy": EasyBot,
    "strong": StrongBot,
}

#: The levels a table offers, weakest first: those of easy, normal and strong that are registered.
LEVELS: tuple[str, ...] = tuple(name for name in ("easy", "normal", "strong") if name in BOTS)


def make_bot(name: str, seed: Seed = 0) -> Bot:
    """A new bot called ``name``; ``seed`` fixes whatever randomness it has. Every bot plays Original
    Call (R5.4) the same way: see :class:`Declaring`.

    :raises ValueError: if no bot has that name (the message lists the names there are).
    """
    factory = BOTS.get(name)
    if factory is None:
        raise ValueError(f"no bot called {name!r}; the bots are {', '.join(sorted(BOTS))}")
    return Declaring(factory(seed))


_WIN = Action(ActionType.WIN)
_PASS = Action(ActionType.PASS)


class Declaring:
    """Any bot, plus Original Call (R5.4) where the ruleset has it: when the discard the bot chooses
    is its first and leaves the hand calling, it declares Original Call with it; once declared, it
    keeps the hand as it stands (it wins when it can, throws each tile it draws and claims nothing
    else), so it never breaks its call.
    """

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    @property
    def name(self) -> str:
        """The wrapped bot's name."""
        return self.bot.name

    def decide(self, seen: SeatView) -> Action:
        """The wrapped bot's choice, but for Original Call."""
        legal = seen.legal
        if seen.calls[seen.seat] == "declared":
            if _WIN in legal:
                return _WIN
            if seen.turn == "turn" and seen.drawn is not None and Action(ActionType.DISCARD, seen.drawn) in legal:
                return Action(ActionType.DISCARD, seen.drawn)
            if seen.turn in ("claim", "rob") and _PASS in legal:
                return _PASS
        choice = self.bot.decide(seen)
        if choice.type is ActionType.DISCARD and Action(ActionType.ORIGINAL_CALL, choice.tile) in legal:
            return Action(ActionType.ORIGINAL_CALL, choice.tile)
        return choice
