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
import struct
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import product
from typing import Literal, cast

from game.hand_tables import INVALID, MAX_TILES, ORPHANS_SHIFT, SEVEN_PAIRS_MASK, special_counts, tables
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
    "seven_pairs_shanten",
    "any_form_shanten",
    "prepare",
]

SetKind = Literal["chow", "pung"]
"""The kinds of concealed set a decomposition uses (a kong is only ever declared, R5.2)."""

_MAJOR_INDICES = tuple(int(t) for t in MAJORS)
_COMPONENTS = ((0, 9, True), (9, 18, True), (18, 27, True), (27, 34, False))  # start, stop, runs allowed
_PAIR_FLAG = 8  # suit_tables' complete-component value: sets + 8 × pairs
_ONE_PAIR_MIN, _ONE_PAIR_MAX = _PAIR_FLAG, _PAIR_FLAG + 4  # exactly one pair and at most four sets in all


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


# The tables (game.suit_tables.tables()), bound to module globals by _load() on first use: a global is the
# quickest thing to reach. Until then they are empty, so every fast path below misses and takes its
# checked path, which loads them.
_SUIT_COMMON: dict[bytes, tuple[int, int]] = {}  # vectors of at most 8 tiles → (class, special counts)
_HONOUR_COMMON: dict[bytes, tuple[int, int]] = {}
_SUIT_COMMON_CLASS: dict[bytes, int] = {}  # the same vectors → class alone
_HONOUR_COMMON_CLASS: dict[bytes, int] = {}
_SUIT_CLASS: dict[bytes, int] = {}  # every vector → class
_HONOUR_CLASS: dict[bytes, int] = {}
_Get = Callable[[bytes, int], int]
_SUIT_WIN = _HONOUR_WIN = cast(_Get, {}.get)  # .get of the complete vectors → sets + 8 × pairs (bound once:
# quicker to call than to look up each time)
_STANDARD: list[list[list[list[int]]]] = []
_ORPHANS: list[int] = []
_SEVEN_PAIRS: list[int] = []
_LOADED = False

_SPLIT = struct.Struct("9s9s9s7s").unpack_from
"""bytes of a count vector → its three suits' and the honours' bytes, in one call (the bonus entries of
a 42-entry vector are left out; fewer than 34 entries raise struct.error)."""
_OPEN = 13  # an incomplete component in the win check (written as 13: a literal is quicker to load than a global)
_WIN = tuple(_ONE_PAIR_MIN <= shape <= _ONE_PAIR_MAX for shape in range(4 * _OPEN + 1))
"""By the sum of the four components' complete values: whether that is sets plus exactly one pair."""
_BAD_ITEMS = (TypeError, ValueError, struct.error)  # not small ints, or too few: the checked path


def _load() -> None:
    global _SUIT_COMMON, _HONOUR_COMMON, _SUIT_COMMON_CLASS, _HONOUR_COMMON_CLASS, _SUIT_CLASS, _HONOUR_CLASS
    global _SUIT_WIN, _HONOUR_WIN, _STANDARD, _ORPHANS, _SEVEN_PAIRS, _LOADED
    t = tables()
    _SUIT_COMMON, _HONOUR_COMMON = t.suit_common, t.honour_common
    _SUIT_COMMON_CLASS, _HONOUR_COMMON_CLASS = t.suit_common_class, t.honour_common_class
    _SUIT_CLASS, _HONOUR_CLASS = t.suit_class, t.honour_class
    _SUIT_WIN, _HONOUR_WIN = cast(_Get, t.suit_complete.get), cast(_Get, t.honour_complete.get)
    _STANDARD, _ORPHANS, _SEVEN_PAIRS = t.standard, t.orphans, t.seven_pairs
    _LOADED = True


def prepare() -> None:
    """Get the lookup tables now rather than on the first hand looked at (a server does it before it
    runs a table, off its event loop: loading them takes about 0.2 s of CPU, building most of a second)."""
    _load()


