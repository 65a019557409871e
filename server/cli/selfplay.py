"""Self-play driver shared by ``sparrow simulate`` and ``sparrow play``: the built-in policy plays
every seat; games follow one another until the requested number of deals (hands) is done.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from game import Event, Game, GamePhase, Rules
from game.policy import choose

__all__ = ["SelfPlay", "play_deals"]

EventHook = Callable[[Game, Event], None]


@dataclass
class SelfPlay:
    """Running totals of a self-play run: deals by how they ended, actions applied, a digest."""

    endings: Counter[str] = field(default_factory=Counter)
    actions: int = 0
    _digests: list[str] = field(default_factory=list, repr=False)

    @property
    def hands(self) -> int:
        """Deals finished."""
        return sum(self.endings.values())

    @property
    def digest(self) -> str:
        """SHA-256 over every finished deal's full game state: equal for equal arguments."""
        return hashlib.sha256("".join(self._digests).encode()).hexdigest()

    def record(self, game: Game, end: Event) -> None:
        """Count one finished deal."""
        self.endings[str(end["termination"])] += 1
        self._digests.append(game.digest())


def play_deals(
    hands: int, seed: int | str, rules: Rules | None = None, on_event: EventHook | None = None
) -> Iterator[SelfPlay]:
    """Play ``hands`` deals with the built-in policy; yield the running totals after each one."""
    rules = rules or Rules()
    totals = SelfPlay()
    number = 0
    game: Game | None = None
    while totals.hands < hands:
        if game is None or game.phase is GamePhase.OVER:
            game = Game(rules, seed=f"{seed}/{number}")
            number += 1
            events = game.opening_events
        else:
            seat = game.to_act()[0]
            events = game.apply(seat, choose(game, seat))
            totals.actions += 1
        for event in events:
            if on_event is not None:
                on_event(game, event)
            if event["type"] == "deal_end":
                totals.record(game, event)
                yield totals
                if totals.hands >= hands:
                    return
