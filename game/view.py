"""The one projection (R12): what a seat, or a spectator, may see of a game.

Nothing else in the code base serialises game state for players. A view never holds another
seat's concealed tiles while a deal runs, the wall's order, the dead wall, the seed, or which
claims another seat was offered or made before a window closes. For that last reason it carries no
action counter either: a counter that rose with every pass would tell the other seats how many of
them answered an open window (R12.2). A view changes for a seat only when something it may see does.
"""

from __future__ import annotations

from collections.abc import Iterable

from game.deal import Deal, DealPhase
from game.game import Game, GamePhase
from game.notation import format_tiles

__all__ = ["view", "views"]


def view(game: Game, seat: int | None) -> dict[str, object]:
    """Everything ``seat`` (0–3) may see now, including its own legal actions; ``None`` is a spectator.

    :raises ValueError: if ``seat`` is neither None nor 0–3.
    """
    return views(game, (seat,))[seat]


def views(game: Game, seats: Iterable[int | None]) -> dict[int | None, dict[str, object]]:
    """`view` for each of ``seats`` at once. The parts every seat sees alike are built once and shared
    between the views (treat them as read-only): a table sends four views after every action.

    :raises ValueError: if a seat is neither None nor 0–3.
    """
    wanted = list(seats)
    for seat in wanted:
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3):
            raise ValueError(f"seat must be None or 0–3, not {seat!r}")
    deal = game.deal
    face_up = deal.over  # R12.3: when a deal ends, every hand is revealed to every seat
    # Built once, shared by every view below.
    public_seats = [_seat_view(game, deal, s, show=face_up) for s in range(4)]
    phase = game.phase.value
    number = game.deal_number if game.phase is GamePhase.DEAL else game.deal_number - 1
    wall = {"live": deal.wall.live_count, "dead": deal.wall.dead_count}
    discards = [d.to_json() for d in deal.discards]
    result = _result_view(game)
    ready = sorted(game.ready)
    out: dict[int | None, dict[str, object]] = {}
    for seat in wanted:
        if seat is None or face_up:
            seat_list = public_seats
        else:  # a seat sees its own concealed tiles, no one else's
            seat_list = [_seat_view(game, deal, s, show=True) if s == seat else public_seats[s] for s in range(4)]
        out[seat] = {
            "seat": seat,
            "phase": phase,
            "deal": number,
            "round_wind": deal.round_wind.code,
            "dealer": deal.dealer,
            "seats": seat_list,
            "wall": wall,
            "discards": discards,
            "turn": _turn_view(deal, seat),
            "result": result,
            "legal_actions": [] if seat is None else [a.to_json() for a in game.legal_actions(seat)],
            "ready": ready,
        }
    return out


def _seat_view(game: Game, deal: Deal, s: int, *, show: bool) -> dict[str, object]:
    item: dict[str, object] = {
        "seat": s,
        "wind": deal.seat_wind(s).code,
        "score": game.scores[s],
        "tiles": sum(deal.hands[s]),
        "melds": [m.to_json() for m in deal.melds[s]],
        "bonus": [t.code for t in deal.bonus[s]],
    }
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
