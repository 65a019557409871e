"""Queries over finished games for the history pages: the leaderboard, over a chosen period."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Integer, case, cast, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from server.store.models import GameRow, MemberRow, PlayerRow, SeatRow

__all__ = ["PERIODS", "Standing", "leaderboard", "period_start"]

# The periods a leaderboard covers, by name: how many days back from now (None: every game).
PERIODS: dict[str, int | None] = {"week": 7, "month": 30, "year": 365, "all": None}


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's record over finished games: games played, total won or lost, average per game."""

    name: str
    games: int
    total: int
    average: float


def period_start(period: str, now: datetime) -> datetime | None:
    """When the period ``period`` (a key of `PERIODS`) began, ``now`` being its end; None for all time.

    :raises KeyError: for an unknown period.
    """
    days = PERIODS[period]
    return None if days is None else now - timedelta(days=days)


async def leaderboard(session: AsyncSession, *, since: datetime | None = None, limit: int = 100) -> list[Standing]:
    """People by their total over games finished since ``since`` (all, if None): the score change
    from the starting score, best first. Bots are not ranked."""
    start = cast(GameRow.options["starting_score"].as_integer(), Integer)
    net = SeatRow.score - start
    # A member is one person under every name they played as; a guest's name is a person of its own.
    guest = case((SeatRow.member_id.is_(None), SeatRow.player_id), else_=None)
    name = func.coalesce(func.max(MemberRow.name), func.max(PlayerRow.name))
    query = (
        select(name, func.count(SeatRow.game_id), func.sum(net), func.avg(net))
        .join(PlayerRow, SeatRow.player_id == PlayerRow.id)
        .outerjoin(MemberRow, MemberRow.id == SeatRow.member_id)
        .join(GameRow, GameRow.id == SeatRow.game_id)
        .where(GameRow.status == "over", SeatRow.bot.is_(False))
    )
    if since is not None:
        query = query.where(GameRow.finished_at >= since)
    rows = await session.execute(
        query.group_by(SeatRow.member_id, guest).order_by(func.sum(net).desc(), name).limit(limit)
    )
    return [Standing(name, int(games), int(total), float(average)) for name, games, total, average in rows]
