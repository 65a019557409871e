"""The ready hint a table may offer (an option its owner chooses): the tiles that would complete a
seat's hand (R7) and how many of each that seat has not seen yet. Built only from what the seat
may see (R12): its own hand, every discard still on the table, and every set on the table.
"""

from __future__ import annotations

from game.deal import Deal
from game.shapes import completing_tiles
from game.tiles import NUM_PLAYING_KINDS, Tile

__all__ = ["ready_hint"]


def ready_hint(deal: Deal, seat: int) -> list[tuple[Tile, int]]:
    """``(tile, unseen copies)`` for each tile that would complete ``seat``'s hand; empty when the
    hand is not ready, or while it holds a tile to discard (3k + 2 tiles).

    >>> from game.game import Game
    >>> from game.rules import Rules
    >>> game = Game(Rules(), 1)
    >>> ready_hint(game.deal, 0)  # the dealer holds 14 tiles: a discard first
    []
    """
    counts = deal.hands[seat][:NUM_PLAYING_KINDS]
    if sum(counts) % 3 != 1:
        return []
    seen = list(counts)
    for d in deal.discards:
        if d.claimed_by is None:  # a claimed discard is counted in the claimer's set
            seen[d.tile] += 1
    for melds in deal.melds:
        for meld in melds:
            for t in meld.tiles:
                seen[t] += 1
    wins = completing_tiles(counts, deal.melds[seat], deal.held(seat), deal.rules)  # R17: the ruleset's wins
    return [(t, max(0, 4 - seen[t])) for t in wins]
