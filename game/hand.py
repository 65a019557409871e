"""Hand analysis (R7, R10.3): complete hands, their decompositions, waits and shanten.

Every function takes a *count vector*: a sequence of 34 ints indexed by :class:`~game.tiles.Tile`
(42 entries are accepted; the bonus entries are ignored), each 0–4, holding a hand's concealed
tiles. A hand with k declared sets (melds and kongs) outside the counts has a concealed part of
14 − 3k tiles when complete — ``n // 3`` sets plus one pair for n concealed tiles — and of
13 − 3k tiles while waiting. Build vectors with :func:`counts_of`.

>>> hand = counts_of(parse_tiles("123b 456b 789b 55d WWW"))
>>> is_win(hand), shanten(hand)
(True, -1)
>>> [str(t) for t in waits(counts_of(parse_tiles("1112345678999b")))]  # Nine Gates (R10.4)
['1b', '2b', '3b', '4b', '5b', '6b', '7b', '8b', '9b']

Lookups go through tables got on first use (:mod:`game.hand_tables`: loaded from a cache file, or
built in under a second), after which :func:`is_win` and :func:`shanten` are a handful of dict lookups each.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import product
from typing import Literal

from game.hand_tables import INVALID, MAX_TILES, Tables, tables
from game.notation import format_tiles, parse_tiles
from game.tiles import MAJORS, NUM_PLAYING_KINDS, Tile

__all__ = [
    "SetKind",
    "TileSet",
    "Decomposition",
    "counts_of",
    "is_win",
    "is_thirteen_orphans",
    "decompositions",
    "waits",
    "shanten",
    "standard_shanten",
    "orphans_shanten",
    "prepare",
]

SetKind = Literal["chow", "pung"]
"""The kinds of concealed set a decomposition uses (a kong is only ever declared, R5.2)."""

_MAJOR_INDICES = tuple(int(t) for t in MAJORS)
_COMPONENTS = ((0, 9, True), (9, 18, True), (18, 27, True), (27, 34, False))  # start, stop, runs allowed
_PAIR_FLAG = 8  # suit_tables' complete-component value: sets + 8 × pairs
_ONE_PAIR_MIN, _ONE_PAIR_MAX = _PAIR_FLAG, _PAIR_FLAG + 4  # exactly one pair and at most four sets in all
_MISSING = 64  # an incomplete component: pushes the sum past _ONE_PAIR_MAX


@dataclass(frozen=True, slots=True)
class TileSet:
    """A chow (run of three in one suit) or pung (three identical tiles), named by its lowest tile.

    >>> TileSet("chow", Tile.C7).tiles
    (Tile.C7, Tile.C8, Tile.C9)
    >>> str(TileSet("pung", Tile.WEST))
    'WWW'
    """

    kind: SetKind
    first: Tile

    @property
    def tiles(self) -> tuple[Tile, Tile, Tile]:
        """The set's three tiles, lowest first."""
        if self.kind == "chow":
            return (self.first, Tile(self.first + 1), Tile(self.first + 2))
        return (self.first, self.first, self.first)

    def __str__(self) -> str:
        return format_tiles(self.tiles)


@dataclass(frozen=True, slots=True)
class Decomposition:
    """One way to read a complete hand's concealed tiles as sets plus one pair (R7.1).

    ``sets`` are ordered by first tile, a pung before a chow from the same tile.

    >>> str(decompositions(counts_of(parse_tiles("111222333b 789c 55d")))[1])
    '123b 123b 123b 789c 55d'
    """

    pair: Tile
    sets: tuple[TileSet, ...]

    def __str__(self) -> str:
        return " ".join([str(s) for s in self.sets] + [format_tiles((self.pair, self.pair))])


def counts_of(tiles: Iterable[Tile] | str) -> list[int]:
    """The count vector (34 entries) of ``tiles``, given as tiles or as text in R0 notation.

    >>> counts_of("11b W")[:2], counts_of(parse_tiles("11b W"))[Tile.WEST]
    ([2, 0], 1)

    :raises NotationError: for text that is not R0 notation (a ``ValueError``).
    :raises ValueError: for a bonus tile (they are never part of a hand's sets, R4.2).
    """
    if isinstance(tiles, str):
        tiles = parse_tiles(tiles)
    counts = [0] * NUM_PLAYING_KINDS
    for tile in tiles:
        if not 0 <= tile < NUM_PLAYING_KINDS:
            raise ValueError(
                f"{Tile(tile)!s} is a bonus tile: bonus tiles are laid aside, not counted in a hand (R4.2)"
            )
        counts[tile] += 1
    return counts


