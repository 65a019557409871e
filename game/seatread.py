"""A seat's view document (:func:`game.view.view`, the JSON a browser gets) read back into a
:class:`game.seatview.SeatView`: for a view that arrives as JSON, and to check that the view a bot is
given from the deal's own state says exactly what that document says.

>>> from game.game import Game
>>> from game.seatview import SeatView
>>> from game.view import view
>>> game = Game(seed=1)
>>> read_view(view(game, 2), game.rules) == SeatView.of(game, 2)
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from game.actions import Action
from game.game import Game
from game.notation import parse_tiles
from game.rules import Rules
from game.seatview import SeatView, SeenDiscard, SeenMeld
from game.tiles import NUM_PLAYING_KINDS, Tile
from game.view import ViewCache, views

__all__ = ["ViewReader", "read_view"]


def read_view(doc: Mapping[str, Any], rules: Rules) -> SeatView:
    """Read a seat's view document (see :meth:`SeatView.read`).

    :raises ValueError: if ``doc`` is a spectator's view (it has no seat).
    """
    return _read(doc, rules, _FRESH)


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


class ViewReader(_Reader):
    """Builds and reads the view documents of one game again and again, as cheaply as that goes.

    The view is built with a :class:`game.view.ViewCache`, so a part that did not change since the
    last view (another seat, the discards, the legal actions) is the very same object; each such
    object is read once and its reading handed out again. The readings are values, so sharing them
    is safe. The result is always what :func:`read_view` would give. This is how bots saw the table
    before :meth:`SeatView.of` built their view from the deal's state; the benchmark times both.
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

    def of(self, game: Game, seat: int) -> SeatView:
        """``seat``'s view of ``game``, built as the browser's document and read back."""
        return _read(views(game, (seat,), self.views)[seat], game.rules, self)

    def read(self, doc: Mapping[str, Any], rules: Rules) -> SeatView:
        """:func:`read_view`, reusing the readings of parts seen before."""
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
    if len(cache) >= ViewReader._LIMIT:
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
