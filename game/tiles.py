"""Tiles (R1): the 42 tile kinds, the 144-tile set and the tile groups scoring talks about.

A tile is a :class:`Tile`, an ``IntEnum`` whose value is the kind's index: bamboo 0–8,
characters 9–17, dots 18–26, winds 27–30 (E S W N), dragons 31–33 (R G P), flowers 34–37,
seasons 38–41. Being ints, tiles index count vectors directly (``counts[tile]``).
"""

from __future__ import annotations

from enum import IntEnum

__all__ = [
    "Tile",
    "SUITS",
    "HONOURS",
    "WINDS",
    "DRAGONS",
    "BONUS",
    "FLOWERS",
    "SEASONS",
    "PLAYING",
    "MAJORS",
    "TERMINALS",
    "GREENS",
    "NUM_KINDS",
    "NUM_PLAYING_KINDS",
    "TILES",
    "full_set",
]

NUM_KINDS = 42
NUM_PLAYING_KINDS = 34

_SUIT_LETTERS = "bcd"
_HONOUR_LETTERS = "ESWNRGP"
_BONUS_LETTERS = "fs"


def _code_of(index: int) -> str:
    if index < 27:
        return f"{index % 9 + 1}{_SUIT_LETTERS[index // 9]}"
    if index < 34:
        return _HONOUR_LETTERS[index - 27]
    return f"{(index - 34) % 4 + 1}{_BONUS_LETTERS[(index - 34) // 4]}"


class Tile(IntEnum):
    """One tile kind, written in R0 notation by ``str()`` (``'5b'``, ``'W'``, ``'2f'``).

    >>> Tile.parse("5b"), str(Tile.WEST), Tile.parse("3s").is_bonus
    (Tile.B5, 'W', True)
    """

    B1 = 0
    B2 = 1
    B3 = 2
    B4 = 3
    B5 = 4
    B6 = 5
    B7 = 6
    B8 = 7
    B9 = 8
    C1 = 9
    C2 = 10
    C3 = 11
    C4 = 12
    C5 = 13
    C6 = 14
    C7 = 15
    C8 = 16
    C9 = 17
    D1 = 18
    D2 = 19
    D3 = 20
    D4 = 21
    D5 = 22
    D6 = 23
    D7 = 24
    D8 = 25
    D9 = 26
    EAST = 27
    SOUTH = 28
    WEST = 29
    NORTH = 30
    RED = 31
    GREEN = 32
    WHITE = 33
    FLOWER1 = 34
    FLOWER2 = 35
    FLOWER3 = 36
    FLOWER4 = 37
    SEASON1 = 38
    SEASON2 = 39
    SEASON3 = 40
    SEASON4 = 41

    @classmethod
    def parse(cls, code: str) -> Tile:
        """The tile written ``code`` in R0 notation (exactly one tile).

        :raises ValueError: if ``code`` is not one tile's code.
        """
        try:
            return _BY_CODE[code]
        except (KeyError, TypeError):
            raise ValueError(f"not a tile code: {code!r} (expected e.g. '5b', 'W', '2f')") from None

    @property
    def code(self) -> str:
        """R0 code of this tile (``'5b'``)."""
        return _CODES[self]

    @property
    def suit(self) -> str | None:
        """``'b'``, ``'c'`` or ``'d'`` for suit tiles, else None."""
        return _SUIT_LETTERS[self // 9] if self < 27 else None

    @property
    def rank(self) -> int | None:
        """1–9 for suit tiles, 1–4 for bonus tiles, else None."""
        if self < 27:
            return self % 9 + 1
        if self >= 34:
            return (self - 34) % 4 + 1
        return None

    @property
    def is_suit(self) -> bool:
        """A bamboo, character or dot tile."""
        return self < 27

    @property
    def is_honour(self) -> bool:
        """A wind or dragon (R1.2)."""
        return 27 <= self < 34

    @property
    def is_wind(self) -> bool:
        """East, South, West or North."""
        return 27 <= self < 31

    @property
    def is_dragon(self) -> bool:
        """Red, Green or White dragon."""
        return 31 <= self < 34

    @property
    def is_bonus(self) -> bool:
        """A flower or season (R1.1)."""
        return self >= 34

    @property
    def is_terminal(self) -> bool:
        """A 1 or 9 of a suit (R1.2)."""
        return self < 27 and self % 9 in (0, 8)

    @property
    def is_major(self) -> bool:
        """A terminal or honour (R1.2)."""
        return self.is_terminal or self.is_honour

    @property
    def is_simple(self) -> bool:
        """A suit tile ranked 2–8 (R1.2)."""
        return self < 27 and self % 9 not in (0, 8)

    def __str__(self) -> str:
        return _CODES[self]

    def __repr__(self) -> str:
        return f"Tile.{self.name}"

    def __format__(self, spec: str) -> str:
        return format(_CODES[self], spec)


_CODES: tuple[str, ...] = tuple(_code_of(i) for i in range(NUM_KINDS))
_BY_CODE: dict[str, Tile] = {_CODES[i]: Tile(i) for i in range(NUM_KINDS)}

TILES: tuple[Tile, ...] = tuple(Tile)  # TILES[k] is Tile(k), without the enum lookup
SUITS: tuple[tuple[Tile, ...], ...] = tuple(tuple(Tile(s * 9 + r) for r in range(9)) for s in range(3))
WINDS: tuple[Tile, ...] = (Tile.EAST, Tile.SOUTH, Tile.WEST, Tile.NORTH)
DRAGONS: tuple[Tile, ...] = (Tile.RED, Tile.GREEN, Tile.WHITE)
HONOURS: tuple[Tile, ...] = WINDS + DRAGONS
FLOWERS: tuple[Tile, ...] = tuple(Tile(34 + i) for i in range(4))
SEASONS: tuple[Tile, ...] = tuple(Tile(38 + i) for i in range(4))
BONUS: tuple[Tile, ...] = FLOWERS + SEASONS
PLAYING: tuple[Tile, ...] = tuple(Tile(i) for i in range(NUM_PLAYING_KINDS))
TERMINALS: tuple[Tile, ...] = tuple(t for t in PLAYING if t.is_terminal)
MAJORS: tuple[Tile, ...] = TERMINALS + HONOURS
GREENS: frozenset[Tile] = frozenset({Tile.B2, Tile.B3, Tile.B4, Tile.B6, Tile.B8, Tile.GREEN})


def full_set(flowers: bool = True) -> list[Tile]:
    """Every physical tile of the set (R1.1): 144 with bonus tiles, 136 without (R1.3).

    >>> len(full_set()), len(full_set(flowers=False))
    (144, 136)
    """
    tiles = [t for t in PLAYING for _ in range(4)]
    if flowers:
        tiles.extend(BONUS)
    return tiles
