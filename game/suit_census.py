"""One-suit hand census (R15.4): how many hands of N tiles of one suit wait on how many ranks.

The hands are count vectors over the ranks 1–9 of one suit, each count 0–4, summing to N
(0 ≤ N ≤ 17: up to a 16-tile variant's hand plus its winning tile). They are enumerated from
the complete side: the complete vectors are built set by set (with deduplication at every
level), and each complete vector w of N + 1 tiles makes ``w − one tile of rank r`` wait on r.
No other table is needed; the largest census (N = 16) takes about a sixth of a second.

Vectors are ints with one nibble per rank (rank 1 in the lowest nibble). Adding 3 to every
nibble sets a nibble's top bit exactly when its count passed 4, so one add and one mask test
reject a vector with a fifth copy.

>>> census(13)["by_waits"]["9"]  # Nine Gates 1112345678999: the only hand waiting on all nine (R10.4)
1
"""

from __future__ import annotations

import functools
from typing import TypedDict, final

__all__ = ["MAX_TILES", "WaitCensus", "CompleteCensus", "census", "hands_count", "complete_vectors"]

MAX_TILES = 17
"""Largest N the census covers: five sets and a pair, the whole hand of a 16-tile variant."""

_RANKS = 9
_OFFSET = 0x333333333  # 3 in every nibble
_HIGH = 0x888888888  # the top bit of every nibble
_PUNGS = tuple(3 << 4 * r for r in range(_RANKS))
_CHOWS = tuple((1 << 4 * r) | (1 << 4 * (r + 1)) | (1 << 4 * (r + 2)) for r in range(_RANKS - 2))
_SETS = _PUNGS + _CHOWS
_PAIRS = tuple(2 << 4 * r for r in range(_RANKS))
_ONES = tuple(1 << 4 * r for r in range(_RANKS))


@final
class WaitCensus(TypedDict):
    """Census of N ≡ 1 (mod 3) tiles: ``by_waits[str(k)]`` hands are completed by exactly k ranks."""

    tiles: int
    hands: int
    by_waits: dict[str, int]


@final
class CompleteCensus(TypedDict):
    """Census of N ≡ 0 or 2 (mod 3) tiles: how many hands are complete."""

    tiles: int
    hands: int
    complete: int


@functools.cache
def _sets_only(sets: int) -> frozenset[int]:
    """Packed vectors that are exactly ``sets`` chows and pungs (no count above 4)."""
    if sets == 0:
        return frozenset((0,))
    found: set[int] = set()
    for vector in _sets_only(sets - 1):
        for group in _SETS:
            bigger = vector + group
            if not (bigger + _OFFSET) & _HIGH:
                found.add(bigger)
    return frozenset(found)


def complete_vectors(tiles: int) -> frozenset[int]:
    """Packed one-suit vectors of ``tiles`` tiles that are complete.

    ``tiles`` ≡ 2 (mod 3): ``tiles // 3`` sets plus one pair (R7.1); ``tiles`` ≡ 0: ``tiles // 3``
    sets and no pair (a suit holding whole sets of a hand whose pair is elsewhere). Nibble r
    holds the count of rank r + 1.

    >>> len(complete_vectors(2)), 0x111 in complete_vectors(3), 0x3 in complete_vectors(3)
    (9, True, True)

    :raises ValueError: for ``tiles`` ≡ 1 (mod 3), or outside 0–17.
    """
    if not 0 <= tiles <= MAX_TILES or tiles % 3 == 1:
        raise ValueError(f"complete one-suit vectors have 3k or 3k + 2 tiles (at most {MAX_TILES}), not {tiles}")
    sets = _sets_only(tiles // 3)
    if tiles % 3 == 0:
        return sets
    return frozenset(v + pair for v in sets for pair in _PAIRS if not (v + pair + _OFFSET) & _HIGH)


@functools.cache
def hands_count(tiles: int) -> int:
    """How many one-suit count vectors (each rank 0–4) have ``tiles`` tiles.

    >>> hands_count(13), hands_count(1)
    (93600, 9)
    """
    ways = [1] + [0] * (4 * _RANKS)  # coefficients of (1 + x + … + x**4) ** ranks so far
    for _ in range(_RANKS):
        ways = [sum(ways[n - c] for c in range(5) if n - c >= 0) for n in range(len(ways))]
    return ways[tiles] if 0 <= tiles < len(ways) else 0


def census(tiles: int) -> WaitCensus | CompleteCensus:
    """The R15.4 census for ``tiles`` tiles of one suit (0–17).

    N ≡ 1 (mod 3) gives ``by_waits``; N ≡ 2 gives ``complete`` (sets plus one pair); N ≡ 0 gives
    ``complete`` meaning N / 3 sets and no pair (the one empty hand of N = 0 is complete: no sets).

    >>> census(2)
    {'tiles': 2, 'hands': 45, 'complete': 9}
    >>> census(4)["hands"], census(4)["by_waits"]["3"]  # 4445 is one of the 12: it waits on 3, 5 and 6
    (495, 12)

    :raises ValueError: for ``tiles`` outside 0–17.
    """
    if not 0 <= tiles <= MAX_TILES:
        raise ValueError(f"the census covers 0 to {MAX_TILES} tiles of one suit, not {tiles}")
    hands = hands_count(tiles)
    if tiles % 3 != 1:
        return CompleteCensus(tiles=tiles, hands=hands, complete=len(complete_vectors(tiles)))
    waiting: dict[int, int] = {}  # packed waiting vector -> bitmask of the ranks completing it
    get = waiting.get
    for whole in complete_vectors(tiles + 1):
        for rank, one in enumerate(_ONES):
            if (whole >> 4 * rank) & 0xF:
                hand = whole - one
                waiting[hand] = get(hand, 0) | (1 << rank)
    by_waits = [0] * (_RANKS + 1)
    for mask in waiting.values():
        by_waits[mask.bit_count()] += 1
    by_waits[0] = hands - len(waiting)
    return WaitCensus(tiles=tiles, hands=hands, by_waits={str(k): by_waits[k] for k in range(_RANKS + 1)})