_TABLES: Tables | None = None  # game.suit_tables.tables(), bound on first use: a global is quicker to reach


def _load() -> Tables:
    global _TABLES
    _TABLES = tables()
    return _TABLES


def prepare() -> None:
    """Get the lookup tables now rather than on the first hand looked at (a server does it before it
    runs a table, off its event loop: loading them takes about 0.2 s of CPU, building most of a second)."""
    _load()


def _checked(counts: Sequence[int], what: str = "hand") -> list[int]:
    """``counts`` as a list of 34 plain ints after checking it is a count vector of at most 14 tiles."""
    if len(counts) not in (NUM_PLAYING_KINDS, 42):
        raise ValueError(f"a count vector has 34 entries (42 with bonus kinds), got {len(counts)}")
    vector = [operator.index(c) for c in counts[:NUM_PLAYING_KINDS]]
    for kind, count in enumerate(vector):
        if not 0 <= count <= 4:
            raise ValueError(f"{what} holds {count} of {Tile(kind)!s}: there are four of each tile (R1.1)")
    if what == "hand" and sum(vector) > MAX_TILES:
        raise ValueError(f"{sum(vector)} concealed tiles: a hand holds at most {MAX_TILES} (a kong counts as three)")
    return vector


def _is_standard_win(vector: list[int]) -> bool:
    """Sets + exactly one pair (R7.1), for a checked vector."""
    t = _TABLES or _load()
    raw = bytes(vector)
    suit = t.suit_complete
    shape = (
        suit.get(raw[0:9], _MISSING)
        + suit.get(raw[9:18], _MISSING)
        + suit.get(raw[18:27], _MISSING)
        + t.honour_complete.get(raw[27:34], _MISSING)
    )
    return _ONE_PAIR_MIN <= shape <= _ONE_PAIR_MAX


def _is_orphans(counts: Sequence[int]) -> bool:
    """Thirteen Orphans (R10.3) for a checked vector."""
    for i in _MAJOR_INDICES:  # every 14-tile hand that is not a standard win comes here: most lack a major
        if not counts[i]:
            return False
    return sum(counts[i] for i in _MAJOR_INDICES) == 14 == sum(counts[:NUM_PLAYING_KINDS])


def is_thirteen_orphans(counts: Sequence[int]) -> bool:
    """Whether the 14 tiles are one of each major plus a second of one of them (R10.3).

    >>> is_thirteen_orphans(counts_of(parse_tiles("19b 19c 19d ESWNRGPP")))
    True

    :raises ValueError: if ``counts`` is not a count vector of at most 14 tiles.
    """
    return _is_orphans(_checked(counts))


def is_win(counts: Sequence[int]) -> bool:
    """Whether the concealed tiles are complete: ``n // 3`` sets plus one pair (R7.1), or Thirteen Orphans.

    Four identical tiles never count as a kong here (kongs are declared, R5.2b). There are no
    seven pairs in the classical game. Any other tile count (n ≡ 0 or 1 mod 3) is simply not complete.

    >>> is_win(counts_of(parse_tiles("11b 44b 77b 22c 55c 88c EE")))  # seven pairs: not a win
    False
    >>> is_win(counts_of(parse_tiles("55d"))), is_win(counts_of(parse_tiles("19b 19c 19d ESWNRGPP")))
    (True, True)

    :raises ValueError: if ``counts`` is not a count vector of at most 14 tiles.
    """
    t = _TABLES or _load()
    try:
        raw = bytes(counts)  # one conversion, then cheap slices (keys are bytes of each component)
    except (TypeError, ValueError):  # not small ints: say what is wrong, or retry with plain ints
        return is_win(_checked(counts))
    if len(raw) != len(counts):  # e.g. a numpy array: bytes() took its wide items apart
        return is_win(_checked(counts))
    bamboo, characters, dots, honours = raw[0:9], raw[9:18], raw[18:27], raw[27:34]
    complete = t.suit_complete
    shape = (
        complete.get(bamboo, _MISSING)
        + complete.get(characters, _MISSING)
        + complete.get(dots, _MISSING)
        + t.honour_complete.get(honours, _MISSING)
    )
    if _ONE_PAIR_MIN <= shape <= _ONE_PAIR_MAX:
        return True
    # Not a standard win. Thirteen Orphans needs 14 tiles; the class tables (vectors of at most 14
    # tiles, counts 0–4) double as the validity check on this slower path.
    suit, tiles = t.suit_class, t.suit_tiles
    try:
        n = tiles[suit[bamboo]] + tiles[suit[characters]] + tiles[suit[dots]] + t.honour_tiles[t.honour_class[honours]]
    except KeyError:
        return is_win(_checked(counts))
    if n > MAX_TILES or len(counts) not in (NUM_PLAYING_KINDS, 42):
        _checked(counts)  # raises, naming the problem
    return n == 14 and _is_orphans(counts)


