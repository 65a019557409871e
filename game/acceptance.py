"""Tile acceptance, as the `strong` bot (:mod:`game.strong`) and the review (:mod:`game.review`) count it:
how far a hand of 3k + 1 concealed tiles is from ready (shanten), and how many unseen tiles would bring
it a step closer; for a ready hand, each winning tile's copies weighed by how likely they are to come.
"""

from __future__ import annotations

from collections.abc import Sequence

from game.hand_tables import Tables, tables
from game.seatview import SeatView

__all__ = ["IS_MAJOR", "MAJORS", "outs", "tile_acceptance"]

MAJORS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)  # terminals and honours
IS_MAJOR = tuple(k in MAJORS for k in range(34))

# A ready hand's winning tiles are weighed by how likely they are to come: every unseen copy is as likely
# to be drawn from the wall, but the others throw an honour or a terminal sooner than a middle tile (it
# fits fewer of their sets), and a tile one of them has already thrown, and so does not keep, sooner
# still. Measured in the arena (docs/bots.md, Levels): the weight 2 gains about 2 points a hand against
# `normal`, whose defence throws such tiles, and changes little against `greedy`.
_OUT_RANK = (1.35, 1.15, 1.0, 0.9, 0.9, 0.9, 1.0, 1.15, 1.35)  # a suit tile, by rank
_OUT_HONOUR = 1.6
_OUT_THROWN = 1.2  # and more for a tile another seat has thrown
_OUT_WEIGHT = 2.0  # how far the factors above count (0: every copy alike)


_TABLES: Tables | None = None


def _tables() -> Tables:
    global _TABLES
    if _TABLES is None:
        _TABLES = tables()
    return _TABLES


def outs(seen: SeatView) -> tuple[float, ...]:
    """How likely each kind is to come to a ready hand, per unseen copy, as :data:`_OUT_WEIGHT` weighs it."""
    thrown = {int(d.tile) for d in seen.discards if d.seat != seen.seat}
    weights = []
    for k in range(34):
        w = _OUT_HONOUR if k >= 27 else _OUT_RANK[k % 9]
        if k in thrown:
            w *= _OUT_THROWN
        weights.append(1.0 + _OUT_WEIGHT * (w - 1.0))
    return tuple(weights)


def tile_acceptance(
    hand: list[int],
    unseen: Sequence[int],
    orphans: bool,
    outs: Sequence[float] | None = None,
    kinds: list[int] | None = None,
) -> tuple[int, float]:
    """(shanten, acceptance) of a hand of 3k + 1 concealed tiles: how many unseen tiles bring it closer.

    ``orphans`` counts Thirteen Orphans (R10.3) too, for a hand without sets on the table. With ``outs``
    (:func:`outs`), the copies of a ready hand's winning tiles count by how likely they are to come.
    ``kinds`` collects the kinds that bring it closer.
    """
    t = _tables()
    suit_class, honour_class = t.suit_class, t.honour_class
    two, three, table = t.two_suits, t.three_suits, t.shanten
    classes = [
        suit_class[bytes(hand[0:9])],
        suit_class[bytes(hand[9:18])],
        suit_class[bytes(hand[18:27])],
        honour_class[bytes(hand[27:34])],
    ]
    c0, c1, c2, ch = classes
    shanten = table[three[two[c0][c1]][c2]][ch]
    distinct = paired = 0
    if orphans:
        for k in MAJORS:
            if hand[k]:
                distinct += 1
                if hand[k] >= 2:
                    paired = 1
        shanten = min(shanten, 13 - distinct - paired)
    acceptance: float = 0
    for k in range(34):
        u = unseen[k]
        n = hand[k]
        if not u or n >= 4:
            continue
        if k < 27:
            r = k % 9
            if not n and not (
                (r > 0 and hand[k - 1]) or (r < 8 and hand[k + 1]) or (r > 1 and hand[k - 2]) or (r < 7 and hand[k + 2])
            ):
                if not (orphans and IS_MAJOR[k]):
                    continue  # a tile with no neighbour in hand cannot help a standard hand
            s = k // 9
            start = 9 * s
            hand[k] = n + 1
            cls = suit_class[bytes(hand[start : start + 9])]
            hand[k] = n
            if s == 0:
                value = table[three[two[cls][c1]][c2]][ch]
            elif s == 1:
                value = table[three[two[c0][cls]][c2]][ch]
            else:
                value = table[three[two[c0][c1]][cls]][ch]
        else:
            hand[k] = n + 1
            cls = honour_class[bytes(hand[27:34])]
            hand[k] = n
            value = table[three[two[c0][c1]][c2]][cls]
        if orphans and IS_MAJOR[k]:
            value = min(value, 13 - distinct - (1 if n == 0 else 0) - (1 if paired or n >= 1 else 0))
        elif orphans:
            value = min(value, 13 - distinct - paired)
        if value < shanten:
            acceptance += u * outs[k] if outs is not None and shanten == 0 else u
            if kinds is not None:
                kinds.append(k)
    return shanten, acceptance
