"""What a bot may know: one seat's :func:`game.view.view`, read into typed fields (R12).

A :class:`SeatView` is built from the view document alone, plus the table's rules (public: every
player is told them). Bots decide from it and from nothing else, so a bot cannot look at another
seat's concealed tiles or the wall even by mistake: those are not in the document.

>>> from game.game import Game
>>> seen = SeatView.of(Game(seed=1), 0)
>>> seen.seat, sum(seen.hand) + sum(len(b) for b in seen.bonus[:1]) >= 14, seen.wall_live > 0
(0, True, True)
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from game.actions import Action, ActionType
from game.game import Game
from game.notation import parse_tiles
from game.rules import Rules
from game.tiles import NUM_PLAYING_KINDS, Tile
from game.view import ViewCache, views

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


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat's view of the table, typed. Counts are vectors over the 34 playing kinds."""

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
        """``seat``'s view of ``game``: built from :func:`game.view.view` and the rules alone.

        With a ``cache`` (one per game), the parts of the view that did not change since the last
        call are not built or read again; the result is the same.
        """
        if cache is None:
            return cls.read(views(game, (seat,))[seat], game.rules)
        return cache.read(views(game, (seat,), cache.views)[seat], game.rules)

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
        return _read(doc, rules, _FRESH)

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


class _Reader:
    """Reads the parts of a view document afresh every time."""

    __slots__ = ()

    def seat(self, doc: Mapping[str, Any]) -> _SeenSeat:
        concealed = doc.get("concealed")
        return _SeenSeat(
            wind=Tile.parse(doc["wind"]),
            score=doc["score"],
            tiles=doc["tiles"],
            melds=tuple(self.meld(m) for m in doc["melds"]),
            bonus=tuple(Tile.parse(b) for b in doc["bonus"]),
            concealed=None if concealed is None else self.counts(concealed),
            call=doc.get("original_call"),
        )

    def meld(self, doc: Mapping[str, Any]) -> SeenMeld:
        return _meld(doc)

    def counts(self, text: str) -> tuple[int, ...]:
        hand = [0] * NUM_PLAYING_KINDS
        for t in parse_tiles(text):
            hand[t] += 1
        return tuple(hand)

    def discards(self, docs: list[Any]) -> tuple[SeenDiscard, ...]:
        return tuple(_discard(d) for d in docs)

    def actions(self, docs: list[Mapping[str, Any]]) -> tuple[Action, ...]:
        return tuple(Action.from_json(a) for a in docs)


_FRESH = _Reader()


class SeatViewCache(_Reader):
    """Reads views of one game again and again cheaply (an arena, a bot's seat at a table).

    The view is built with a :class:`game.view.ViewCache`, so a part that did not change since the
    last view (another seat, the discards, the legal actions) is the very same object; each such
    object is read once and its reading handed out again. The readings are values, so sharing them
    is safe. The result is always what :meth:`SeatView.read` would give.
    """

    __slots__ = ("views", "_seats", "_hands", "_melds", "_actions", "_action_lists", "_discards")

    _LIMIT = 4096  # readings of one sort kept before starting afresh (a few deals' worth)

    def __init__(self) -> None:
        self.views = ViewCache()
        # Keyed by identity, each part is kept alongside its reading so that its id cannot be reused.
        self._seats: dict[int, tuple[object, _SeenSeat]] = {}
        self._action_lists: dict[int, tuple[object, tuple[Action, ...]]] = {}
        self._hands: dict[str, tuple[int, ...]] = {}
        self._melds: dict[tuple[object, ...], SeenMeld] = {}
        self._actions: dict[tuple[object, ...], Action] = {}
        self._discards: tuple[list[Any], tuple[SeenDiscard, ...]] = ([], ())

    def read(self, doc: Mapping[str, Any], rules: Rules) -> SeatView:
        """:meth:`SeatView.read`, reusing the readings of parts seen before."""
        return _read(doc, rules, self)

    def seat(self, doc: Mapping[str, Any]) -> _SeenSeat:
        hit = self._seats.get(id(doc))
        if hit is not None and hit[0] is doc:
            return hit[1]
        _bound(self._seats)
        value = super().seat(doc)
        self._seats[id(doc)] = (doc, value)
        return value

    def counts(self, text: str) -> tuple[int, ...]:
        value = self._hands.get(text)
        if value is None:
            _bound(self._hands)
            value = self._hands[text] = super().counts(text)
        return value

    def meld(self, doc: Mapping[str, Any]) -> SeenMeld:
        key = tuple(doc.items())
        value = self._melds.get(key)
        if value is None:
            _bound(self._melds)
            value = self._melds[key] = _meld(doc)
        return value

    def discards(self, docs: list[Any]) -> tuple[SeenDiscard, ...]:
        # Discards are only ever appended to, or have the latest one claimed (then the list is built
        # anew): a list that still holds the objects read last time, where they were, needs only its
        # new entries read.
        last, seen = self._discards
        if docs is last:
            return seen
        n = len(last)
        if not (n and len(docs) >= n and docs[n - 1] is last[n - 1] and docs[0] is last[0]):
            n, seen = 0, ()
        seen = seen + tuple(_discard(d) for d in docs[n:])
        self._discards = (docs, seen)
        return seen

    def actions(self, docs: list[Mapping[str, Any]]) -> tuple[Action, ...]:
        hit = self._action_lists.get(id(docs))
        if hit is not None and hit[0] is docs:
            return hit[1]
        out = []
        for a in docs:
            tiles = a.get("tiles")
            key = (a.get("type"), a.get("tile"), None if tiles is None else tuple(tiles), len(a))
            action = self._actions.get(key)
            if action is None:
                _bound(self._actions)
                action = self._actions[key] = Action.from_json(a)
            out.append(action)
        value = tuple(out)
        _bound(self._action_lists)
        self._action_lists[id(docs)] = (docs, value)
        return value


