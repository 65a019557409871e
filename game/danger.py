"""Reading the table for defence, from what one seat sees (R12.1): how close each opponent looks and
how dangerous each tile is to throw.

Everything here is read from a :class:`~game.seatview.SeatView`: the opponents' exposed sets, every
discard in order, the wall count and this seat's own tiles. Nothing looks at a concealed hand.

- An opponent looks *close* (ready, or nearly) the more sets it has exposed, the more turns it has
  played and the fewer tiles it keeps concealed.
- A tile is *safe* against an opponent when it cannot complete that opponent's hand now: a tile thrown
  by anyone since that opponent's last discard (its hand has not changed since, and it let the tile
  go: every player declares a win it can make), the opponent's own latest discard (sacred discard,
  R6.7), or an honour whose four copies this seat can all see. Other tiles are graded: honours by how
  many copies are in sight, suit tiles by rank (a middle tile fits more waits than a terminal), tiles
  the opponent threw earlier and tiles three ranks from its discards are safer, and a suit the
  opponent's exposed sets concentrate on (a flush, R9) is more dangerous, the other suits less.
- Pao (R11.3): the tile that could complete an opponent's third dragon set or fourth wind set is
  *forbidden* while its other copies are not in sight.
- What a deal-in costs beyond the winner's self-draw, by the table's payment rules (`deal_in_extra`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from game.dangerous_game import dangers
from game.melds import Meld, MeldKind
from game.seatview import SeatView
from game.tiles import NUM_PLAYING_KINDS, Tile

__all__ = ["TableRead", "Threat", "deal_in_extra", "read_danger", "threats"]

_DRAGONS = (31, 32, 33)
_WINDS = (27, 28, 29, 30)
# How dangerous a suit tile is by rank before anything else is known: a middle tile completes more waits.
_RANK_DANGER = (0.55, 0.75, 0.9, 1.0, 1.0, 1.0, 0.9, 0.75, 0.55)
# An honour by copies in sight (this seat's own included): with 3 in sight it can only be a single wait.
_HONOUR_DANGER = (0.7, 0.6, 0.45, 0.1, 0.0)
_SUITS = ("bamboo", "characters", "dots")
_QUIET = 0.5  # below this chance of being ready an opponent is not defended against


@dataclass(frozen=True, slots=True)
class TableRead:
    """One seat's reading of the danger at the table."""

    threat: tuple[float, float, float, float]  # per seat: how likely it is ready now (0 for this seat)
    risk: tuple[float, ...]  # per kind: the summed danger of throwing it, weighted by each threat
    forbidden: frozenset[int]  # kinds that could complete an opponent's third dragon or fourth wind set (R11.3)
    by_seat: tuple[tuple[float, ...], ...] = ()  # per seat, per kind: that opponent's share of ``risk``

    @property
    def top_threat(self) -> float:
        """The likeliest opponent's chance of being ready."""
        return max(self.threat)


@dataclass(frozen=True, slots=True)
class Threat:
    """Why one tile is dangerous against one opponent: its share of the tile's risk, in words."""

    seat: int
    ready: float  # how likely the opponent looks to be ready
    risk: float  # its share of :attr:`TableRead.risk` for the tile
    reasons: tuple[str, ...]
    fit: float = 0.0  # how well the tile fits a ready hand's waits, before readiness and weight (0 when safe)

    @property
    def chance(self) -> float:
        """The bot's reading of the chance this opponent wins on the tile: the chance it is ready times
        how well the tile fits (a fit above 1, a flush's own suit, counts as 1). A rough reading, not a
        measured rate; unlike :attr:`risk` it leaves out what a deal-in to this opponent costs."""
        return self.ready * min(1.0, self.fit)


@dataclass(slots=True)
class _Opponent:
    seat: int
    ready: float
    weight: float
    flush: int | None
    safe_now: frozenset[int]
    thrown: frozenset[int]
    why: tuple[str, ...]  # why it looks close, and why it weighs more


