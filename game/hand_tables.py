"""The lookup tables behind :mod:`game.hand` (private to ``game``): what they hold, and where they come from.

:mod:`game.suit_tables` builds them with numpy (most of a second of CPU; its docstring explains them).
:func:`tables` builds them once per machine and code: the first process writes them to a cache file
(:mod:`game.cachefile`), keyed by the source of this module and of ``game.suit_tables``, and the next ones
load that file in about 0.2 s of CPU, without importing numpy. A missing, stale, damaged or
unwritable file only means building them in memory.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from game import cachefile

__all__ = [
    "COMMON_TILES",
    "INVALID",
    "MAX_TILES",
    "NO_FORM",
    "ORPHANS_SHIFT",
    "SEVEN_PAIRS_MASK",
    "SPECIAL_FIELDS",
    "Tables",
    "special_counts",
    "tables",
]

MAX_TILES = 14
"""Largest concealed part of a hand: four sets and a pair."""

INVALID = 99
"""Entry of :attr:`Tables.shanten` for a tile count that is no hand (0 mod 3, or more than 14)."""

NO_FORM = 98
"""Entry of :attr:`Tables.orphans` and :attr:`Tables.seven_pairs` for a hand of other than 13 or 14 tiles."""

COMMON_TILES = 8
"""Most tiles of one component in :attr:`Tables.suit_common` and :attr:`Tables.honour_common`."""

ORPHANS_SHIFT = 13
"""A sum of the four components' special counts, shifted right by this, indexes :attr:`Tables.orphans`."""

SEVEN_PAIRS_MASK = (1 << ORPHANS_SHIFT) - 1
"""A sum of special counts masked by this indexes :attr:`Tables.seven_pairs`."""

SPECIAL_FIELDS = (0, 6, 9, ORPHANS_SHIFT, 19, 23)
"""Where each of a component's special counts starts in their int: the tile count (6 bits: exact for any
four components of at most 8 tiles), kinds held twice or more, kinds held, the tile count again, majors
held, majors held twice or more. Each field is wide enough for its sum over a hand of at most 14 tiles,
so the special counts of the four components add up without carrying."""


def special_counts(vector: bytes, majors: tuple[int, ...]) -> int:
    """The special counts of one component's count vector (``majors``: the indices of its majors), as
    :attr:`Tables.suit_common` holds them for the vectors of at most :data:`COMMON_TILES` tiles.

    >>> special_counts(bytes([2, 0, 0, 0, 0, 0, 0, 0, 1]), (0, 8)) == 3 | 1 << 6 | 2 << 9 | 3 << 13 | 2 << 19 | 1 << 23
    True
    """
    n = sum(vector)
    held = len(vector) - vector.count(0)
    paired = held - vector.count(1)
    major_held = sum(1 for i in majors if vector[i])
    major_paired = sum(1 for i in majors if vector[i] >= 2)
    values = (n, paired, held, n, major_held, major_paired)
    return sum(value << shift for value, shift in zip(values, SPECIAL_FIELDS, strict=True))


@dataclass(frozen=True, slots=True)
class Tables:
    """Everything :mod:`game.hand` looks up; see :mod:`game.suit_tables`."""

    suit_class: dict[bytes, int]
    """``bytes`` of one suit's 9 counts (at most 14 tiles, each count 0–4) → suit class."""
    honour_class: dict[bytes, int]
    """``bytes`` of the 7 honour counts → honour class."""
    two_suits: list[list[int]]
    """[suit class][suit class] → class of the two suits together."""
    three_suits: list[list[int]]
    """[two-suit class][suit class] → class of the three suits together."""
    shanten: list[list[int]]
    """[three-suit class][honour class] → standard shanten of the whole hand, or :data:`INVALID`."""
    standard: list[list[list[list[int]]]]
    """[suit class][suit class][suit class][honour class] → standard shanten of the whole hand, or
    :data:`INVALID`: the three tables above, composed (rows are shared, not copied)."""
    suit_common: dict[bytes, tuple[int, int]]
    """``bytes`` of one suit's 9 counts, at most :data:`COMMON_TILES` tiles → (class, special counts)."""
    honour_common: dict[bytes, tuple[int, int]]
    """The same for the 7 honour counts."""
    suit_common_class: dict[bytes, int]
    """The class alone of each vector of :attr:`suit_common` (one lookup fewer than the pair, for the
    standard shanten)."""
    honour_common_class: dict[bytes, int]
    """The same for :attr:`honour_common`."""
    orphans: list[int]
    """[sum of the four components' special counts >> ORPHANS_SHIFT] → Thirteen Orphans shanten of a
    hand of 13 or 14 tiles (−1: complete), else :data:`NO_FORM` (:data:`INVALID` past 14 tiles)."""
    seven_pairs: list[int]
    """[sum of special counts & SEVEN_PAIRS_MASK] → seven pairs shanten of a hand of 13 or 14 tiles
    (four alike are one pair, not two), else :data:`NO_FORM`."""
    suit_complete: dict[bytes, int]
    """Suit vectors that are exactly sets (value: number of sets) or sets + a pair (value + 8)."""
    honour_complete: dict[bytes, int]
    """The same for honour vectors (pungs and at most one pair)."""
    suit_rows: tuple[tuple[int, ...], ...]
    """Per suit class: its tile count, then its ten distances D[m, p] at index 2m + p."""
    honour_rows: tuple[tuple[int, ...], ...]
    """The same per honour class."""


_BUILDERS = ("game.hand_tables", "game.suit_tables")  # the code the tables depend on: its source is the cache key


@functools.cache
def tables() -> Tables:
    """The lookup tables: loaded from the cache file, else built (and written to it); kept for the process."""
    return cachefile.cached("hand-tables", cachefile.source_key(_BUILDERS), _build, Tables)


def _build() -> Tables:
    from game.suit_tables import build  # numpy: imported only when the tables are built

    return build()
