"""The seating draw (R2.6): who sits where, and who deals first, drawn from the game's seed.

At a real table the four wind tiles are shuffled face down and each player takes one; the tiles
decide the places around the table, and the player who took East throws two dice to decide who deals
first. Here the same two steps run on a generator started from the game's seed (a stream of its own,
so the deals' shuffles are what they would be without it): the same seed always seats the same way.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from game.tiles import WINDS, Tile

__all__ = ["SeatDraw", "draw_seats"]


@dataclass(frozen=True, slots=True)
class SeatDraw:
    """The result of the seating draw for four players, numbered by the order they sat down (0–3).

    ``tiles[p]`` is the wind tile player ``p`` drew; ``dice`` the two dice thrown by the player who
    drew East; ``order[s]`` the player who takes seat ``s`` (seat 0 is the first dealer, East, and
    the others follow in turn order, R2.1).
    """

    tiles: tuple[Tile, Tile, Tile, Tile]
    dice: tuple[int, int]
    order: tuple[int, int, int, int]

    @property
    def first_dealer(self) -> int:
        """The player (by arrival) who deals first: seat 0's."""
        return self.order[0]


def draw_seats(seed: int | str) -> SeatDraw:
    """The seating draw of the game with ``seed`` (R2.6).

    1. The four winds are shuffled and player ``p`` takes the ``p``-th: the tiles set the places,
       East, South, West and North following each other in turn order.
    2. The player who drew East throws two dice and counts in turn order, themself first: the
       player the count ends on deals first, and so sits East for the first deal.

    >>> draw_seats(7) == draw_seats(7)
    True
    >>> sorted(draw_seats(7).order)
    [0, 1, 2, 3]
    """
    rng = random.Random(f"sparrow/{seed}/seats")
    tiles = list(WINDS)
    rng.shuffle(tiles)
    dice = (rng.randint(1, 6), rng.randint(1, 6))
    first = (sum(dice) - 1) % 4  # the count's last place, counted from East's (R2.6, step 2)
    by_place = {WINDS.index(t): p for p, t in enumerate(tiles)}  # place around the table → player
    order = tuple(by_place[(first + s) % 4] for s in range(4))
    return SeatDraw((tiles[0], tiles[1], tiles[2], tiles[3]), dice, (order[0], order[1], order[2], order[3]))
