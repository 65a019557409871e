"""The "strong" bot level (issue 22): speed, tile acceptance, hand value and defence, from one seat's view.

How :class:`StrongBot` decides, in order:

- It declares a win whenever it can (R7.3), on its own draw, a discard or a robbed kong.
- A discard is judged by the hand it leaves. Shanten (tiles from ready) comes first. Among the
  discards that leave the hand closest to ready, it weighs *acceptance* (how many unseen tiles would
  bring it a step closer, counted from ``seen.unseen``) times the hand's expected value: its points
  (R8: pungs, concealed pungs, pairs that may become pungs, bonus tiles) and its doubles (R9: pungs and
  pairs of dragons, of its seat wind and of the prevailing wind, a hand heading for no chows or for one
  suit, the concealed self-drawn double as ``concealed_doubles`` pays it). A ready hand's winning tiles
  count by how likely they are to come: the others throw honours, terminals and tiles they have thrown
  before sooner than middle tiles, so a wait on those wins more often off a discard.
- A flush: when the hand holds at most three tiles of other suits (besides its own sets' suit) and the
  wall is still long, it commits to that suit (R9 half or full flush). It then throws the other suits'
  tiles first, at the cost of at most one step of shanten while it is not ready, and claims none of them;
  honours, which break no flush, are weighed with them as any discard is.
- Defence (:mod:`game.danger`): every opponent's chance of being ready and every tile's danger are read
  off the table. Among the discards that keep the hand closest to ready, danger is weighed against the
  hand's worth, more the further the hand is from ready; it never costs a step of shanten: when every
  loser pays (R11.1), throwing the winning tile costs little more than the winner drawing it. The
  table's payment rules say what a deal-in costs (:func:`deal_in_extra`): where the discarder pays for
  all (R14), or for the tiles the Dangerous Game judges dangerous (R11.6), danger weighs more. When an
  opponent is almost surely ready and the bot's own hand is two steps or more from ready, it folds: it
  throws the safest tile it holds. It never throws the tile that could complete an opponent's third
  dragon or fourth wind set (pao, R11.3) while it has any other discard.
- A chow, pung or kong is claimed only when the hand it leaves is worth more than passing: a step closer
  to ready, or a double gained (a dragon or valuable wind pung) at no cost in shanten or acceptance.
  It claims nothing while folding. In its own turn it declares a kong that costs no shanten.

It is deterministic and quick: no search, only shanten lookups (a few hundred per decision).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from game.acceptance import IS_MAJOR, outs, shanten_after_discards, tile_acceptance
from game.actions import Action, ActionType
from game.danger import TableRead, deal_in_extra, read_danger
from game.seatview import SeatView, SeenMeld
from game.tiles import Tile

__all__ = ["Candidate", "Deliberation", "Mind", "StrongBot"]

_DRAGONS = (31, 32, 33)
_STEP = 0.2  # a hand one step further from ready is worth a fifth as much
_PAIR_HOPE = 0.3  # chance a pair in hand becomes a pung
_PUNG_HOPE = 0.15  # a step towards the no-chows double for each pung or pair past three
_FLUSH_STRAY = 3  # commit to a flush with at most this many tiles of other suits left
_FLUSH_WALL = 30  # and only while the live wall holds this many tiles


# Defence is light: when every loser pays (R11.1), throwing the winning tile costs no more than the
# winner drawing it a turn later, so safety is worth only the wins it prevents outright. Measured in
# the arena (docs/bots.md, Levels), (0.3, 0.1) deals in less than (0.08, 0.04) at a small cost in
# points against `normal`; heavier settings (0.5 and up, or folding sooner) lose too much against it,
# also under R14 where the discarder pays for everyone.
_CAUTION = (0.3, 0.1)  # weight of danger against worth: base, and more per step from ready
_FOLD_FAR = 0.85  # fold two or more steps from ready against an opponent this likely to be ready

# Where the discarder of the winning tile pays for everyone (R14), a deal-in costs it 4 shares (6 for the
# dealer's win) where the winner's self-draw costs it 1, so danger weighs ``1 + _PAYS_WEIGHT * extra``
# times as much, ``extra`` being the shares a deal-in costs beyond a self-draw (:func:`deal_in_extra`).
# Measured in the arena under R14 (docs/bots.md, Levels): weighing it fully (1.0), or folding sooner,
# cuts deal-ins but loses points against `normal`, whose wins come more often when strong holds back.
_PAYS_WEIGHT = 0.3


@dataclass(slots=True)
class Candidate:
    """One action the bot weighed, with the figures it weighed it by. Read-only by convention (not
    frozen: a dozen are built for every decision, and a frozen dataclass costs several times as much
    to build)."""

    action: Action
    shanten: int  # of the hand it leaves (for a chow or pung: after the best discard that follows)
    worth: float  # the bot's worth of that hand: acceptance times expected value, less per step from ready
    risk: float  # the danger of the tile it throws (:mod:`game.danger`); 0 when it throws none
    leaves: tuple[int, ...]  # the concealed hand it leaves waiting to draw (3k + 1 tiles, 34 counts)
    melds: tuple[SeenMeld, ...]  # the seat's sets on the table after it
    considered: bool  # among the actions the choice was made from (False: ruled out before, see ``note``)
    note: str = ""  # why it was ruled out, or how the choice was made among the considered ones
    then: Tile | None = None  # after a chow or pung: the discard that follows


@dataclass(frozen=True, slots=True)
class Deliberation:
    """The bot's decision on one view: its choice and every action it weighed, best first."""

    choice: Action
    mode: str  # "obvious", "claim", "kong", "discard", "fold" or "flush"
    candidates: tuple[Candidate, ...]  # the choice first; empty for an obvious action
    mind: Mind = field(compare=False, repr=False)


