"""Lookup tables behind :mod:`game.hand` (private to ``game``): how they are built, with numpy.

:func:`build` makes them; :func:`game.hand_tables.tables` is how the rest of ``game`` gets them (built once
and kept in a cache file, so that most processes load them instead of importing numpy and building).

A hand's concealed tiles split into four independent *components*: the three suits (9 ranks each)
and the honours (7 kinds; pungs and pairs only, no runs). For one component with count vector
``h`` and for every target shape "m sets + p pairs" (m 0–4, p 0–1) we tabulate the *distance*

    D[m, p](h) = min over w of sum(max(w_i - h_i, 0)),

w ranging over the vectors that are exactly m sets + p pairs with every count at most 4: the
number of tiles the component still lacks to become that shape. With T the set of such w,
``D[m, p](h) = (3m + 2p) - max{|u| : u <= h, u in Down(T)}`` where Down(T) is T's downward
closure. On the grid of all count vectors (5 ** 9 points for a suit) that is: mark T (adding
sets level by level), close it downwards (a reverse cumulative OR along every axis), write each
point's tile total where it is in Down(T), then take a cumulative max along every axis.

A component's ten distances plus its tile count form its *class*; there are only 159 suit
classes and 137 honour classes. Because the ≤ 4 limit is per tile kind, the components of a
hand are independent, and the distance of a whole hand to "M sets + 1 pair" is the min-plus
convolution of its components' distances. Those convolutions are tabulated over classes
(suit × suit, then × suit, then × honours straight to the standard shanten) and laid out as
nested lists, ``standard[c0][c1][c2][ch]``: a shanten is four dict lookups keyed by ``bytes`` of
a slice of the count vector plus four list indexings.

The dicts of every component vector (405,350 suit vectors) are large enough that a lookup mostly
misses the CPU caches. Hands mostly hold at most :data:`COMMON_TILES` tiles of a suit, so smaller
dicts of those vectors alone (22,330 suit vectors) come first; each gives the class and the
vector's *special* counts, which simply add up over the four components (tile count, kinds held
twice or more, kinds held, majors held, majors held twice or more; see :func:`_special`). Their
sum indexes :attr:`Tables.orphans` (Thirteen Orphans) and :attr:`Tables.seven_pairs` (a shape
the classical game does not know, there for comparisons with other libraries).

The win check uses smaller dicts still, of the complete component vectors alone.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from game.hand_tables import (
    COMMON_TILES,
    INVALID,
    MAX_TILES,
    NO_FORM,
    ORPHANS_SHIFT,
    SEVEN_PAIRS_MASK,
    SPECIAL_FIELDS,
    Tables,
    tables,
)

__all__ = ["INVALID", "MAX_TILES", "Tables", "build", "tables", "component_distances"]

# Special counts: bit fields of one int, each wide enough for its sum over the four components of a
# hand of at most 14 tiles (so they add up without carrying); the tile count, 6 bits wide at the
# bottom, is exact for any four common components (at most 32 tiles).
_N, _PAIRS, _KINDS = 0, 6, 9  # tile count, kinds held twice or more (≤ 7), kinds held (≤ 14)
_N2, _MAJORS, _MAJOR_PAIRS = 13, 19, 23  # tile count again, majors held (≤ 13), majors held twice or more (≤ 7)
assert (_N, _PAIRS, _KINDS, _N2, _MAJORS, _MAJOR_PAIRS) == SPECIAL_FIELDS  # as game.hand_tables reads them
assert ORPHANS_SHIFT == _N2 and SEVEN_PAIRS_MASK == (1 << _N2) - 1

_MAX_SETS = 4
_SHAPES = tuple((m, p) for m in range(_MAX_SETS + 1) for p in range(2))  # index 2m + p
_OVERFLOW = MAX_TILES + 1  # tile count standing for "more than 14": one absorbing class
_PAIR_FLAG = 8  # complete-component value: sets + 8 × pairs

_Bool = npt.NDArray[np.bool_]
_Int8 = npt.NDArray[np.int8]
_Int64 = npt.NDArray[np.int64]
_Group = tuple[tuple[int, int], ...]  # (axis, how many tiles of that kind)


def _axis_slice(ndim: int, axis: int, index: int | slice) -> tuple[int | slice, ...]:
    where: list[int | slice] = [slice(None)] * ndim
    where[axis] = index
    return tuple(where)


def _add_groups(grid: _Bool, groups: list[_Group]) -> _Bool:
    """Every point ``h + g`` for ``h`` marked in ``grid`` and ``g`` in ``groups`` (counts stay ≤ 4)."""
    out = np.zeros_like(grid)
    for group in groups:
        dst: list[slice] = [slice(None)] * grid.ndim
        src: list[slice] = [slice(None)] * grid.ndim
        for axis, count in group:
            dst[axis] = slice(count, 5)
            src[axis] = slice(0, 5 - count)
        out[tuple(dst)] |= grid[tuple(src)]
    return out


def _component_grids(kinds: int, chows: bool) -> tuple[_Int8, dict[tuple[int, int], _Bool], list[_Int8]]:
    """Tile totals, exact shapes T[m, p] and distances D[m, p] over the 5 ** kinds grid."""
    shape = (5,) * kinds
    total = np.zeros(shape, np.int8)
    for axis in range(kinds):
        ranks = [1] * kinds
        ranks[axis] = 5
        total = total + np.arange(5, dtype=np.int8).reshape(ranks)
    sets: list[_Group] = [((r, 3),) for r in range(kinds)]
    if chows:
        sets += [((r, 1), (r + 1, 1), (r + 2, 1)) for r in range(kinds - 2)]
    pairs: list[_Group] = [((r, 2),) for r in range(kinds)]

    exact: dict[tuple[int, int], _Bool] = {}
    level = np.zeros(shape, np.bool_)
    level[(0,) * kinds] = True
    for m in range(_MAX_SETS + 1):
        exact[m, 0] = level
        exact[m, 1] = _add_groups(level, pairs)
        if m < _MAX_SETS:
            level = _add_groups(level, sets)

    distances: list[_Int8] = []
    for m, p in _SHAPES:
        down = exact[m, p].copy()
        for axis in range(kinds):  # downward closure: a point is in it if the point above is
            for i in range(3, -1, -1):
                down[_axis_slice(kinds, axis, i)] |= down[_axis_slice(kinds, axis, i + 1)]
        best = np.where(down, total, np.int8(-1))
        for axis in range(kinds):  # best overlap below each point: cumulative max
            for i in range(1, 5):
                here = best[_axis_slice(kinds, axis, i)]
                np.maximum(here, best[_axis_slice(kinds, axis, i - 1)], out=here)
        distances.append((3 * m + 2 * p - best).astype(np.int8))
    return total, exact, distances


def _pack(rows: _Int64) -> _Int64:
    """One int64 per class row (tile count, ten distances), 4 bits each."""
    key = np.zeros(rows.shape[0], np.int64)
    for column in range(rows.shape[1]):
        key = key * 16 + rows[:, column]
    return key


def _classify(rows: _Int64) -> tuple[_Int64, _Int64]:
    """Distinct rows (in packed-key order) and each input row's index among them."""
    _, first, inverse = np.unique(_pack(rows), return_index=True, return_inverse=True)
    return rows[first], inverse.reshape(-1).astype(np.int64)


