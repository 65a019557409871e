"""What the built-in policy reads off the table: its own concealed tiles and public facts only (R12.1).

A :class:`TableReading` is built from a :class:`game.seatview.SeatView` alone: the seat's own hand,
every declared meld, the discards, the seat winds and the prevailing wind, all of which
:func:`game.view.view` shows the seat. Another seat's concealed tiles and the wall are not in it.
"""

from __future__ import annotations

from dataclasses import dataclass

from game.seatview import SeatView, SeenDiscard, SeenMeld
from game.tiles import DRAGONS, NUM_PLAYING_KINDS, WINDS

__all__ = ["TableReading", "read_table"]

_DRAGON_KINDS = frozenset(int(t) for t in DRAGONS)
_WIND_KINDS = frozenset(int(t) for t in WINDS)
_HONOUR_KINDS = _DRAGON_KINDS | _WIND_KINDS


@dataclass(frozen=True, slots=True)
class TableReading:
    """The public facts a discard or claim decision needs, seen from one seat."""

    hand: tuple[int, ...]  # the seat's own concealed tiles, as a count vector of 34
    visible: tuple[int, ...]  # copies of each kind the seat can see: own hand, every meld, every discard
    valuable: frozenset[int]  # honours whose pung is a double to this seat: dragons, seat and prevailing wind (R9)
    open: bool  # the seat has claimed a set, so its hand is no longer concealed (R7.6)
    danger: tuple[int, ...] | None  # per kind: how many shown big hands (the dealer's twice) it could feed, if any
    forbidden: frozenset[int]  # tiles that could complete an opponent's third dragon or fourth wind set (pao, R11.3)


def read_table(seen: SeatView) -> TableReading:
    """Read the table as one seat sees it (its own hand and public information only)."""
    seat = seen.seat
    visible = seen.visible
    discarded: list[bool] | None = None  # per kind: whether it has been discarded, read when first needed
    valuable = _DRAGON_KINDS | {int(seen.winds[seat]), int(seen.round_wind)}
    dangerous: list[int] | None = None
    forbidden: set[int] = set()
    for other in range(4):
        if other == seat or len(seen.melds[other]) < 2:
            continue
        feeds, completes = _big_hand_shown(seen.melds[other], other, seen.discards)
        if not feeds and not completes:
            continue
        if dangerous is None or discarded is None:
            dangerous = [0] * NUM_PLAYING_KINDS
            discarded = [False] * NUM_PLAYING_KINDS
            for d in seen.discards:
                discarded[d.tile] = True
        weight = 2 if other == seen.dealer else 1  # the dealer collects double (R11.1)
        for kind in completes:
            if visible[kind] >= 3:  # the opponent holds at most one: it can only be a pair
                feeds.add(kind)
            else:
                forbidden.add(kind)
        for kind in feeds | completes:
            # a tile already discarded is the usual safe answer; a tile whose copies are all in sight is safe for sure
            if not discarded[kind] and visible[kind] < 4:
                dangerous[kind] += weight
    return TableReading(
        hand=seen.hand,
        visible=visible,
        valuable=frozenset(valuable),
        open=seen.open,
        danger=None if dangerous is None else tuple(dangerous),
        forbidden=frozenset(forbidden),
    )


def _big_hand_shown(
    melds: tuple[SeenMeld, ...], seat: int, discards: tuple[SeenDiscard, ...]
) -> tuple[set[int], set[int]]:
    """What ``seat``'s ``melds`` clearly show: the tiles that could feed its big hand, and the tiles that
    would complete its third dragon or fourth wind set (Big Three Dragons, Big Four Winds: R10.5, pao R11.3).
    """
    dragons = {int(m.tile) for m in melds if m.kind != "chow" and m.tile in _DRAGON_KINDS}
    winds = {int(m.tile) for m in melds if m.kind != "chow" and m.tile in _WIND_KINDS}
    suits = [m.tile // 9 for m in melds if m.tile < 27]
    feeds: set[int] = set()
    completes: set[int] = set()
    if len(dragons) >= 2:
        completes |= _DRAGON_KINDS - dragons
        feeds |= _HONOUR_KINDS - dragons - winds
    if len(winds) >= 3:
        completes |= _WIND_KINDS - winds
    elif len(winds) == 2:
        feeds |= _WIND_KINDS - winds  # Little Four Winds is two sets and a pair away
    if not suits and len(dragons) + len(winds) >= 2:
        feeds |= _HONOUR_KINDS - dragons - winds  # an honours hand
    if len(suits) >= 2 and len(set(suits)) == 1 and not _threw_suit_since_claiming(discards, seat, suits[0]):
        # a one-suit hand (R9 flushes), unless its own discards since it began claiming say otherwise:
        # its suit, and honours for the half flush
        feeds |= set(range(suits[0] * 9, suits[0] * 9 + 9)) | (_HONOUR_KINDS - dragons - winds)
    return feeds, completes


def _threw_suit_since_claiming(discards: tuple[SeenDiscard, ...], seat: int, suit: int) -> bool:
    """Whether ``seat`` has discarded a tile of ``suit`` since it first claimed a discard."""
    claimed = False
    for d in discards:
        if d.claimed_by == seat:
            claimed = True
        elif claimed and d.seat == seat and d.tile < 27 and d.tile // 9 == suit:
            return True
    return False
