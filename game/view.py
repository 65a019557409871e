"""The one projection (R12): what a seat, or a spectator, may see of a game.

Nothing else in the code base serialises game state for players. A view never holds another
seat's concealed tiles while a deal runs, the wall's order, the dead wall, the seed, or which
claims another seat was offered or made before a window closes. For that last reason it carries no
action counter either: a counter that rose with every pass would tell the other seats how many of
them answered an open window (R12.2). A view changes for a seat only when something it may see does.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from game.actions import Action
from game.deal import Deal, DealPhase
from game.game import Game, GamePhase
from game.melds import Meld
from game.notation import format_tiles

__all__ = ["ViewCache", "view", "views"]

_T = TypeVar("_T")


class ViewCache:
    """The parts of the last views built for one game, handed out again while they are unchanged.

    A table builds every seat's view after every action, and most parts of it did not change (the
    other seats, the discards, the result). Reusing the very same objects saves building them, and
    lets a diff against the last views skip them by identity. The cache holds the deal it was filled
    from, so a new deal (or another game) never gets a part of an old one. The parts are shared:
    treat every view built with a cache as read-only.
    """

    __slots__ = (
        "_deal",
        "_seats",
        "_seat_keys",
        "_melds",
        "_discards",
        "_discards_key",
        "_actions",
        "_result",
        "_result_key",
        "_small",
    )

    def __init__(self) -> None:
        self._reset(None)

    def _reset(self, deal: Deal | None) -> None:
        self._deal = deal
        # A seat's part is built anew whenever its hand changes (every draw and discard); its melds and
        # bonus tiles change seldom, so their lists are kept apart and put in every part built until
        # they do. The keys hold only numbers (the melds by the identity of their list, which the
        # cache keeps alive), so that they are not objects the garbage collector follows.
        self._seats: dict[tuple[int, bool], dict[str, object]] = {}
        self._seat_keys: dict[tuple[int, bool], tuple[int, int | tuple[int, ...], int, int, str | None]] = {}
        self._melds: dict[int, tuple[tuple[Meld, ...], int, list[dict[str, object]], list[str]]] = {}
        self._discards: list[object] = []
        self._discards_key: tuple[int, int | None] = (0, None)
        self._actions: dict[int, tuple[tuple[Action, ...], list[dict[str, object]]]] = {}
        self._result: dict[str, object] | None = None
        self._result_key: tuple[object, object] = (None, None)
        self._small: dict[object, object] = {}  # small parts (the wall, each seat's turn, …) by name

    def same(self, name: object, fresh: _T) -> _T:
        """``fresh``, or the part last handed out under ``name`` if it is equal: a diff then passes over
        it by identity instead of walking it again for every seat.
        """
        cached = self._small.get(name)
        if cached is not None and cached == fresh:
            return cached  # equal, so of the same type
        self._small[name] = fresh
        return fresh

    def _check(self, deal: Deal) -> None:
        if self._deal is not deal:
            self._reset(deal)

    def seat(self, game: Game, deal: Deal, s: int, show: bool) -> dict[str, object]:
        melds, bonus = self._melds_of(deal, s)
        hand = deal.hands[s]
        key = (game.scores[s], tuple(hand) if show else sum(hand), id(melds), id(bonus), deal.calls[s])
        if self._seat_keys.get((s, show)) == key:
            return self._seats[s, show]
        item = _seat_view(game, deal, s, melds, bonus, show=show)
        self._seats[s, show] = item
        self._seat_keys[s, show] = key
        return item

    def _melds_of(self, deal: Deal, s: int) -> tuple[list[dict[str, object]], list[str]]:
        """Seat ``s``'s melds and bonus tiles as the view shows them: the same lists while unchanged."""
        melds, bonus = tuple(deal.melds[s]), len(deal.bonus[s])
        cached = self._melds.get(s)
        if cached is not None and cached[1] == bonus and cached[0] == melds:
            return cached[2], cached[3]
        shown = ([m.to_json() for m in melds], [t.code for t in deal.bonus[s]])
        self._melds[s] = (melds, bonus, *shown)
        return shown

    def discards(self, deal: Deal) -> list[object]:
        # Only the latest discard is ever claimed (R6), so its claim and the count say what changed.
        count, (known, claim) = len(deal.discards), self._discards_key
        key = (count, deal.discards[-1].claimed_by if count else None)
        if key != self._discards_key:
            if count > known and (known == 0 or deal.discards[known - 1].claimed_by == claim):
                self._discards = self._discards + [d.to_json() for d in deal.discards[known:]]  # appended
            else:
                self._discards = [d.to_json() for d in deal.discards]
            self._discards_key = key
        return self._discards

    def actions(self, game: Game, seat: int) -> list[dict[str, object]]:
        actions = game.legal(seat)
        cached = self._actions.get(seat)
        if cached is not None and (cached[0] is actions or cached[0] == actions):
            return cached[1]
        out = [a.to_json() for a in actions]
        self._actions[seat] = (actions, out)
        return out

    def result(self, game: Game) -> dict[str, object] | None:
        key = (game.deal.result, game.reckoning)
        if self._result_key[0] is not key[0] or self._result_key[1] is not key[1]:
            self._result = _result_view(game)
            self._result_key = key
        return self._result