def _special(points: _Int64, majors: tuple[int, ...]) -> list[int]:
    """Each point's special counts as one int (see the fields above)."""
    n = points.sum(axis=1)
    held = (points >= 1).sum(axis=1)
    paired = (points >= 2).sum(axis=1)
    major_held = (points[:, majors] >= 1).sum(axis=1)
    major_paired = (points[:, majors] >= 2).sum(axis=1)
    fields = (
        (n << _N)
        | (paired << _PAIRS)
        | (held << _KINDS)
        | (n << _N2)
        | (major_held << _MAJORS)
        | (major_paired << _MAJOR_PAIRS)
    )
    return fields.tolist()  # type: ignore[no-any-return]


_Component = tuple[dict[bytes, int], _Int64, dict[bytes, tuple[int, int]], dict[bytes, int]]


def _component(kinds: int, chows: bool, majors: tuple[int, ...]) -> _Component:
    """For one component: (vector bytes → class, class rows, common vector bytes → (class, special
    counts), complete vector bytes → sets + 8 × pairs)."""
    total, exact, distances = _component_grids(kinds, chows)
    small = total <= MAX_TILES
    rows = np.stack([total[small]] + [d[small] for d in distances], axis=1).astype(np.int64)
    classes, inverse = _classify(rows)
    # Common vectors first, so that their keys lie together in memory: fewer cache misses on lookups.
    points = np.argwhere(small)  # C order, as the boolean indexing above
    order = np.argsort(total[small] > COMMON_TILES, kind="stable")
    raw = points[order].astype(np.uint8).tobytes()
    keys = [raw[i : i + kinds] for i in range(0, len(raw), kinds)]
    by_vector = dict(zip(keys, inverse[order].tolist(), strict=True))
    common_count = int(np.count_nonzero(total[small] <= COMMON_TILES))
    common_at = order[:common_count]
    pairs: dict[tuple[int, int], tuple[int, int]] = {}  # one tuple per distinct pair, shared
    common = {
        key: pairs.setdefault(pair, pair)
        for key, pair in zip(
            keys[:common_count],
            zip(inverse[common_at].tolist(), _special(points[common_at].astype(np.int64), majors), strict=True),
            strict=True,
        )
    }

    complete: dict[bytes, int] = {}
    for (m, p), grid in exact.items():
        for point in np.argwhere(grid & small).astype(np.uint8):
            complete[point.tobytes()] = m + _PAIR_FLAG * p
    return by_vector, classes, common, complete