def _bound(cache: dict[Any, Any]) -> None:
    if len(cache) >= SeatViewCache._LIMIT:
        cache.clear()


@dataclass(frozen=True, slots=True)
class _SeenSeat:
    wind: Tile
    score: int
    tiles: int
    melds: tuple[SeenMeld, ...]
    bonus: tuple[Tile, ...]
    concealed: tuple[int, ...] | None
    call: str | None = None


def _discard(doc: Mapping[str, Any]) -> SeenDiscard:
    return SeenDiscard(doc["seat"], Tile.parse(doc["tile"]), doc.get("claimed_by"))


def _read(doc: Mapping[str, Any], rules: Rules, reader: _Reader) -> SeatView:
    seat = doc["seat"]
    if not isinstance(seat, int):
        raise ValueError("a spectator's view has no seat to decide for")
    seats = [reader.seat(s) for s in doc["seats"]]
    hand = seats[seat].concealed or (0,) * NUM_PLAYING_KINDS
    melds = tuple(s.melds for s in seats)
    discards = reader.discards(doc["discards"])
    turn = doc.get("turn") or {}
    phase = turn.get("phase")
    offered = turn.get("tile") if phase in ("claim", "rob") else None
    visible = list(hand)
    for d in discards:
        if d.claimed_by is None:  # a claimed discard is counted in the set it went into
            visible[d.tile] += 1
    for seat_melds in melds:
        for m in seat_melds:
            for t in m.tiles:
                visible[t] += 1
    if offered is not None and phase == "rob":
        visible[Tile.parse(offered)] += 1  # the tile being added to a kong is shown
    drawn = turn.get("drawn")
    return SeatView(
        seat=seat,
        rules=rules,
        phase=doc["phase"],
        deal=doc["deal"],
        round_wind=Tile.parse(doc["round_wind"]),
        dealer=doc["dealer"],
        winds=_four(s.wind for s in seats),
        scores=_four(s.score for s in seats),
        tile_counts=_four(s.tiles for s in seats),
        hand=hand,
        drawn=Tile.parse(drawn) if drawn else None,
        melds=melds,
        bonus=tuple(s.bonus for s in seats),
        discards=discards,
        wall_live=doc["wall"]["live"],
        wall_dead=doc["wall"]["dead"],
        turn=phase,
        current=turn.get("seat") if phase == "turn" else None,
        offered=Tile.parse(offered) if offered else None,
        offered_by=turn.get("from") if offered else None,
        legal=reader.actions(doc["legal_actions"]),
        visible=tuple(visible),
        calls=tuple(s.call for s in seats),
    )


def _meld(doc: Mapping[str, Any]) -> SeenMeld:
    claimed = doc.get("claimed")
    return SeenMeld(
        kind=doc["kind"],
        tiles=tuple(parse_tiles(doc["tiles"])),
        exposed=bool(doc["exposed"]),
        claimed=Tile.parse(claimed) if claimed else None,
        source=doc.get("from"),
    )


def _four(items: Any) -> Any:
    out = tuple(items)
    assert len(out) == 4
    return out


# One view reader per game being played, so that each decision reads only what changed since the last.
_LIVE: weakref.WeakKeyDictionary[Game, SeatViewCache] = weakref.WeakKeyDictionary()