def standard_shanten(counts: Sequence[int]) -> int:
    """Tiles away from ready for a standard hand of n concealed tiles (n // 3 sets + one pair).

    Exactly: (the fewest tiles missing from any target of n // 3 sets plus a pair, no tile kind
    more than four times) − 1. So −1 is complete (n ≡ 2 mod 3), 0 is ready, 1 one tile from ready.
    A 14-tile hand is scored as after its best discard.

    >>> standard_shanten(counts_of(parse_tiles("1111b 234c 567c 888d")))  # only a 5th 1b would do
    1

    :raises ValueError: if ``counts`` is not a count vector of 3k + 1 or 3k + 2 tiles, at most 14.
    """
    t = _TABLES or _load()
    suit = t.suit_class
    try:
        raw = bytes(counts)
        if len(raw) != len(counts):  # e.g. a numpy array: bytes() took its wide items apart
            raise TypeError
        value = t.shanten[t.three_suits[t.two_suits[suit[raw[0:9]]][suit[raw[9:18]]]][suit[raw[18:27]]]][
            t.honour_class[raw[27:34]]
        ]
    except (KeyError, TypeError, ValueError):
        # not in the tables: an invalid vector (raises here), or a valid one of another type
        return standard_shanten(_checked(counts))
    if value == INVALID:
        n = sum(_checked(counts))
        raise ValueError(f"{n} concealed tiles: a hand has 3k + 1 or 3k + 2 of them (13 or 14 with no melds)")
    return value


def orphans_shanten(counts: Sequence[int]) -> int:
    """Tiles away from ready for Thirteen Orphans (R10.3): 13 − distinct majors − (1 if one is paired).

    Only a fully concealed hand of 13 or 14 tiles can be Thirteen Orphans.

    >>> orphans_shanten(counts_of(parse_tiles("19b 19c 19d ESWNRGP")))
    0

    :raises ValueError: if ``counts`` is not a count vector of 13 or 14 tiles.
    """
    vector = _checked(counts)
    n = sum(vector)
    if n not in (13, 14):
        raise ValueError(f"Thirteen Orphans needs 13 or 14 concealed tiles, got {n}")
    majors = [vector[i] for i in _MAJOR_INDICES]
    return 13 - sum(1 for c in majors if c) - (1 if max(majors) >= 2 else 0)


def shanten(counts: Sequence[int]) -> int:
    """Tiles away from ready: −1 complete, 0 ready, … (the lower of standard and Thirteen Orphans).

    >>> shanten(counts_of(parse_tiles("19b 19c 19d ESWNRGP"))), shanten(counts_of(parse_tiles("123b 456c 789d 1d")))
    (0, 0)
    >>> hand = counts_of(parse_tiles("147b 258c 369d ESWN"))
    >>> standard_shanten(hand), orphans_shanten(hand), shanten(hand)
    (8, 7, 7)

    :raises ValueError: if ``counts`` is not a count vector of 3k + 1 or 3k + 2 tiles, at most 14.
    """
    best = standard_shanten(counts)
    if best >= 0 and sum(counts[:NUM_PLAYING_KINDS]) >= 13:
        return min(best, orphans_shanten(counts))
    return best


