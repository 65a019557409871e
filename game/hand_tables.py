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

__all__ = ["INVALID", "MAX_TILES", "Tables", "tables"]

MAX_TILES = 14
"""Largest concealed part of a hand: four sets and a pair."""

INVALID = 99
"""Entry of :attr:`Tables.shanten` for a tile count that is no hand (0 mod 3, or more than 14)."""


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
    suit_complete: dict[bytes, int]
    """Suit vectors that are exactly sets (value: number of sets) or sets + a pair (value + 8)."""
    honour_complete: dict[bytes, int]
    """The same for honour vectors (pungs and at most one pair)."""
    suit_tiles: list[int]
    """Per suit class: its number of tiles."""
    honour_tiles: list[int]
    """Per honour class: its number of tiles."""
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