def _checked(counts: Sequence[int], what: str = "hand") -> list[int]:
    """``counts`` as a list of 34 plain ints after checking it is a count vector of at most 14 tiles
    (and, on the way, the lookup tables built)."""
    if not _LOADED:
        _load()
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
    a, b, c, d = _SPLIT(bytearray(vector))
    return _WIN[_SUIT_WIN(a, 13) + _SUIT_WIN(b, 13) + _SUIT_WIN(c, 13) + _HONOUR_WIN(d, 13)]


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
    kind = type(counts)
    if kind is list or kind is tuple:  # bytearray() reads their items as ints 0–255, or raises
        try:
            a, b, c, d = _SPLIT(bytearray(counts))
        except _BAD_ITEMS:
            return _is_win_checked(counts)
        if _WIN[_SUIT_WIN(a, 13) + _SUIT_WIN(b, 13) + _SUIT_WIN(c, 13) + _HONOUR_WIN(d, 13)]:
            return True  # (a complete component has at most 4 of a kind, and a win at most 14 tiles)
        # Not a standard win: Thirteen Orphans, or nothing. The common vectors have counts 0–4.
        try:
            special = _SUIT_COMMON[a][1] + _SUIT_COMMON[b][1] + _SUIT_COMMON[c][1] + _HONOUR_COMMON[d][1]
        except KeyError:  # more than 8 tiles of a component, a bad count, or the tables not built yet
            return _is_win_checked(counts)
        if special & 63 > MAX_TILES:  # the tile count (exact: bits enough for any four common components)
            _checked(counts)  # raises, naming the problem
        return _ORPHANS[special >> ORPHANS_SHIFT] == -1
    return _is_win_checked(counts)  # e.g. a numpy array: bytearray() would read its raw memory


def _is_win_checked(counts: Sequence[int]) -> bool:
    vector = _checked(counts)
    return _is_standard_win(vector) or (sum(vector) == 14 and _is_orphans(vector))


def _standard_checked(counts: Sequence[int]) -> int:
    vector = _checked(counts)
    a, b, c, d = _SPLIT(bytearray(vector))
    value = _STANDARD[_SUIT_CLASS[a]][_SUIT_CLASS[b]][_SUIT_CLASS[c]][_HONOUR_CLASS[d]]
    if value == INVALID:
        raise ValueError(f"{sum(vector)} concealed tiles: a hand has 3k + 1 or 3k + 2 of them (13 or 14 with no melds)")
    return value


def standard_shanten(counts: Sequence[int]) -> int:
    """Tiles away from ready for a standard hand of n concealed tiles (n // 3 sets + one pair).

    Exactly: (the fewest tiles missing from any target of n // 3 sets plus a pair, no tile kind
    more than four times) − 1. So −1 is complete (n ≡ 2 mod 3), 0 is ready, 1 one tile from ready.
    A 14-tile hand is scored as after its best discard.

    >>> standard_shanten(counts_of(parse_tiles("1111b 234c 567c 888d")))  # only a 5th 1b would do
    1

    :raises ValueError: if ``counts`` is not a count vector of 3k + 1 or 3k + 2 tiles, at most 14.
    """
    kind = type(counts)
    if kind is list or kind is tuple:
        try:
            a, b, c, d = _SPLIT(bytearray(counts))
        except _BAD_ITEMS:
            return _standard_checked(counts)
        try:
            common = _SUIT_COMMON_CLASS
            value = _STANDARD[common[a]][common[b]][common[c]][_HONOUR_COMMON_CLASS[d]]
        except KeyError:  # more than 8 tiles of a component, a bad count, or the tables not built yet
            try:
                value = _STANDARD[_SUIT_CLASS[a]][_SUIT_CLASS[b]][_SUIT_CLASS[c]][_HONOUR_CLASS[d]]
            except KeyError:
                return _standard_checked(counts)  # raises, or builds the tables
        if value != INVALID:
            return value
    return _standard_checked(counts)


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


def _shanten_checked(counts: Sequence[int], seven_pairs: bool = False) -> int:
    vector = _checked(counts)
    a, b, c, d = _SPLIT(bytearray(vector))
    best = _STANDARD[_SUIT_CLASS[a]][_SUIT_CLASS[b]][_SUIT_CLASS[c]][_HONOUR_CLASS[d]]
    if best == INVALID:
        return _standard_checked(vector)  # raises, naming the problem
    if sum(vector) >= 13:
        majors = [vector[i] for i in _MAJOR_INDICES]
        best = min(best, 13 - sum(1 for m in majors if m) - (1 if max(majors) >= 2 else 0))
        if seven_pairs:
            best = min(best, 6 - sum(1 for v in vector if v >= 2) + max(0, 7 - sum(1 for v in vector if v)))
    return best


_SUIT_MAJORS, _HONOUR_MAJORS = (0, 8), tuple(range(7))


def _wide(a: bytes, b: bytes, c: bytes, d: bytes) -> tuple[tuple[int, int], ...]:
    """(class, special counts) of each component, those of more than 8 tiles too (their special counts
    counted here). :raises KeyError: for a vector that is no component (a count past 4, or past 14 tiles)."""
    return (
        _SUIT_COMMON.get(a) or (_SUIT_CLASS[a], special_counts(a, _SUIT_MAJORS)),
        _SUIT_COMMON.get(b) or (_SUIT_CLASS[b], special_counts(b, _SUIT_MAJORS)),
        _SUIT_COMMON.get(c) or (_SUIT_CLASS[c], special_counts(c, _SUIT_MAJORS)),
        _HONOUR_COMMON.get(d) or (_HONOUR_CLASS[d], special_counts(d, _HONOUR_MAJORS)),
    )