def _convolve(a: _Int64, b: _Int64) -> _Int64:
    """Class rows of every pair (row of ``a``, row of ``b``): counts add, distances min-plus convolve.

    Returns shape ``(len(a), len(b), 11)``; totals above 14 collapse to one overflow row.
    """
    n = a[:, None, 0] + b[None, :, 0]
    out = np.empty((a.shape[0], b.shape[0], 1 + len(_SHAPES)), np.int64)
    for k, (m, p) in enumerate(_SHAPES):
        best = np.full(n.shape, 255, np.int64)
        for m1 in range(m + 1):
            for p1 in range(p + 1):
                left = a[:, None, 1 + 2 * m1 + p1]
                right = b[None, :, 1 + 2 * (m - m1) + (p - p1)]
                best = np.minimum(best, left + right)
        out[:, :, 1 + k] = best
    overflow = n > MAX_TILES
    out[:, :, 0] = np.where(overflow, _OVERFLOW, n)
    out[overflow, 1:] = _OVERFLOW
    return out


def _combine(a: _Int64, b: _Int64) -> tuple[list[list[int]], _Int64]:
    """Table [a class][b class] → combined class, and the combined classes' rows."""
    joint = _convolve(a, b)
    classes, inverse = _classify(joint.reshape(-1, joint.shape[2]))
    return inverse.reshape(a.shape[0], b.shape[0]).tolist(), classes


def _shanten_table(a: _Int64, b: _Int64) -> list[list[int]]:
    """[a class][b class] → standard shanten of the two parts together, or INVALID."""
    joint = _convolve(a, b)
    n = joint[:, :, 0]
    sets_needed = np.minimum(n // 3, _MAX_SETS)
    needed = np.take_along_axis(joint[:, :, 1:], (2 * sets_needed + 1)[:, :, None], axis=2)[:, :, 0]
    valid = (n <= MAX_TILES) & (n % 3 != 0)
    return np.where(valid, needed - 1, INVALID).tolist()  # type: ignore[no-any-return]


def _orphans_table() -> list[int]:
    """Thirteen Orphans shanten by special counts from the second tile count up: 13 − majors held − (1
    if one of them is held twice), for 13 or 14 tiles."""
    table = []
    for index in range(1 << (_MAJOR_PAIRS + 3 - _N2)):
        n = index & 63
        majors = (index >> (_MAJORS - _N2)) & 15
        paired = index >> (_MAJOR_PAIRS - _N2)
        if n > MAX_TILES:
            table.append(INVALID)
        elif n < 13:
            table.append(NO_FORM)
        else:
            table.append(13 - majors - (1 if paired else 0))
    return table


def _seven_pairs_table() -> list[int]:
    """Seven pairs shanten by the special counts under :data:`SEVEN_PAIRS_MASK`: 6 − kinds held twice,
    plus one for each kind short of seven held at all, for 13 or 14 tiles."""
    table = []
    for index in range(SEVEN_PAIRS_MASK + 1):
        n = index & 63
        paired = (index >> _PAIRS) & 7
        held = index >> _KINDS
        table.append(6 - paired + max(0, 7 - held) if n in (13, 14) else NO_FORM)
    return table


def build() -> Tables:
    """The lookup tables, built now (a second or two of CPU; :func:`tables` keeps them in a cache file)."""
    suit_class, suit_rows, suit_common, suit_complete = _component(9, chows=True, majors=(0, 8))
    honour_class, honour_rows, honour_common, honour_complete = _component(7, chows=False, majors=tuple(range(7)))
    two_suits, two_rows = _combine(suit_rows, suit_rows)
    three_suits, three_rows = _combine(two_rows, suit_rows)
    shanten = _shanten_table(three_rows, honour_rows)
    by_three = [[shanten[c] for c in row] for row in three_suits]  # [two-suit class][suit class] → row
    return Tables(
        suit_class=suit_class,
        honour_class=honour_class,
        two_suits=two_suits,
        three_suits=three_suits,
        shanten=shanten,
        standard=[[by_three[c] for c in row] for row in two_suits],
        suit_common=suit_common,
        honour_common=honour_common,
        suit_common_class={key: kind for key, (kind, _) in suit_common.items()},
        honour_common_class={key: kind for key, (kind, _) in honour_common.items()},
        orphans=_orphans_table(),
        seven_pairs=_seven_pairs_table(),
        suit_complete=suit_complete,
        honour_complete=honour_complete,
        suit_rows=tuple(tuple(row) for row in suit_rows.tolist()),
        honour_rows=tuple(tuple(row) for row in honour_rows.tolist()),
    )


def component_distances(vector: bytes, honours: bool = False) -> tuple[int, ...]:
    """The ten distances D[m, p] (index 2m + p) of one suit (or honour) count vector, for tests.

    >>> component_distances(bytes([1, 1, 1, 0, 0, 0, 0, 0, 0]))[:4]  # 123b: nothing, a pair, a set, set + pair
    (0, 1, 0, 2)

    :raises KeyError: for a vector with more than 14 tiles or a count outside 0–4.
    """
    t = tables()
    if honours:
        return t.honour_rows[t.honour_class[vector]][1:]
    return t.suit_rows[t.suit_class[vector]][1:]