def read_danger(seen: SeatView) -> TableRead:
    """Read the danger of every tile, as ``seen.seat`` sees the table."""
    risk = [0.0] * NUM_PLAYING_KINDS
    by_seat: list[tuple[float, ...]] = []
    threat = [0.0, 0.0, 0.0, 0.0]
    forbidden: set[int] = set()
    visible = seen.visible
    for o in _opponents(seen, forbidden):
        threat[o.seat] = o.ready
        mine = [0.0] * NUM_PLAYING_KINDS
        if o.ready:
            for k in range(NUM_PLAYING_KINDS):
                if k not in o.safe_now:
                    mine[k] = d = o.ready * o.weight * _tile_danger(k, o, visible, None)
                    risk[k] += d
        by_seat.append(tuple(mine))
    by_seat.insert(seen.seat, (0.0,) * NUM_PLAYING_KINDS)
    return TableRead(
        threat=(threat[0], threat[1], threat[2], threat[3]),
        risk=tuple(risk),
        forbidden=frozenset(forbidden),
        by_seat=tuple(by_seat),
    )


def threats(seen: SeatView, kinds: Iterable[int]) -> dict[int, tuple[Threat, ...]]:
    """Why throwing each of ``kinds`` is dangerous, per opponent that is a threat, the most dangerous
    first; the risks are the shares :func:`read_danger` sums."""
    opponents = [o for o in _opponents(seen, set(), explain=True) if o.ready]
    out: dict[int, tuple[Threat, ...]] = {}
    for kind in kinds:
        found = []
        for o in opponents:
            notes: list[str] = list(o.why)
            if kind in o.safe_now:
                notes.append(f"{Tile(kind)} was thrown since its last discard and it did not win on it")
                found.append(Threat(o.seat, o.ready, 0.0, tuple(notes)))
                continue
            fit = _tile_danger(kind, o, seen.visible, notes)
            found.append(Threat(o.seat, o.ready, o.ready * o.weight * fit, tuple(notes), fit))
        found.sort(key=lambda t: -t.risk)
        out[kind] = tuple(found)
    return out


def _opponents(seen: SeatView, forbidden: set[int], explain: bool = False) -> list[_Opponent]:
    """Each opponent's reading, in seat order; adds to ``forbidden`` the pao tiles (R11.3). Only with
    ``explain`` does each say why it looks close (``why``), in words."""
    me = seen.seat
    visible = seen.visible
    turns = [0, 0, 0, 0]
    last = [-1, -1, -1, -1]  # index of each seat's latest discard
    thrown: list[set[int]] = [set(), set(), set(), set()]
    first_claim = [-1, -1, -1, -1]
    for i, thrown_tile in enumerate(seen.discards):
        turns[thrown_tile.seat] += 1
        last[thrown_tile.seat] = i
        thrown[thrown_tile.seat].add(int(thrown_tile.tile))
        if thrown_tile.claimed_by is not None and first_claim[thrown_tile.claimed_by] < 0:
            first_claim[thrown_tile.claimed_by] = i
    out = []
    for o in range(4):
        if o == me:
            continue
        melds = seen.melds[o]
        sets = len(melds)
        concealed = seen.tile_counts[o]
        # A rough chance of being ready: each exposed set and each turn played brings a hand closer.
        pressure = 0.045 * turns[o] + 0.45 * sets + (0.8 if concealed <= 4 else 0.0)
        p = 1.0 - math.exp(-pressure)
        if p < _QUIET:
            p = 0.0  # not yet a threat worth a thought
        why: list[str] = []
        if explain:
            shown = f"{sets} set{'' if sets == 1 else 's'} shown, {turns[o]} discard{'' if turns[o] == 1 else 's'}"
            why.append(f"seat {o} looks {p:.0%} likely to be ready: {shown}")
            if concealed <= 4:
                why[0] += f", {concealed} tiles concealed"
        weight = 1.5 if o == seen.dealer else 1.0  # payments to the dealer are doubled (R11.1)
        if o == seen.dealer and explain:
            why.append("it deals: paying it costs double (R11.1)")
        honour_sets = {int(m.tile) for m in melds if m.kind != "chow" and m.tile >= 27}
        dragons = sum(1 for t in honour_sets if t in _DRAGONS)
        winds = sum(1 for t in honour_sets if t in _WINDS)
        if dragons >= 2:
            forbidden.update(t for t in _DRAGONS if t not in honour_sets and visible[t] <= 2)
            weight *= 2.0  # a big hand in the making
            if explain:
                why.append("two dragon sets shown: a big hand")
        if winds >= 3:
            forbidden.update(t for t in _WINDS if t not in honour_sets and visible[t] <= 2)
            weight *= 2.0
            if explain:
                why.append("three wind sets shown: a big hand")
        flush = _flush_suit(seen, o, first_claim[o])
        safe_now = {int(t.tile) for t in seen.discards[last[o] + 1 :]}
        if last[o] >= 0:
            safe_now.add(int(seen.discards[last[o]].tile))
        out.append(_Opponent(o, p, weight, flush, frozenset(safe_now), frozenset(thrown[o]), tuple(why)))
    return out