class StrongBot:
    """The "strong" level: see the module docstring. ``seed`` is accepted for the registry; it decides
    nothing, since the bot plays the same way every time.
    """

    name = "strong"

    def __init__(self, seed: int | str = 0) -> None:
        self.seed = seed

    def decide(self, seen: SeatView) -> Action:
        """The bot's action for ``seen``, one of ``seen.legal``.

        :raises ValueError: if the seat has nothing to do.
        """
        return self.deliberate(seen, full=False).choice

    def deliberate(self, seen: SeatView, full: bool = True) -> Deliberation:
        """The bot's decision for ``seen`` with the candidates it weighed, best first: ``decide`` is its
        ``choice``. ``full`` also weighs the actions the bot rules out before comparing (a claim while
        folding, a kong that costs shanten), for a reader; the choice is the same either way.

        :raises ValueError: if the seat has nothing to do.
        """
        by_type = seen.by_type()
        mind = Mind(seen)
        plain = seen.obvious(by_type)
        if plain is not None:
            return Deliberation(plain, "obvious", (), mind)
        if ActionType.PASS in by_type:
            choice, ranked = mind.claim(by_type, full)
            return Deliberation(choice, "claim", ranked, mind)
        mode, ranked = mind.discard(by_type.get(ActionType.DISCARD, []))
        kongs = [mind.kong_candidate(kong) for kong in by_type.get(ActionType.KONG, [])] if full else []
        for kong in by_type.get(ActionType.KONG, []):
            if mind.kong_is_free(kong):
                first = mind.kong_candidate(kong)
                rest = [c for c in kongs if c.action != kong]
                return Deliberation(kong, "kong", (first, *ranked, *rest), mind)
        return Deliberation(ranked[0].action, mode, (*ranked, *kongs), mind)