def shanten(counts: Sequence[int]) -> int:
    """Tiles away from ready: −1 complete, 0 ready, … (the lower of standard and Thirteen Orphans).

    >>> shanten(counts_of(parse_tiles("19b 19c 19d ESWNRGP"))), shanten(counts_of(parse_tiles("123b 456c 789d 1d")))
    (0, 0)
    >>> hand = counts_of(parse_tiles("147b 258c 369d ESWN"))
    >>> standard_shanten(hand), orphans_shanten(hand), shanten(hand)
    (8, 7, 7)

    :raises ValueError: if ``counts`` is not a count vector of 3k + 1 or 3k + 2 tiles, at most 14.
    """
    kind = type(counts)
    if kind is list or kind is tuple:
        try:
            a, b, c, d = _SPLIT(bytearray(counts))
        except _BAD_ITEMS:
            return _shanten_checked(counts)
        try:
            ca, sa = _SUIT_COMMON[a]
            cb, sb = _SUIT_COMMON[b]
            cc, sc = _SUIT_COMMON[c]
            cd, sd = _HONOUR_COMMON[d]
        except KeyError:  # more than 8 tiles of a component, a bad count, or no tables yet
            try:
                (ca, sa), (cb, sb), (cc, sc), (cd, sd) = _wide(a, b, c, d)
            except KeyError:
                return _shanten_checked(counts)
        value = _STANDARD[ca][cb][cc][cd]
        if value != INVALID:  # so at most 14 tiles: the special counts' sum carries nothing
            orphans = _ORPHANS[(sa + sb + sc + sd) >> ORPHANS_SHIFT]  # NO_FORM (98) below 13 tiles
            return orphans if orphans < value else value
    return _shanten_checked(counts)


def seven_pairs_shanten(counts: Sequence[int]) -> int:
    """Tiles away from ready for seven pairs, a hand the classical game does not know (R7 has no such
    shape): 6 − kinds held twice or more, plus one for each kind short of seven held at all (four
    alike make one pair, not two). Here to compare with libraries for games that have it.

    >>> seven_pairs_shanten(counts_of(parse_tiles("11b 44b 77b 22c 55c 88c E")))
    0

    :raises ValueError: if ``counts`` is not a count vector of 13 or 14 tiles.
    """
    vector = _checked(counts)
    n = sum(vector)
    if n not in (13, 14):
        raise ValueError(f"seven pairs needs 13 or 14 concealed tiles, got {n}")
    paired = sum(1 for c in vector if c >= 2)
    return 6 - paired + max(0, 7 - sum(1 for c in vector if c))


def any_form_shanten(counts: Sequence[int]) -> int:
    """The lowest of the standard, Thirteen Orphans and seven pairs shanten (the last two only for 13 or
    14 tiles): what riichi libraries call a hand's shanten. The classical game has no seven pairs
    (:func:`shanten` is its figure); this is here to compare like with like.

    >>> hand = counts_of(parse_tiles("11b 44b 77b 22c 55c 88c E"))
    >>> any_form_shanten(hand), shanten(hand)
    (0, 3)

    :raises ValueError: if ``counts`` is not a count vector of 3k + 1 or 3k + 2 tiles, at most 14.
    """
    kind = type(counts)
    if kind is list or kind is tuple:
        try:
            a, b, c, d = _SPLIT(bytearray(counts))
        except _BAD_ITEMS:
            return _shanten_checked(counts, seven_pairs=True)
        try:
            ca, sa = _SUIT_COMMON[a]
            cb, sb = _SUIT_COMMON[b]
            cc, sc = _SUIT_COMMON[c]
            cd, sd = _HONOUR_COMMON[d]
        except KeyError:
            try:
                (ca, sa), (cb, sb), (cc, sc), (cd, sd) = _wide(a, b, c, d)
            except KeyError:
                return _shanten_checked(counts, seven_pairs=True)
        value = _STANDARD[ca][cb][cc][cd]
        if value != INVALID:
            special = sa + sb + sc + sd
            orphans = _ORPHANS[special >> ORPHANS_SHIFT]
            pairs = _SEVEN_PAIRS[special & SEVEN_PAIRS_MASK]
            if orphans < value:
                value = orphans
            return pairs if pairs < value else value
    return _shanten_checked(counts, seven_pairs=True)


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