def view(game: Game, seat: int | None) -> dict[str, object]:
    """Everything ``seat`` (0–3) may see now, including its own legal actions; ``None`` is a spectator.

    :raises ValueError: if ``seat`` is neither None nor 0–3.
    """
    return views(game, (seat,))[seat]


def views(
    game: Game, seats: Iterable[int | None], cache: ViewCache | None = None
) -> dict[int | None, dict[str, object]]:
    """`view` for each of ``seats`` at once. The parts every seat sees alike are built once and shared
    between the views (treat them as read-only): a table sends four views after every action. With a
    ``cache`` (one per game), parts that did not change since the last call are the same objects.

    :raises ValueError: if a seat is neither None nor 0–3.
    """
    wanted = list(seats)
    for seat in wanted:
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3):
            raise ValueError(f"seat must be None or 0–3, not {seat!r}")
    deal = game.deal
    face_up = deal.over  # R12.3: when a deal ends, every hand is revealed to every seat
    parts = ViewCache() if cache is None else cache
    parts._check(deal)
    # Built once, shared by every view below.
    public_seats = [parts.seat(game, deal, s, face_up) for s in range(4)]
    phase = game.phase.value
    number = game.deal_number if game.phase is GamePhase.DEAL else game.deal_number - 1
    wall = parts.same("wall", {"live": deal.wall.live_count, "dead": deal.wall.dead_count})
    discards = parts.discards(deal)
    result = parts.result(game)
    ready = parts.same("ready", sorted(game.ready))
    out: dict[int | None, dict[str, object]] = {}
    for seat in wanted:
        if seat is None or face_up:
            seat_list = public_seats
        else:  # a seat sees its own concealed tiles, no one else's
            seat_list = [parts.seat(game, deal, s, True) if s == seat else public_seats[s] for s in range(4)]
        out[seat] = {
            "seat": seat,
            "phase": phase,
            "deal": number,
            "round_wind": deal.round_wind.code,
            "dealer": deal.dealer,
            "seats": seat_list,
            "wall": wall,
            "discards": discards,
            "turn": parts.same(("turn", seat), _turn_view(deal, seat)),
            "result": result,
            "legal_actions": [] if seat is None else parts.actions(game, seat),
            "ready": ready,
        }
    return out


def _seat_view(
    game: Game, deal: Deal, s: int, melds: list[dict[str, object]], bonus: list[str], *, show: bool
) -> dict[str, object]:
    item: dict[str, object] = {
        "seat": s,
        "wind": deal.seat_wind(s).code,
        "score": game.scores[s],
        "tiles": sum(deal.hands[s]),
        "melds": melds,
        "bonus": bonus,
    }
    if deal.calls[s] is not None:  # R5.4: a declaration is public, and so is breaking it
        item["original_call"] = deal.calls[s]
    if show:
        item["concealed"] = format_tiles(deal.concealed(s))
    return item


def _turn_view(deal: Deal, seat: int | None) -> dict[str, object] | None:
    if deal.phase is DealPhase.OVER:
        return None
    if deal.phase is DealPhase.TURN:
        turn: dict[str, object] = {"phase": "turn", "seat": deal.current}
        if seat == deal.current and deal.drawn is not None:
            turn["drawn"] = deal.drawn.code  # only the drawer learns which tile it was
        return turn
    window = deal.window
    assert window is not None
    # Which seats were offered a claim, and what they answered, stay secret until it closes (R12.2);
    # a seat learns only its own answer.
    turn = {"phase": deal.phase.value, "tile": window.tile.code, "from": window.source}
    if seat is not None and seat in window.answers:
        turn["answer"] = window.answers[seat].to_json()
    return turn


def _result_view(game: Game) -> dict[str, object] | None:
    """How the deal ended, with every seat's score and the payments (R12.3: public once it is over)."""
    result = game.deal.result
    if result is None:
        return None
    out = result.to_json()
    if game.reckoning is not None:
        out.update(game.reckoning.to_json())
    return out