class Mind:
    """One decision's worth of reading: the hand, the unseen tiles, the valuable honours, the danger."""

    def __init__(self, seen: SeatView) -> None:
        self.seen = seen
        self.hand = list(seen.hand)
        self.unseen = seen.unseen
        self.melds: list[SeenMeld] = list(seen.melds[seen.seat])
        self.concealed = not seen.open
        value: dict[int, int] = {k: 1 for k in _DRAGONS}
        for wind in (seen.winds[seen.seat], seen.round_wind):
            value[int(wind)] = value.get(int(wind), 0) + 1  # both: 2 doubles for the pung (R9)
        self.value = value
        rules = seen.rules
        self.base = rules.win_points + rules.bonus_points * len(seen.bonus[seen.seat])  # R8.1, R8.4
        self._danger: TableRead | None = None
        self.outs = outs(seen)
        self.extra = deal_in_extra(seen)
        self.costly = max(self.extra)  # the most a deal-in costs beyond a self-draw, in shares

    @property
    def danger(self) -> TableRead:
        if self._danger is None:
            self._danger = read_danger(self.seen)
        return self._danger

    # ------------------------------------------------------------------ hand evaluation
    def judge(self, hand: list[int], melds: Sequence[SeenMeld]) -> tuple[int, float]:
        """(shanten, worth) of a hand waiting to draw (3k + 1 concealed tiles)."""
        shanten, acceptance = tile_acceptance(hand, self.unseen, orphans=not melds, outs=self.outs)
        doubles = self.doubles(hand, melds)
        return shanten, (acceptance + 1) * 2.0**doubles * _STEP**shanten

    def improving(self, hand: list[int], melds: Sequence[SeenMeld]) -> tuple[int, list[int]]:
        """(shanten, the kinds that would bring it closer) of a hand waiting to draw, as ``judge`` counts
        them: kinds of which this seat has not seen every copy."""
        kinds: list[int] = []
        shanten = tile_acceptance(hand, self.unseen, orphans=not melds, kinds=kinds)[0]
        return shanten, kinds

    def aims(self, hand: list[int], melds: Sequence[SeenMeld]) -> tuple[float, list[tuple[str, float]]]:
        """The points the hand aims for (its expected value, as ``judge`` weighs it) and what makes them
        up, each with its share as a power of two."""
        notes: list[tuple[str, float]] = []
        return self.base * 2.0 ** self.doubles(hand, melds, notes), notes

    def doubles(
        self, hand: list[int], melds: Sequence[SeenMeld], notes: list[tuple[str, float]] | None = None
    ) -> float:
        """The hand's expected value as a power of two: its doubles (R9) and its points (R8) over the
        points of a bare win, each weighed by how likely it looks. ``notes`` collects each part in words.
        """
        d = 0.0
        sets = {int(m.tile) for m in melds if m.kind != "chow"}
        for k, n in self.value.items():
            if k in sets or hand[k] >= 3:
                d += n
                if notes is not None:
                    notes.append((f"pung of {Tile(k)}", n))
            elif hand[k] == 2 and self.unseen[k]:
                d += 0.4 * n
                if notes is not None:
                    notes.append((f"pair of {Tile(k)} that may become a pung", 0.4 * n))
        per_suit = [sum(hand[0:9]), sum(hand[9:18]), sum(hand[18:27])]
        honours = sum(hand[27:34])
        meld_suits = set()
        points = 0.0
        chows = False
        for m in melds:
            major = IS_MAJOR[m.tile]
            if m.kind == "chow":
                chows = True
            elif m.kind == "pung":
                points += 4 if major else 2
            else:
                points += (16 if major else 8) * (1 if m.exposed else 2)
            if m.tile < 27:
                meld_suits.add(m.tile // 9)
                per_suit[m.tile // 9] += 3
            else:
                honours += 3
        pungs = len(sets)
        pairs = 0
        unseen = self.unseen
        for k, n in enumerate(hand):
            if n < 2 or k >= 34:
                continue
            if n >= 3:
                points += 8 if IS_MAJOR[k] else 4  # a concealed pung (R8.2)
                pungs += 1
            elif unseen[k]:
                points += _PAIR_HOPE * (6 if IS_MAJOR[k] else 3)
                pairs += 1
        if not chows and pungs + pairs >= 4:
            d += _PUNG_HOPE * min(pungs + pairs - 3, 3)  # no chows: every set a pung (R9)
            if notes is not None:
                notes.append(("heading for no chows", _PUNG_HOPE * min(pungs + pairs - 3, 3)))
        if len(meld_suits) <= 1:
            suit = meld_suits.pop() if meld_suits else max(range(3), key=lambda s: per_suit[s])
            stray = sum(per_suit) - per_suit[suit]
            if stray < len(_FLUSH_HOPE):
                hope = _FLUSH_HOPE[stray]
                if self.seen.wall_live < 30:
                    hope *= self.seen.wall_live / 30
                d += hope * (1.0 if honours else 3.0)
                if notes is not None:
                    kind = "half" if honours else "full"
                    notes.append(
                        (
                            f"{kind} flush in {_SUIT_NAMES[suit]}, {stray} tile{'' if stray == 1 else 's'} off suit",
                            hope * (1.0 if honours else 3.0),
                        )
                    )
        if self.concealed and not melds:
            d += 0.4 * self.seen.rules.concealed_doubles  # the concealed self-drawn double, about half the time
            if notes is not None and self.seen.rules.concealed_doubles:
                notes.append(("concealed, for the self-drawn double", 0.4 * self.seen.rules.concealed_doubles))
        gain = math.log2((self.base + points) / self.base)
        if notes is not None and points >= 1:
            notes.append((f"about {points:.0f} points from its sets and pairs", gain))
        return d + gain

    # ------------------------------------------------------------------ decisions
    def discard(self, actions: Sequence[Action]) -> tuple[str, tuple[Candidate, ...]]:
        """The discards ranked, best first: the one that leaves the best hand, weighed against its
        danger; the safest when folding. Returns how the choice was made ("discard", "fold" or "flush").
        """
        hand = self.hand
        options: list[tuple[Action, int, int, float]] = []
        seen_kinds: set[int] = set()
        for action in actions:
            assert action.tile is not None
            k = int(action.tile)
            if k in seen_kinds:
                continue
            seen_kinds.add(k)
            hand[k] -= 1
            shanten, worth = self.judge(hand, self.melds)
            hand[k] += 1
            options.append((action, k, shanten, worth))
        danger = self.danger
        allowed = [o for o in options if o[1] not in danger.forbidden] or options
        low = min(o[2] for o in allowed)
        top = max(o[3] for o in allowed)
        risk = danger.risk
        cost = risk  # the danger weighed by what a deal-in costs under the table's payment rules
        if self.costly:
            cost = tuple(r * (1.0 + _PAYS_WEIGHT * x) for r, x in zip(risk, self.extra, strict=True))
        suit: int | None = None
        if self.folding(low):
            mode, near = "fold", sorted(allowed, key=lambda o: (cost[o[1]], -o[3], o[1]))
        else:
            caution = _CAUTION[0] + _CAUTION[1] * min(low, 3)
            mode, near = "discard", [o for o in allowed if o[2] == low]  # shanten first
            suit = self.flush_plan()
            if suit is not None:
                # Playing for a flush (R9): tiles of the other suits go first, at the cost of at most one
                # step of shanten while the hand is not ready (a ready hand is never broken up for it).
                # Honours break no flush: they are weighed with them as any discard is, at no cost in
                # shanten, so a safe honour goes before a dangerous tile worth no more.
                reach = low + 1 if low >= 1 else low
                stray = [o for o in allowed if o[2] <= reach and o[1] < 27 and o[1] // 9 != suit]
                if stray:
                    mode, near = "flush", stray + [o for o in allowed if o[2] == low and o[1] >= 27]
            near.sort(key=lambda o: (o[3] / top - caution * cost[o[1]], -o[1]), reverse=True)
        chosen = {o[1] for o in near}
        rest = sorted((o for o in options if o[1] not in chosen), key=lambda o: (o[2], -o[3], o[1]))
        ranked = [self._candidate(o, risk[o[1]], True, "") for o in near]
        for o in rest:
            why = "could complete an opponent's big hand (pao, R11.3)" if o[1] in danger.forbidden else ""
            if not why:
                on_suit = mode == "flush" and o[1] < 27 and o[1] // 9 == suit
                why = "keeps off-suit tiles (playing for a flush)" if on_suit else "further from ready"
            ranked.append(self._candidate(o, risk[o[1]], False, why))
        return mode, tuple(ranked)

    def _candidate(self, option: tuple[Action, int, int, float], risk: float, considered: bool, note: str) -> Candidate:
        action, k, shanten, worth = option
        leaves = list(self.hand)
        leaves[k] -= 1
        return Candidate(action, shanten, worth, risk, tuple(leaves), tuple(self.melds), considered, note)

    def flush_plan(self) -> int | None:
        """The suit the hand is committed to for a flush (R9), if it is close enough to one to try."""
        if self.seen.wall_live < _FLUSH_WALL:
            return None
        hand = self.hand
        per_suit = [sum(hand[0:9]), sum(hand[9:18]), sum(hand[18:27])]
        meld_suits = {m.tile // 9 for m in self.melds if m.tile < 27}
        if len(meld_suits) > 1:
            return None
        suit = meld_suits.pop() if meld_suits else max(range(3), key=lambda s: (per_suit[s], -s))
        stray = sum(per_suit) - per_suit[suit]
        if stray and sum(hand) % 3 == 2:
            stray -= 1  # in its own turn one of them goes now
        return suit if stray <= _FLUSH_STRAY else None

    def folding(self, shanten: int) -> bool:
        """Whether to give up on the hand and throw only safe tiles."""
        return shanten >= 2 and self.danger.top_threat >= _FOLD_FAR

    def claim(self, by_type: dict[ActionType, list[Action]], full: bool = True) -> tuple[Action, tuple[Candidate, ...]]:
        """Claim the set that leaves the hand worth most, if that beats passing; with every option weighed,
        the choice first. ``full`` weighs the claims also when they are ruled out before comparing."""
        passing = by_type[ActionType.PASS][0]
        tile = self.seen.offered
        assert tile is not None
        hand = self.hand
        shanten, worth = self.judge(hand, self.melds)
        stay = Candidate(passing, shanten, worth, 0.0, tuple(hand), tuple(self.melds), True)
        ruled_out = ""
        if self.folding(shanten):
            ruled_out = "claims nothing while folding"
        else:
            suit = self.flush_plan()
            if suit is not None and tile < 27 and tile // 9 != suit:
                ruled_out = "a set of another suit would end the flush"
        if ruled_out and not full:
            return passing, (stay,)
        best, choice = worth, passing
        weighed: list[Candidate] = []
        for kind in (ActionType.CHOW, ActionType.PUNG, ActionType.KONG):
            for action in by_type.get(kind, []):
                after = list(hand)
                if kind is ActionType.CHOW:
                    assert action.tiles is not None
                    used = [int(t) for t in action.tiles]
                    tiles = tuple(sorted((tile, *action.tiles)))
                else:
                    used = [int(tile)] * (3 if kind is ActionType.KONG else 2)
                    tiles = (tile,) * (len(used) + 1)
                for t in used:
                    after[t] -= 1
                melds = (*self.melds, SeenMeld(kind.value, tiles, True, tile, self.seen.offered_by))
                then: int | None = None
                note = ruled_out
                if kind is ActionType.KONG:
                    s, w = self.judge(after, melds)  # a loose tile follows
                    w *= 1.3  # its points, and the loose tile
                    if s > shanten:
                        note = note or "takes the hand a step further from ready"
                else:
                    s, w, then = self._best_after(after, melds)
                    if then is not None:
                        after[then] -= 1
                if not note and w > best * 1.05:
                    best, choice = w, action
                risk = self.danger.risk[then] if then is not None else 0.0
                weighed.append(
                    Candidate(
                        action, s, w, risk, tuple(after), melds, not note, note, None if then is None else Tile(then)
                    )
                )
        if ruled_out:
            stay = Candidate(passing, shanten, worth, 0.0, tuple(hand), tuple(self.melds), True, ruled_out)
        weighed.append(stay)
        first = next(c for c in weighed if c.action == choice)
        rest = sorted((c for c in weighed if c is not first), key=lambda c: (not c.considered, -c.worth))
        return choice, (first, *rest)

    def _best_after(self, hand: list[int], melds: Sequence[SeenMeld]) -> tuple[int, float, int | None]:
        """(shanten, worth, discard) after the best discard from a hand of 3k + 2 tiles (the pao tile
        kept back)."""
        best: tuple[int, float, int | None] | None = None
        forbidden = self.danger.forbidden
        for k in range(34):
            if not hand[k] or k in forbidden:
                continue
            hand[k] -= 1
            s, w = self.judge(hand, melds)
            hand[k] += 1
            if best is None or w > best[1]:
                best = (s, w, k)
        return best if best is not None else (8, 0.0, None)

    def kong_candidate(self, kong: Action) -> Candidate:
        """A kong in one's own turn as a candidate: the hand it leaves before the loose tile."""
        assert kong.tile is not None
        k = int(kong.tile)
        after = list(self.hand)
        added = after[k] == 1
        after[k] = 0
        meld = SeenMeld("kong", (kong.tile,) * 4, added)  # concealed unless added to a pung
        melds = tuple(m for m in self.melds if not (added and m.tile == kong.tile)) + (meld,)
        s, w = self.judge(after, melds)
        free = self.kong_is_free(kong)
        return Candidate(
            kong, s, w, 0.0, tuple(after), melds, free, "" if free else "takes the hand a step further from ready"
        )

    def kong_is_free(self, kong: Action) -> bool:
        """Whether a kong in one's own turn costs no shanten (it brings points and a loose tile)."""
        assert kong.tile is not None
        k = int(kong.tile)
        hand = self.hand
        before = min(shanten_after_discards(hand, orphans=not self.melds))
        n = hand[k]
        hand[k] = 0
        after = tile_acceptance(hand, self.unseen, orphans=False)[0]
        hand[k] = n
        return after <= before


_SUIT_NAMES = ("bamboo", "characters", "dots")


# Chance of a flush (R9) by how many tiles of other suits the hand still holds.
_FLUSH_HOPE = (0.9, 0.55, 0.3, 0.12, 0.04)
