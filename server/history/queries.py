"""Read-only queries behind the history pages: the games list, one game's hands, a player's record.
Each runs a few indexed queries and never loads the action log (only replays do).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from game.rules import Rules
from game.rulesets import RULESETS, differences
from server.store.models import ActionRow, GameRow, HandRow, SeatRow
from server.tables.journal import STAND_IN

__all__ = ["finished_seats", "game_detail", "listed", "list_games", "player_record"]

LISTED = ("playing", "over", "stopped")  # a table still waiting for players has no history yet
# Nor has one closed before its game started (by an admin, or because nobody came: `Lobby.retire`).
STARTED = GameRow.started_at.is_not(None)
# A private table is reached only through its link (its id): the lists name it once its game has ended.
SHOWN = or_(GameRow.public.is_(True), GameRow.status != "playing")


def listed(game: GameRow | None) -> bool:
    """Whether ``game`` is one the history shows: it started (and is not a table waiting for players)."""
    return game is not None and game.status in LISTED and game.started_at is not None


def _iso(when: datetime | None) -> str | None:
    return None if when is None else when.isoformat()


async def _seats(session: AsyncSession, ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    seats: dict[str, list[dict[str, Any]]] = defaultdict(lambda: [{}, {}, {}, {}])
    if ids:
        for row in await session.scalars(select(SeatRow).where(SeatRow.game_id.in_(ids))):
            seats[row.game_id][row.seat] = {"name": row.name, "bot": row.bot, "score": row.score}
    return seats


def _summary(game: GameRow, seats: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": game.id,
        "name": game.name,
        "status": game.status,
        "ruleset": game.ruleset,
        "created": _iso(game.created_at),
        "finished": _iso(game.finished_at),
        "hands": game.hands,
        "scores": game.scores,
        "players": seats,
    }


async def list_games(
    session: AsyncSession, *, player: str | None = None, member: int | None = None, limit: int = 50, offset: int = 0
) -> dict[str, Any]:
    """Games newest first (running and finished), optionally only those ``player`` sat in (a
    ``member``: under any of their names)."""
    query = select(GameRow).where(GameRow.status.in_(LISTED), STARTED, SHOWN)
    count = select(func.count()).select_from(GameRow).where(GameRow.status.in_(LISTED), STARTED, SHOWN)
    if player:
        person = SeatRow.member_id == member if member is not None else SeatRow.name == player
        sat = select(SeatRow.game_id).where(person, SeatRow.bot.is_(False))
        query, count = query.where(GameRow.id.in_(sat)), count.where(GameRow.id.in_(sat))
    games = (await session.scalars(query.order_by(GameRow.created_at.desc()).limit(limit).offset(offset))).all()
    seats = await _seats(session, [g.id for g in games])
    total = await session.scalar(count)
    return {"total": total or 0, "games": [_summary(g, seats[g.id]) for g in games]}


async def game_detail(session: AsyncSession, game_id: str) -> dict[str, Any] | None:
    """One game: its players, ruleset (with its differences from classical), and one row per hand."""
    game = await session.get(GameRow, game_id)
    if game is None or not listed(game):
        return None
    seats = (await _seats(session, [game.id]))[game.id]
    rules = Rules.from_json(game.options)
    hands = (await session.scalars(select(HandRow).where(HandRow.game_id == game_id).order_by(HandRow.number))).all()
    stand_ins = await _stand_ins(session, game_id, [hand.finished_at for hand in hands])
    start = rules.starting_score
    series = [[start] for _ in range(4)]
    rows = []
    for hand in hands:
        for s in range(4):
            series[s].append(hand.totals[s] if len(hand.totals) == 4 else series[s][-1])
        rows.append(
            {
                "number": hand.number + 1,  # from 1, as the hand's page and replay number it
                "round_wind": hand.round_wind,
                "dealer": hand.dealer,
                "winner": hand.winner,
                "termination": hand.termination,
                "win_by": hand.win_by,
                "discarder": hand.discarder,
                "value": hand.value,
                "changes": hand.changes,
                "totals": hand.totals,
                "payments": hand.result.get("payments", []),
                "stand_ins": sorted(stand_ins.get(hand.number, ())),
            }
        )
    return {
        **_summary(game, seats),
        "ruleset": {
            "name": game.ruleset,
            "version": game.ruleset_version,
            "options": game.options,
            "differences": [
                {"option": name, "classical": ours, "here": theirs}
                for name, ours, theirs in differences(RULESETS["classical"], rules)
            ],
        },
        "hand_rows": rows,
        "series": series,
    }


async def _stand_ins(session: AsyncSession, game_id: str, ends: list[datetime]) -> dict[int, set[int]]:
    """For each hand (by number), the seats a stand-in bot played for their absent person in it:
    an action of that kind belongs to the first hand that ended at or after it (getting ready for
    the next hand is not play, so it marks nothing)."""
    rows = await session.execute(
        select(ActionRow.seat, ActionRow.at, ActionRow.action).where(
            ActionRow.game_id == game_id, ActionRow.auto == STAND_IN
        )
    )
    found: dict[int, set[int]] = defaultdict(set)
    for seat, at, action in rows:
        if action.get("type") == "ready":
            continue
        number = next((n for n, end in enumerate(ends) if end >= at), None)
        if number is not None:
            found[number].add(seat)
    return found


def _person(name: str, member: int | None) -> ColumnElement[bool]:
    """The seats that are a player's: for a ``member``, every seat of theirs (under any name, on any
    device); otherwise the seats a guest took under ``name``."""
    return (
        SeatRow.member_id == member if member is not None else and_(SeatRow.name == name, SeatRow.member_id.is_(None))
    )


async def finished_seats(
    session: AsyncSession, name: str, member: int | None = None, limit: int = 20
) -> list[tuple[GameRow, int]]:
    """A player's most recent finished games (ended or stopped), newest first, each with their seat in
    it (the player as in :func:`player_record`)."""
    rows = await session.execute(
        select(GameRow, SeatRow.seat)
        .join(SeatRow, SeatRow.game_id == GameRow.id)
        .where(_person(name, member), SeatRow.bot.is_(False), GameRow.status.in_(("over", "stopped")), STARTED)
        .order_by(GameRow.created_at.desc(), GameRow.id)
        .limit(limit)
    )
    return [(game, seat) for game, seat in rows]


async def player_record(session: AsyncSession, name: str, member: int | None = None) -> dict[str, Any] | None:
    """A player's games and hands: wins (self-drawn or on a discard), deal-ins, values, score over time.
    For a ``member``, every seat that is theirs (under any name, on any device); otherwise the seats a
    guest took under ``name``."""
    person = _person(name, member)
    sat = (
        await session.execute(
            select(
                SeatRow.game_id,
                SeatRow.seat,
                SeatRow.score,
                GameRow.status,
                GameRow.created_at,
                GameRow.options,
                GameRow.public,
            )
            .join(GameRow, GameRow.id == SeatRow.game_id)
            .where(person, SeatRow.bot.is_(False), GameRow.status.in_(LISTED), STARTED)
            .order_by(GameRow.created_at)
        )
    ).all()
    if not sat:
        return None
    seat_in = {game_id: seat for game_id, seat, *_ in sat}
    hands = (
        await session.execute(
            select(HandRow.game_id, HandRow.winner, HandRow.win_by, HandRow.discarder, HandRow.value).where(
                HandRow.game_id.in_(list(seat_in))
            )
        )
    ).all()
    won = [h for h in hands if h.winner == seat_in[h.game_id]]
    values = [h.value for h in won if h.value is not None]
    over = [
        (created, score - Rules.from_json(options).starting_score)
        for _, _, score, status, created, options, _ in sat
        if status == "over" and score is not None
    ]
    shown = [row for row in sat if row.public or row.status != "playing"]  # as in `SHOWN`
    return {
        "name": name,
        "games": len(sat),
        "finished": len(over),
        "hands": len(hands),
        "won": len(won),
        "self_drawn": sum(1 for h in won if h.win_by in ("wall", "loose")),
        "on_discard": sum(1 for h in won if h.win_by in ("discard", "robbed_kong")),
        "dealt_in": sum(1 for h in hands if h.discarder is not None and h.discarder == seat_in[h.game_id]),
        "average_win": round(sum(values) / len(values), 1) if values else None,
        "biggest_win": max(values) if values else None,
        "total": sum(net for _, net in over),
        "over_time": [{"date": _iso(created), "net": net} for created, net in over],
        "recent": [
            {"id": game_id, "seat": seat, "status": status, "created": _iso(created)}
            for game_id, seat, _, status, created, _, _ in reversed(shown[-20:])
        ],
    }
