"""Tile acceptance, as the `strong` bot (:mod:`game.strong`) and the review (:mod:`game.review`) count it:
how far a hand of 3k + 1 concealed tiles is from ready (shanten), and how many unseen tiles would bring
it a step closer; for a ready hand, each winning tile's copies weighed by how likely they are to come.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from game.hand_tables import Tables, tables
from game.seatview import SeatView

__all__ = ["IS_MAJOR", "MAJORS", "NOT_HELD", "forget", "outs", "shanten_after_discards", "tile_acceptance"]

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


def _classes(raw: bytes, t: Tables) -> tuple[tuple[bytes, bytes, bytes, bytes], tuple[int, int, int, int], int, int]:
    """A hand's four parts (three suits, the honours), the class of each, and the classes of its first
    two suits and of all three together (`Tables`)."""
    parts = raw[0:9], raw[9:18], raw[18:27], raw[27:34]
    c0, c1, c2 = (t.suit_class[part] for part in parts[:3])
    ab = t.two_suits[c0][c1]
    return parts, (c0, c1, c2, t.honour_class[parts[3]]), ab, t.three_suits[ab][c2]


def outs(seen: SeatView) -> tuple[float, ...]:
    """How likely each kind is to come to a ready hand, per unseen copy, as :data:`_OUT_WEIGHT` weighs it."""
    return _outs(frozenset(int(d.tile) for d in seen.discards if d.seat != seen.seat))


@functools.lru_cache(maxsize=1024)
def _outs(thrown: frozenset[int]) -> tuple[float, ...]:
    """:func:`outs` when the other seats have thrown the kinds ``thrown``."""
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
    ``kinds`` collects the kinds that bring it closer (of which some copy is unseen), in tile order.
    """
    shanten, better = _improvers(hand, orphans)
    acceptance: float = 0
    weighed = outs is not None and shanten == 0
    for k in better:
        u = unseen[k]
        if u:
            acceptance += u * outs[k] if weighed and outs is not None else u
            if kinds is not None:
                kinds.append(k)
    return shanten, acceptance


def shanten_after_discards(hand: Sequence[int], orphans: bool) -> tuple[int, ...]:
    """For each of the 34 kinds, the shanten of a hand of 3k + 2 concealed tiles once one tile of that
    kind is thrown (:data:`NOT_HELD` for a kind it does not hold): :func:`game.hand.standard_shanten`,
    and with ``orphans`` the lower Thirteen Orphans figure (R10.3) for a hand not yet ready. Kept per
    hand, so asking again about the same hand costs a lookup.
    """
    raw = bytes(hand[:NUM_KINDS])
    key = raw + (b"\x01" if orphans else b"\x00")
    found = _AFTER.get(key)
    if found is not None:
        return found
    t = _tables()
    suit_class, two, three, table = t.suit_class, t.two_suits, t.three_suits, t.shanten
    (s0, s1, s2, hp), (c0, c1, c2, ch), ab, abc = _classes(raw, t)
    out = [NOT_HELD] * NUM_KINDS
    for r, cls in _less(s0, suit_class):
        out[r] = table[three[two[cls][c1]][c2]][ch]
    for r, cls in _less(s1, suit_class):
        out[9 + r] = table[three[two[c0][cls]][c2]][ch]
    for r, cls in _less(s2, suit_class):
        out[18 + r] = table[three[ab][cls]][ch]
    for r, cls in _less(hp, t.honour_class):
        out[27 + r] = table[abc][cls]
    if orphans:
        distinct = sum(1 for k in MAJORS if raw[k])
        pairs = sum(1 for k in MAJORS if raw[k] >= 2)
        for k in range(NUM_KINDS):
            value = out[k]
            if 0 < value < NOT_HELD:
                n = raw[k]
                d, p = (distinct - (n == 1), pairs - (n == 2)) if IS_MAJOR[k] else (distinct, pairs)
                out[k] = min(value, 13 - d - (1 if p else 0))
    _bound(_AFTER)
    found = _AFTER[key] = tuple(out)
    return found


NOT_HELD = 99
""":func:`shanten_after_discards`' figure for a kind the hand does not hold."""

NUM_KINDS = 34
_MEMO_LIMIT = 1 << 16  # figures kept per memo before starting afresh (the memos are keyed by hand)
_AFTER: dict[bytes, tuple[int, ...]] = {}
_BETTER: dict[bytes, tuple[int, tuple[int, ...]]] = {}
_MORE: dict[bytes, tuple[tuple[int, int], ...]] = {}
_LESS: dict[bytes, tuple[tuple[int, int], ...]] = {}


def forget() -> None:
    """Forget every hand's figures kept so far (for a benchmark that plays the same games again)."""
    for memo in (_AFTER, _BETTER, _MORE, _LESS):
        memo.clear()
    _outs.cache_clear()