def waits(counts: Sequence[int], held: Sequence[int] | None = None) -> list[Tile]:
    """The tiles that would complete a hand of 3k + 1 concealed tiles (R7), in tile order.

    A tile of which the player already holds all four copies cannot be drawn and is left out;
    ``held`` counts every tile the player holds, exposed sets included (default: ``counts``).

    >>> [str(t) for t in waits(counts_of(parse_tiles("19b 19c 19d ESWNRGP")))][:4]  # 13-sided
    ['1b', '9b', '1c', '9c']
    >>> waits(counts_of(parse_tiles("1111b 234c 567c 888d")))  # 1b would be a fifth copy
    []
    >>> [str(t) for t in waits(counts_of(parse_tiles("5b")), held=counts_of(parse_tiles("5b 555b")))]
    []

    :raises ValueError: if ``counts`` is not a count vector of 3k + 1 tiles (at most 13), or ``held``
        is not a count vector holding at least ``counts``.
    """
    vector = _checked(counts)
    n = sum(vector)
    if n % 3 != 1:
        raise ValueError(f"waits are for a hand of 3k + 1 concealed tiles (13, 10, 7, 4 or 1), got {n}")
    if held is None:
        limit = vector
    else:
        limit = _checked(held, what="held")
        short = [Tile(k) for k in range(NUM_PLAYING_KINDS) if limit[k] < vector[k]]
        if short:
            raise ValueError(f"held must include the hand's tiles; it has fewer {short[0]!s}")
    # shanten 0 is exactly "some tile not held four times completes it" (see standard_shanten)
    orphans = n == 13 and orphans_shanten(vector) == 0
    if standard_shanten(vector) > 0 and not orphans:
        return []
    found: list[Tile] = []
    for kind in range(NUM_PLAYING_KINDS):
        if limit[kind] >= 4:
            continue
        # a standard wait joins a group with a held tile: the same honour, or a suit tile ≤ 2 ranks away
        rank = kind % 9 if kind < 27 else 0
        near = vector[kind - min(rank, 2) : kind + min(8 - rank, 2) + 1] if kind < 27 else (vector[kind],)
        if not any(near) and not (orphans and kind in _MAJOR_INDICES):
            continue
        vector[kind] += 1
        if _is_standard_win(vector) or (orphans and _is_orphans(vector)):
            found.append(Tile(kind))
        vector[kind] -= 1
    return found


_ComponentReading = tuple[int, tuple[tuple[SetKind, int], ...]]  # (pair index or -1, sets as (kind, index))


@functools.lru_cache(maxsize=4096)
def _component_readings(vector: bytes, runs: bool) -> tuple[_ComponentReading, ...]:
    """Every way to read one suit's (or the honours') counts as sets and at most one pair."""
    counts = list(vector)
    readings: list[_ComponentReading] = []
    sets: list[tuple[SetKind, int]] = []

    def walk(rank: int, pair: int) -> None:
        while rank < len(counts) and counts[rank] == 0:
            rank += 1
        if rank == len(counts):
            readings.append((pair, tuple(sets)))
            return
        # Every tile of the lowest rank left starts a group: decide how many pungs, pairs and
        # runs start here at once, so that each multiset of groups is produced exactly once.
        here = counts[rank]
        for pungs in (0, 1):
            for pairs in (0, 1) if pair < 0 else (0,):
                chows = here - 3 * pungs - 2 * pairs
                if chows < 0 or (chows and not (runs and rank + 2 < len(counts))):
                    continue
                if chows and (counts[rank + 1] < chows or counts[rank + 2] < chows):
                    continue
                counts[rank] = 0
                if chows:
                    counts[rank + 1] -= chows
                    counts[rank + 2] -= chows
                chow: tuple[SetKind, int] = ("chow", rank)
                pung: tuple[SetKind, int] = ("pung", rank)
                sets.extend([pung] * pungs + [chow] * chows)
                walk(rank + 1, rank if pairs else pair)
                del sets[len(sets) - chows - pungs :]
                if chows:
                    counts[rank + 1] += chows
                    counts[rank + 2] += chows
                counts[rank] = here

    walk(0, -1)
    return tuple(readings)


def decompositions(counts: Sequence[int]) -> list[Decomposition]:
    """Every distinct reading of a complete hand as ``n // 3`` sets plus one pair (R7.1, R7.4).

    Empty if the hand is not complete in the standard shape (so also for Thirteen Orphans).
    Decompositions are ordered by pair, then by their sets (each set by first tile, pung first).

    >>> for d in decompositions(counts_of(parse_tiles("111222333b 789c 55d"))):
    ...     print(d)
    111b 222b 333b 789c 55d
    123b 123b 123b 789c 55d

    :raises ValueError: if ``counts`` is not a count vector of at most 14 tiles.
    """
    vector = _checked(counts)
    if not _is_standard_win(vector):
        return []
    per_component: list[list[tuple[int, list[TileSet]]]] = []
    for start, stop, runs in _COMPONENTS:
        readings = _component_readings(bytes(vector[start:stop]), runs)
        per_component.append(
            [
                (start + pair if pair >= 0 else -1, [TileSet(kind, Tile(start + index)) for kind, index in sets])
                for pair, sets in readings
            ]
        )
    found: list[Decomposition] = []
    for choice in product(*per_component):
        pairs = [pair for pair, _ in choice if pair >= 0]
        if len(pairs) == 1:
            found.append(Decomposition(Tile(pairs[0]), tuple(s for _, sets in choice for s in sets)))
    found.sort(key=lambda d: (d.pair, [(s.first, s.kind == "chow") for s in d.sets]))
    return found