def _tile_danger(k: int, o: _Opponent, visible: tuple[int, ...], notes: list[str] | None) -> float:
    """How dangerous ``k`` is against opponent ``o`` before its threat and weight; ``notes`` gets why."""
    mine = o.thrown
    if k >= 27:
        d = _HONOUR_DANGER[min(visible[k], 4)]
        if notes is not None:
            notes.append(f"{visible[k]} of the 4 {Tile(k)} in sight")
        if o.flush is not None:
            d *= 1.3
            if notes is not None:
                notes.append(f"its sets show a flush in {_SUITS[o.flush]}: honours fit it")
        if k in mine:
            d *= 0.4
            if notes is not None:
                notes.append("it threw one earlier")
        return d
    suit, rank = divmod(k, 9)
    d = _RANK_DANGER[rank]
    if notes is not None:
        notes.append("a middle tile fits more waits" if 2 < rank < 6 else "a tile near the edge fits fewer waits")
    if k in mine:
        d *= 0.3
        if notes is not None:
            notes.append("it threw one earlier")
    else:
        low = rank >= 3 and (k - 3) in mine
        high = rank <= 5 and (k + 3) in mine
        if (low or rank < 3) and (high or rank > 5):
            d *= 0.5  # three ranks from its discards on every side: fewer two-sided waits
            if notes is not None and (low or high):
                notes.append("it threw the tiles three ranks away")
        elif low or high:
            d *= 0.75
            if notes is not None:
                notes.append("it threw a tile three ranks away")
    if o.flush is not None:
        d *= 1.6 if suit == o.flush else 0.15
        if notes is not None:
            notes.append(f"its sets show a flush in {_SUITS[o.flush]}" + ("" if suit == o.flush else ": another suit"))
    return d


def _flush_suit(seen: SeatView, seat: int, first_claim: int) -> int | None:
    """The suit ``seat``'s exposed sets show it collecting for a flush (R9), if they clearly do: two or
    more sets, every suit set in one suit, and no tile of that suit thrown since it began claiming.
    """
    melds = seen.melds[seat]
    if len(melds) < 2:
        return None
    suits = {m.tile // 9 for m in melds if m.tile < 27}
    if len(suits) != 1:
        return None
    suit = suits.pop()
    if first_claim >= 0:
        for d in seen.discards[first_claim:]:
            if d.seat == seat and d.tile < 27 and d.tile // 9 == suit:
                return None
    return suit


def deal_in_extra(seen: SeatView) -> tuple[float, ...]:
    """Per kind, how many more shares of a win this seat pays for throwing the winning tile than it would
    had the winner drawn it, by the table's payment rules: 0 when every loser pays alike (R11.1); 3 when
    the discarder pays for all (R14: 4× against the 1× of a self-draw; the dealer's win, 6× against
    2×), and, in the Dangerous Game (R11.6), for the tiles the table would judge dangerous now (the
    others' declared sets show a big hand, or the live wall is nearly empty).
    """
    rules = seen.rules
    if rules.payment == "discarder":
        return (3.0,) * 34
    extra = [0.0] * 34
    if rules.dangerous_game:
        melds = [[Meld(MeldKind(m.kind), m.tiles) for m in seat] for seat in seen.melds]
        shown = [d.tile for d in seen.discards if d.claimed_by is None]
        for code, _why in dangers(melds, shown, seen.wall_live)[seen.seat]:
            extra[int(Tile.parse(code))] = 3.0
    return tuple(extra)