def _bound(memo: dict[bytes, Any]) -> None:
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()


def _improvers(hand: Sequence[int], orphans: bool) -> tuple[int, tuple[int, ...]]:
    """(shanten, the kinds one more tile of which brings the hand closer) of a hand of 3k + 1 tiles,
    whatever is unseen; kept per hand."""
    raw = bytes(hand[:NUM_KINDS])
    key = raw + (b"\x01" if orphans else b"\x00")
    found = _BETTER.get(key)
    if found is not None:
        return found
    t = _tables()
    suit_class, two, three, table = t.suit_class, t.two_suits, t.three_suits, t.shanten
    (s0, s1, s2, hp), (c0, c1, c2, ch), ab, abc = _classes(raw, t)
    shanten = table[abc][ch]
    distinct = paired = 0
    if orphans:
        for k in MAJORS:
            if raw[k]:
                distinct += 1
                if raw[k] >= 2:
                    paired = 1
        shanten = min(shanten, 13 - distinct - paired)
    better: list[int] = []
    if orphans:
        # Another tile of a kind that is no major brings the hand closer only by the standard shape; one
        # of a major also when it adds a new major, or the pair, to Thirteen Orphans.
        for r, cls in _more(s0, True, suit_class):
            if table[three[two[cls][c1]][c2]][ch] < shanten or (
                r in (0, 8) and _orphan(raw[r], distinct, paired) < shanten
            ):
                better.append(r)
        for r, cls in _more(s1, True, suit_class):
            if table[three[two[c0][cls]][c2]][ch] < shanten or (
                r in (0, 8) and _orphan(raw[9 + r], distinct, paired) < shanten
            ):
                better.append(9 + r)
        for r, cls in _more(s2, True, suit_class):
            if table[three[ab][cls]][ch] < shanten or (
                r in (0, 8) and _orphan(raw[18 + r], distinct, paired) < shanten
            ):
                better.append(18 + r)
        row = table[abc]
        for r, cls in _more(hp, None, t.honour_class):
            if row[cls] < shanten or _orphan(raw[27 + r], distinct, paired) < shanten:
                better.append(27 + r)
    else:  # the same without Thirteen Orphans
        three_ab, row = three[ab], table[abc]
        for r, cls in _more(s0, False, suit_class):
            if table[three[two[cls][c1]][c2]][ch] < shanten:
                better.append(r)
        two_c0 = two[c0]
        for r, cls in _more(s1, False, suit_class):
            if table[three[two_c0[cls]][c2]][ch] < shanten:
                better.append(9 + r)
        for r, cls in _more(s2, False, suit_class):
            if table[three_ab[cls]][ch] < shanten:
                better.append(18 + r)
        for r, cls in _more(hp, None, t.honour_class):
            if row[cls] < shanten:
                better.append(27 + r)
    _bound(_BETTER)
    found = _BETTER[key] = (shanten, tuple(better))
    return found


def _orphan(n: int, distinct: int, paired: int) -> int:
    """Thirteen Orphans shanten once a major held ``n`` times is added to a hand of ``distinct`` majors."""
    return 13 - distinct - (1 if n == 0 else 0) - (1 if paired or n >= 1 else 0)


def _more(part: bytes, orphans: bool | None, classes: dict[bytes, int]) -> tuple[tuple[int, int], ...]:
    """(rank, class of ``part`` with one more of that rank) for each rank of one suit (``orphans``
    True or False) or of the honours (None) where one more tile could help: fewer than four held and,
    in a suit, a tile of that rank or one within two ranks held, or a terminal towards Thirteen Orphans."""
    key = part + (b"\x02" if orphans is None else b"\x01" if orphans else b"\x00")
    found = _MORE.get(key)
    if found is None:
        moves = []
        for r, n in enumerate(part):
            if n >= 4:
                continue
            if orphans is not None and not n and not any(part[r + d] for d in (-2, -1, 1, 2) if 0 <= r + d <= 8):
                if not (orphans and r in (0, 8)):
                    continue  # a tile with no neighbour in hand cannot help a standard hand
            after = bytearray(part)
            after[r] += 1
            cls = classes.get(bytes(after))
            if cls is not None:  # None: more tiles than any hand holds
                moves.append((r, cls))
        _bound(_MORE)
        found = _MORE[key] = tuple(moves)
    return found


def _less(part: bytes, classes: dict[bytes, int]) -> tuple[tuple[int, int], ...]:
    """(rank, class of ``part`` with one fewer of that rank) for each rank held in one suit or the honours."""
    found = _LESS.get(part)
    if found is None:
        moves = []
        for r, n in enumerate(part):
            if n:
                after = bytearray(part)
                after[r] -= 1
                moves.append((r, classes[bytes(after)]))
        _bound(_LESS)
        found = _LESS[part] = tuple(moves)
    return found
