"""Queries over finished games for the history pages: the leaderboard."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Integer, cast, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from server.store.models import GameRow, PlayerRow, SeatRow

__all__ = ["Standing", "leaderboard"]


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's record over finished games: games played, total won or lost, average per game."""

    name: str
    games: int
    total: int
    average: float


async def leaderboard(session: AsyncSession, limit: int = 100) -> list[Standing]:
    """Players by total over finished games (score change from the starting score), best first."""
    start = cast(GameRow.options["starting_score"].as_integer(), Integer)
    net = SeatRow.score - start
    rows = await session.execute(
        select(PlayerRow.name, func.count(SeatRow.game_id), func.sum(net), func.avg(net))
        .join(SeatRow, SeatRow.player_id == PlayerRow.id)
        .join(GameRow, GameRow.id == SeatRow.game_id)
        .where(GameRow.status == "over")
        .group_by(PlayerRow.id, PlayerRow.name)
        .order_by(func.sum(net).desc(), PlayerRow.name)
        .limit(limit)
    )
    return [Standing(name, int(games), int(total), float(average)) for name, games, total, average in rows]
