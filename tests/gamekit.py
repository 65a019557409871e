"""Stacked walls: lay out exactly the tiles a scenario needs (imported as ``from gamekit import …``)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from game import Game, Rules, Tile, Wall, parse_tiles
from game.tiles import full_set


def stacked_wall(
    hands: Sequence[str],
    draws: str = "",
    loose: str = "",
    rules: Rules | None = None,
    filler_seed: int = 0,
    tail: str = "",
) -> Wall:
    """A wall dealing ``hands[i]`` (13 tiles each) to the i-th seat from the dealer in turn order,
    then the tiles of ``draws`` in order (the first is the dealer's 14th), with ``loose`` first in
    the dead wall and ``tail`` last in the live wall. The rest of the set fills the walls in a fixed
    shuffled order.
    """
    rules = rules or Rules()
    assert len(hands) == 4
    dealt = [parse_tiles(h) for h in hands]
    for i, h in enumerate(dealt):
        assert len(h) == 13, f"hand {i} has {len(h)} tiles, not 13"
    head = [t for h in dealt for t in h] + parse_tiles(draws)
    dead_head = parse_tiles(loose)
    live_tail = parse_tiles(tail)
    left = Counter(full_set(rules.flowers))
    left.subtract(head + dead_head + live_tail)
    over = [t for t, n in left.items() if n < 0]
    assert not over, f"more copies of {over} than the set holds"
    filler = sorted(left.elements())
    random.Random(filler_seed).shuffle(filler)
    dead_fill = rules.dead_wall - len(dead_head)
    assert dead_fill >= 0, "more loose tiles than the dead wall holds"
    dead = dead_head + filler[:dead_fill]
    live = head + filler[dead_fill:] + live_tail
    return Wall(live, dead)


def stacked_game(
    hands: Sequence[str],
    draws: str = "",
    loose: str = "",
    rules: Rules | None = None,
    filler_seed: int = 0,
    tail: str = "",
) -> Game:
    """A game whose first deal uses :func:`stacked_wall` (seat 0 deals); later deals are seeded."""
    rules = rules or Rules()
    first = stacked_wall(hands, draws, loose, rules, filler_seed, tail)

    def walls(n: int) -> Wall:
        return first if n == 0 else Wall.shuffled(f"stacked/{n}", rules)

    return Game(rules, seed="stacked", walls=walls)


def T(code: str) -> Tile:
    """Shorthand: the tile written ``code``."""
    return Tile.parse(code)
