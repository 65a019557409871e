"""The wall (R3): a seeded shuffle split into the live wall and the dead wall (kong box)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from game.rules import Rules
from game.tiles import Tile, full_set

__all__ = ["Wall", "deal_seed"]


def deal_seed(seed: int | str, deal_number: int) -> str:
    """The shuffle seed of one deal of a game: derived from the game's seed, so a game is one seed (R3.1)."""
    return f"sparrow/{seed}/{deal_number}"


class Wall:
    """Live wall and dead wall. Draws come only from the live wall (R3.3); loose tiles only from the
    dead wall, which is never replenished (R3.2). Tiles leave only through :meth:`draw` and :meth:`draw_loose`.
    """

    __slots__ = ("_live", "_dead")

    def __init__(self, live: Sequence[Tile], dead: Sequence[Tile]) -> None:
        # Kept reversed, so the next tile of each wall is the last item: a draw is a pop.
        self._live: list[Tile] = list(reversed(live))
        self._dead: list[Tile] = list(reversed(dead))

    @classmethod
    def shuffled(cls, seed: int | str, rules: Rules) -> Wall:
        """The wall for ``seed``: the whole set shuffled by a seeded generator (R3.1), the last
        ``rules.dead_wall`` tiles set aside as the dead wall (R3.2).

        >>> w = Wall.shuffled("x", Rules())
        >>> w.live_count, w.dead_count
        (130, 14)
        """
        tiles = full_set(rules.flowers)
        random.Random(str(seed)).shuffle(tiles)
        split = len(tiles) - rules.dead_wall
        return cls(tiles[:split], tiles[split:])

    @property
    def live_count(self) -> int:
        """Tiles left in the live wall."""
        return len(self._live)

    @property
    def dead_count(self) -> int:
        """Tiles left in the dead wall."""
        return len(self._dead)

    def draw(self) -> Tile:
        """Take the next tile of the live wall.

        :raises IndexError: if the live wall is empty (the caller ends the deal first, R3.3).
        """
        return _take(self._live, "the live wall is empty")

    def draw_loose(self) -> Tile:
        """Take the next loose tile from the dead wall.

        :raises IndexError: if the dead wall is empty (the caller ends the deal first, R3.2).
        """
        return _take(self._dead, "the dead wall is empty")

    def remaining(self) -> tuple[tuple[Tile, ...], tuple[Tile, ...]]:
        """The tiles still in the live and dead walls, in order. Secret: never for players (R12.2)."""
        return tuple(reversed(self._live)), tuple(reversed(self._dead))


def _take(tiles: list[Tile], empty: str) -> Tile:
    if not tiles:
        raise IndexError(empty)
    return tiles.pop()
