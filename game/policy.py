"""The built-in playing policy: a shanten-greedy player with a sense of value and of danger.

- It always declares a win when it can (R7.3), on its own draw, a discard or a robbed kong.
- Otherwise it discards the tile that leaves its hand closest to ready (shanten), breaking ties by
  how well each tile connects with the rest of the hand; pairs of dragons and of its own or the
  prevailing wind are kept longest, since their pung is a double (R9).
- It claims a chow, pung or kong only when that brings the hand closer to ready, except that a
  pung of a dragon or of its seat or the prevailing wind (a double, R9) is claimed at equal shanten,
  and so is a kong once its hand is open anyway (R7.6). It declares a kong in its own turn when that
  costs no shanten.
- Sometimes it plays for a flush (R9: one suit, with or without honours): when one suit plus honours
  dominates its hand, a draw decides whether it commits; committed, it throws tiles of the other
  suits first (at a cost of at most one step of shanten) and claims none of them. The draw hashes
  public facts that stay fixed through the deal: the deal number, the prevailing wind, the dealer,
  the seat and the deal's first discard (before that discard, its absence).
- When an opponent's melds clearly show a big hand (two or more sets of one suit and none of
  another, with no tile of that suit thrown since it began claiming; two dragon sets; two or more
  wind sets; only honour sets), it prefers discards that cannot feed it (tiles of other suits, tiles
  already discarded) at a cost of at most one step of shanten, and it never throws the tile that could
  complete a third dragon or fourth wind set (pao, R11.3) while it has any other discard.

It decides from a :class:`game.seatview.SeatView` alone, that is from what :func:`game.view.view`
shows its seat (R12.1); nothing secret, not even the seed (R12.2), reaches it. It is deterministic:
the same view always gets the same choice.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence

from game.acceptance import shanten_after_discards
from game.actions import Action, ActionType
from game.bot_table import TableReading, read_table
from game.game import Game
from game.hand import standard_shanten
from game.seatview import SeatView
from game.tiles import MAJORS, Tile

__all__ = ["choose", "decide", "flush_plan", "flush_suit"]

_MAJOR_KINDS = tuple(int(t) for t in MAJORS)
# Chance of committing to a flush by how many tiles of other suits would be left after the next discard.
_FLUSH_CHANCE = (1.0, 1.0, 0.6, 0.3)


def choose(game: Game, seat: int) -> Action:
    """The policy's action for ``seat`` now, decided from that seat's view alone.

    :raises ValueError: if ``seat`` has nothing to do.
    """
    return decide(SeatView.of_live(game, seat))


def decide(seen: SeatView) -> Action:
    """The policy's action for the seat whose view ``seen`` is.

    :raises ValueError: if the seat has nothing to do.
    """
    by_type = seen.by_type()
    plain = seen.obvious(by_type)
    if plain is not None:
        return plain
    table = read_table(seen)
    hand = list(table.hand)  # a copy: choosing never changes the view
    suit = _flush_suit(seen, hand)
    if ActionType.PASS in by_type:
        assert seen.offered is not None
        return _best_claim(seen, by_type, table, suit)
    kongs = by_type.get(ActionType.KONG, [])
    if kongs:
        before = _shanten(hand)
        for kong in kongs:
            assert kong.tile is not None
            if hand[kong.tile] != 4:
                return kong  # an added kong costs nothing
            if suit is not None and kong.tile < 27 and kong.tile // 9 != suit:
                continue  # a set of another suit on the table would end the flush
            hand[kong.tile] = 0
            after = _shanten(hand)
            hand[kong.tile] = 4
            if after <= before:
                return kong
    return _best_discard(hand, by_type[ActionType.DISCARD], table, suit)


def flush_suit(game: Game, seat: int) -> int | None:
    """The suit (0 bamboo, 1 characters, 2 dots) the policy is steering ``seat``'s hand into for a
    flush (R9), or None when it is not playing for one now.
    """
    return flush_plan(SeatView.of(game, seat))


def flush_plan(seen: SeatView) -> int | None:
    """:func:`flush_suit` for the seat whose view ``seen`` is."""
    if seen.phase != "deal":
        return None
    return _flush_suit(seen, list(seen.hand))


def _flush_suit(seen: SeatView, hand: list[int]) -> int | None:
    per_suit = [sum(hand[9 * s : 9 * s + 9]) for s in range(3)]
    meld_suits = {m.tile // 9 for m in seen.melds[seen.seat] if m.tile < 27}
    if len(meld_suits) > 1:
        return None  # sets of two suits are on the table already
    if meld_suits:
        suit = meld_suits.pop()
    else:
        suit = max(range(3), key=lambda s: (per_suit[s], -s))
    stray = sum(per_suit) - per_suit[suit]
    if stray and sum(hand) % 3 == 2:
        stray -= 1  # in its turn: one of them goes now
    if stray >= len(_FLUSH_CHANCE):
        return None
    chance = _FLUSH_CHANCE[stray]
    first = seen.discards[0].tile if seen.discards else None
    if chance < 1.0 and _draw(seen.deal, seen.round_wind, seen.dealer, seen.seat, first) >= chance:
        return None
    return suit


@functools.lru_cache(maxsize=256)
def _draw(deal: int, round_wind: Tile, dealer: int, seat: int, first: Tile | None) -> float:
    """A number in [0, 1) fixed for the seat through the deal, so a flush once chosen stays chosen.

    It hashes public facts only. The first discard, fixed once thrown, is what varies it from one wall
    to the next; the seat's bonus tiles would too, but they grow whenever it draws a flower.
    """
    key = f"sparrow-policy/flush/{deal}/{round_wind.code}/{dealer}/{seat}/{'-' if first is None else first.code}"
    digest = hashlib.sha256(key.encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _shanten(hand: list[int]) -> int:
    """:func:`game.hand.shanten` for a checked hand, without its checks (they cost more than the lookup)."""
    best = standard_shanten(hand)
    if best > 0 and sum(hand) >= 13:  # Thirteen Orphans (R10.3): only a hand without sets on the table
        distinct = paired = 0
        for k in _MAJOR_KINDS:
            n = hand[k]
            if n:
                distinct += 1
                if n >= 2:
                    paired = 1
        return min(best, 13 - distinct - paired)
    return best


def _best_discard(hand: list[int], discards: Sequence[Action], table: TableReading, suit: int | None) -> Action:
    after = shanten_after_discards(hand, sum(hand) >= 14)  # Thirteen Orphans only for a concealed hand
    options: list[tuple[Action, int, int]] = []
    for action in discards:
        assert action.tile is not None
        kind = int(action.tile)
        options.append((action, kind, after[kind]))
    # Never the tile that could complete an opponent's third dragon or fourth wind set (R11.3) if
    # anything else can go.
    allowed = [o for o in options if o[1] not in table.forbidden] or options
    low = min(value for _, _, value in allowed)
    danger = table.danger
    # Safety against a shown big hand, or a committed flush, is worth one step of shanten.
    slack = 1 if danger is not None or (suit is not None and low >= 1) else 0
    best: tuple[int, int, int, int, int] | None = None
    choice = allowed[0][0]
    for action, tile, value in allowed:
        if value > low + slack:
            continue
        key = (
            0 if danger is None else danger[tile],
            0 if suit is not None and tile < 27 and tile // 9 != suit else 1,
            value,
            _usefulness(hand, tile, table),
            -tile,
        )
        if best is None or key < best:
            best, choice = key, action
    return choice


def _usefulness(hand: list[int], tile: int, table: TableReading) -> int:
    """How much a tile connects with the rest of the hand (lower = better to throw)."""
    own = hand[tile] - 1
    if tile >= 27:
        if 4 - table.visible[tile] < 2 - own:
            return 3 * own - 1  # too few copies left unseen to make a pung of it
        return 3 * own + (2 if tile in table.valuable else 0)  # a valuable pair or single is kept longer
    rank = tile % 9
    near = 0
    for d in (-2, -1, 1, 2):
        r = rank + d
        if 0 <= r <= 8 and hand[tile + d]:
            near += 3 - abs(d)
    edge = 1 if rank in (0, 8) else 0
    return 3 * own + near * 2 - edge


def _best_claim(
    seen: SeatView, by_type: dict[ActionType, list[Action]], table: TableReading, suit: int | None
) -> Action:
    """Claim a set only when the hand gets closer to ready than by passing, or when it is a pung of a
    valuable honour (a double, R9) at no cost; never a set of another suit while playing for a flush.
    """
    choice = by_type[ActionType.PASS][0]
    tile = seen.offered
    assert tile is not None
    if suit is not None and tile < 27 and tile // 9 != suit:
        return choice
    current = _shanten(list(table.hand))
    valuable = tile in table.valuable
    best: tuple[int, int] | None = None
    for rank, kind in enumerate((ActionType.CHOW, ActionType.PUNG, ActionType.KONG)):
        for action in by_type.get(kind, []):
            after = seen.hand_after(action)
            if kind is ActionType.KONG:
                value = _shanten(after)  # a loose tile follows; the hand keeps its size class
            else:
                value = min(shanten_after_discards(after, sum(after) >= 14))
            gain = current - value
            if gain < 0 or (gain == 0 and not _worth_at_no_gain(kind, valuable, table.open)):
                continue
            key = (gain, rank)
            if best is None or key > best:
                best, choice = key, action
    return choice


def _worth_at_no_gain(kind: ActionType, valuable: bool, already_open: bool) -> bool:
    """Whether a claim that does not bring the hand closer to ready is still worth making."""
    if kind is ActionType.PUNG:
        return valuable  # a double (R9) for the price of exposing the set
    if kind is ActionType.KONG:
        return already_open  # points and a loose tile, and no concealed hand left to lose (R7.6)
    return False
