"""What a bot may know: one seat's view of the table, as typed fields (R12).

A :class:`SeatView` holds exactly what :func:`game.view.view` shows that seat (its own concealed
tiles and legal actions, every set, bonus tile and discard on the table, the scores, the wall's
size, whose turn it is and the tile a claim window is about) plus the table's rules (public: every
player is told them). :meth:`SeatView.of` builds it straight from the deal's state, reading another
seat's concealed tiles only to count them, so a bot cannot look at them or at the wall even by
mistake; :meth:`SeatView.read` reads the same view from the seat's view document, and the two agree
field for field (tests/game/test_seatview.py checks it at every step of random games).

>>> from game.game import Game
>>> seen = SeatView.of(Game(seed=1), 0)
>>> seen.seat, sum(seen.hand) + sum(len(b) for b in seen.bonus[:1]) >= 14, seen.wall_live > 0
(0, True, True)
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from operator import add
from typing import Any

from game.actions import Action, ActionType
from game.deal import Deal, DealPhase, Discard
from game.game import Game, GamePhase
from game.melds import Meld
from game.rules import Rules
from game.tiles import NUM_PLAYING_KINDS, WINDS, Tile

__all__ = ["SeatView", "SeatViewCache", "SeenMeld", "SeenDiscard"]


@dataclass(frozen=True, slots=True)
class SeenMeld:
    """A set on the table as every seat sees it."""

    kind: str  # "chow", "pung" or "kong"
    tiles: tuple[Tile, ...]
    exposed: bool  # false only for a concealed kong
    claimed: Tile | None = None  # the discard taken to make it
    source: int | None = None  # the seat that discarded it

    @property
    def tile(self) -> Tile:
        """The lowest tile (the tile of a pung or kong)."""
        return self.tiles[0]


@dataclass(frozen=True, slots=True)
class SeenDiscard:
    """One discard, in the order played."""

    seat: int
    tile: Tile
    claimed_by: int | None = None


@dataclass(slots=True)
class SeatView:
    """One seat's view of the table, typed. Counts are vectors over the 34 playing kinds.

    Read-only by convention: every field is an immutable value, and a view is built afresh for every
    decision (not frozen, since a frozen dataclass of this many fields costs several times as much to
    build, and one is built for every action a bot takes).
    """

    seat: int
    rules: Rules
    phase: str  # the game's phase: "deal", "between" or "over"
    deal: int  # the deal's number in the game
    round_wind: Tile
    dealer: int
    winds: tuple[Tile, Tile, Tile, Tile]  # each seat's wind
    scores: tuple[int, int, int, int]
    tile_counts: tuple[int, int, int, int]  # how many concealed tiles each seat holds
    hand: tuple[int, ...]  # this seat's concealed tiles (the drawn tile included), as 34 counts
    drawn: Tile | None  # the tile this seat just drew, in its own turn
    melds: tuple[tuple[SeenMeld, ...], ...]  # per seat
    bonus: tuple[tuple[Tile, ...], ...]  # per seat
    discards: tuple[SeenDiscard, ...]
    wall_live: int
    wall_dead: int
    turn: str | None  # "turn", "claim", "rob", or None between deals
    current: int | None  # whose turn it is (in a turn)
    offered: Tile | None  # the tile a claim window is about
    offered_by: int | None  # the seat that discarded it (or is adding the kong)
    legal: tuple[Action, ...]
    visible: tuple[int, ...] = field(default=(), compare=False)  # copies of each kind this seat can see
    calls: tuple[str | None, ...] = (None, None, None, None)  # each seat's Original Call (R5.4), public

    @classmethod
    def of(cls, game: Game, seat: int, cache: SeatViewCache | None = None) -> SeatView:
        """``seat``'s view of ``game``, built from the game's state: what :func:`game.view.view` shows
        that seat, no more.

        With a ``cache`` (one per game), the parts that did not change since the last call (the sets,
        the discards) are not built again; the result is the same.

        :raises ValueError: if ``seat`` is not 0–3.
        """
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
            raise ValueError(f"seat must be 0–3 to decide for, not {seat!r}")
        return _build(game, seat, SeatViewCache() if cache is None else cache)

    @classmethod
    def of_live(cls, game: Game, seat: int) -> SeatView:
        """:meth:`of` with the game's own cache, kept while the game lives: for a game played move by
        move (a table's bots, :func:`game.policy.choose`)."""
        cache = _LIVE.get(game)
        if cache is None:
            cache = _LIVE[game] = SeatViewCache()
        return cls.of(game, seat, cache)

    @classmethod
    def read(cls, doc: Mapping[str, Any], rules: Rules) -> SeatView:
        """Read a seat's view document (the JSON a player's browser gets as ``state.game``).

        :raises ValueError: if ``doc`` is a spectator's view (it has no seat).
        """
        from game.seatread import read_view  # the reader builds SeatViews: imported when first asked

        return read_view(doc, rules)

    @property
    def unseen(self) -> tuple[int, ...]:
        """Copies of each kind this seat has not seen (in the wall or other seats' hands)."""
        return tuple(max(0, 4 - v) for v in self.visible)

    @property
    def open(self) -> bool:
        """Whether this seat has claimed a set, so its hand is no longer concealed (R7.6)."""
        return any(m.exposed for m in self.melds[self.seat])

    def by_type(self) -> dict[ActionType, list[Action]]:
        """The legal actions grouped by type, each group in the engine's order.

        :raises ValueError: if the seat has nothing to do now.
        """
        if not self.legal:
            raise ValueError(f"seat {self.seat} has nothing to do now")
        groups: dict[ActionType, list[Action]] = {}
        for a in self.legal:
            groups.setdefault(a.type, []).append(a)
        return groups

    def hand_after(self, claim: Action) -> list[int]:
        """This seat's concealed tiles (34 counts) once it has made ``claim``, a chow, pung or kong of
        the offered tile: the tiles the set takes from the hand are gone (R5)."""
        assert self.offered is not None
        after = list(self.hand)
        if claim.type is ActionType.CHOW:
            assert claim.tiles is not None
            for t in claim.tiles:
                after[t] -= 1
        else:
            after[self.offered] -= 3 if claim.type is ActionType.KONG else 2
        return after

    def obvious(self, groups: Mapping[ActionType, list[Action]]) -> Action | None:
        """What every bot does without thinking: declare a win it is offered (R7.3), and between deals
        get ready. None while there is a real choice."""
        if ActionType.WIN in groups:
            return groups[ActionType.WIN][0]
        if self.phase != "deal":
            return self.legal[0]
        return None


class SeatViewCache:
    """The parts of one game's seat views kept between calls of :meth:`SeatView.of` (an arena, a
    bot's seat at a table, a review): each seat's sets, the discards and the count of every tile they
    show, brought up to date with what changed since the last call. It holds the deal it was filled
    from, so a new deal (or another game) never gets a part of an old one. The parts are values, so
    sharing them is safe.
    """

    __slots__ = ("_deal", "_melds", "_discards", "_discard_key", "_shown")

    def __init__(self) -> None:
        self._reset(None)

    def _reset(self, deal: Deal | None) -> None:
        self._deal = deal
        self._melds: list[tuple[tuple[Meld, ...], tuple[SeenMeld, ...]]] = [((), ())] * 4
        self._discards: tuple[SeenDiscard, ...] = ()
        self._discard_key: tuple[int, int | None] = (0, None)
        # Copies of each kind every seat sees alike, kept up to date: the unclaimed discards (a claimed
        # one is counted in the set it went into) and the sets on the table.
        self._shown = [0] * NUM_PLAYING_KINDS

    def melds(self, deal: Deal, seat: int) -> tuple[SeenMeld, ...]:
        """``seat``'s sets on the table, as every seat sees them."""
        current = tuple(deal.melds[seat])
        known, seen = self._melds[seat]
        if current != known:  # compares the very same sets by identity first: cheap while unchanged
            shown = self._shown
            for m in seen:
                for t in m.tiles:
                    shown[t] -= 1
            seen = tuple(_seen_meld(m) for m in current)
            for m in seen:
                for t in m.tiles:
                    shown[t] += 1
            self._melds[seat] = (current, seen)
        return seen

    def discards(self, deal: Deal) -> tuple[SeenDiscard, ...]:
        """Every discard in the order played. Only the latest discard is ever claimed (R6), so the
        count and the latest one's claim say what changed, and only the last one seen may have."""
        count = len(deal.discards)
        key = (count, deal.discards[-1].claimed_by if count else None)
        if key != self._discard_key:
            seen, shown = self._discards, self._shown
            keep = max(0, len(seen) - 1) if count >= len(seen) else 0
            for d in seen[keep:]:
                if d.claimed_by is None:
                    shown[d.tile] -= 1
            added = tuple(_seen_discard(d) for d in deal.discards[keep:])
            for d in added:
                if d.claimed_by is None:
                    shown[d.tile] += 1
            self._discards, self._discard_key = seen[:keep] + added, key
        return self._discards

    def shown(self) -> list[int]:
        """Copies of each kind on the table, as of the last :meth:`melds` and :meth:`discards` (read-only)."""
        return self._shown


def _build(game: Game, seat: int, parts: SeatViewCache) -> SeatView:
    """``seat``'s view (see :meth:`SeatView.of`). Of the other seats it reads only what their view
    documents show every seat: their tile counts, sets, bonus tiles, winds, scores and calls."""
    deal = game.deal
    if parts._deal is not deal:
        parts._reset(deal)
    hands = deal.hands
    hand = tuple(hands[seat][:NUM_PLAYING_KINDS])
    melds = (parts.melds(deal, 0), parts.melds(deal, 1), parts.melds(deal, 2), parts.melds(deal, 3))
    discards = parts.discards(deal)
    visible = list(map(add, hand, parts.shown()))
    phase = deal.phase
    drawn = current = offered = offered_by = None
    if phase is DealPhase.TURN:
        current = deal.current
        if seat == current:
            drawn = deal.drawn  # only the drawer learns which tile it was
    elif phase is not DealPhase.OVER:
        window = deal.window
        assert window is not None
        offered, offered_by = window.tile, window.source
        if phase is DealPhase.ROB:
            visible[offered] += 1  # the tile being added to a kong is shown
    dealer = deal.dealer
    scores = game.scores
    calls = deal.calls
    return SeatView(
        seat=seat,
        rules=game.rules,
        phase=game.phase.value,
        deal=game.deal_number if game.phase is GamePhase.DEAL else game.deal_number - 1,
        round_wind=deal.round_wind,
        dealer=dealer,
        winds=(WINDS[-dealer % 4], WINDS[(1 - dealer) % 4], WINDS[(2 - dealer) % 4], WINDS[(3 - dealer) % 4]),
        scores=(scores[0], scores[1], scores[2], scores[3]),
        tile_counts=(sum(hands[0]), sum(hands[1]), sum(hands[2]), sum(hands[3])),
        hand=hand,
        drawn=drawn,
        melds=melds,
        bonus=(tuple(deal.bonus[0]), tuple(deal.bonus[1]), tuple(deal.bonus[2]), tuple(deal.bonus[3])),
        discards=discards,
        wall_live=deal.wall.live_count,
        wall_dead=deal.wall.dead_count,
        turn=None if phase is DealPhase.OVER else phase.value,
        current=current,
        offered=offered,
        offered_by=offered_by,
        legal=game.legal(seat),
        visible=tuple(visible),
        calls=(calls[0], calls[1], calls[2], calls[3]),
    )


def _seen_meld(meld: Meld) -> SeenMeld:
    return SeenMeld(
        kind=meld.kind.value,
        tiles=tuple(sorted(meld.tiles)),
        exposed=meld.exposed,
        claimed=meld.claimed,
        source=meld.source if meld.claimed is not None else None,
    )


def _seen_discard(discard: Discard) -> SeenDiscard:
    return SeenDiscard(discard.seat, discard.tile, discard.claimed_by)


# One cache per game being played, so that each decision builds only what changed since the last.
_LIVE: weakref.WeakKeyDictionary[Game, SeatViewCache] = weakref.WeakKeyDictionary()
