"""`SqlJournal`: the table journal in the database. Each call is one transaction, committed before
it returns, so an action is durable before any client hears of it (lesson 11).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from game.rulesets import ruleset
from server.store.models import ActionRow, ChatRow, GameRow, HandRow, PlayerRow, SeatRow
from server.store.session import make_sessions
from server.tables.journal import Record, SeatRecord, StoredTable
from server.tables.settings import TableSettings, Timers

__all__ = ["SqlJournal"]

CHAT_KEPT = 50


def _when(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def to_seconds(when: datetime) -> float:
    if when.tzinfo is None:  # SQLite hands back naive datetimes; they were written in UTC
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


class SqlJournal:
    """A journal in a SQLAlchemy database (SQLite or PostgreSQL)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.sessions = make_sessions(engine)

    async def table_created(self, table: StoredTable) -> None:
        """Insert the game row."""
        s = table.settings
        async with self.sessions.begin() as session:
            session.add(
                GameRow(
                    id=table.id,
                    name=s.name,
                    ruleset=s.ruleset.name,
                    ruleset_version=s.ruleset.version,
                    options=s.ruleset.rules.to_json(),
                    overrides=dict(s.ruleset.overrides),
                    timers=s.timers.to_json(),
                    public=s.public,
                    seed=table.seed,
                    status="waiting",
                    owner_seat=None,
                    version=0,
                    hands=0,
                    scores=None,
                    created_at=_when(table.created),
                )
            )

    async def seats_changed(self, table: str, seats: list[SeatRecord | None], owner: int | None) -> None:
        """Replace the game's seat rows and owner."""
        async with self.sessions.begin() as session:
            await session.execute(delete(SeatRow).where(SeatRow.game_id == table))
            for i, seat in enumerate(seats):
                if seat is None:
                    continue
                bot = seat.token_hash is None if seat.bot is None else seat.bot
                player = None if bot else await _player(session, seat.name)
                session.add(
                    SeatRow(
                        game_id=table, seat=i, name=seat.name, bot=bot, player_id=player, token_hash=seat.token_hash
                    )
                )
            await session.execute(update(GameRow).where(GameRow.id == table).values(owner_seat=owner))

    async def started(self, table: str, at: float) -> None:
        """Mark the game playing."""
        async with self.sessions.begin() as session:
            values = {"status": "playing", "started_at": _when(at)}
            await session.execute(update(GameRow).where(GameRow.id == table).values(**values))

    async def record(self, record: Record) -> None:
        """Append the action; a finished deal also writes its hand row and the seats' totals."""
        async with self.sessions.begin() as session:
            session.add(
                ActionRow(
                    game_id=record.table,
                    seq=record.version,
                    seat=record.seat,
                    action=record.action,
                    events=record.events,
                    auto=record.auto,
                    at=_when(record.at),
                )
            )
            values: dict[str, Any] = {"version": record.version}
            for event in record.events:
                if event["type"] == "deal_end":
                    session.add(_hand_row(record, event))
                    totals = list(event["totals"])  # type: ignore[call-overload]
                    values.update(hands=record.deal + 1, scores=totals)
                    for seat, total in enumerate(totals):
                        await session.execute(
                            update(SeatRow)
                            .where(SeatRow.game_id == record.table, SeatRow.seat == seat)
                            .values(score=total)
                        )
                elif event["type"] == "game_end":
                    values.update(status="over", finished_at=_when(record.at), scores=event["scores"])
            await session.execute(update(GameRow).where(GameRow.id == record.table).values(**values))

    async def stopped(self, table: str) -> None:
        """Mark an unfinished game as no longer live (an imported one): it is kept but not restored."""
        async with self.sessions.begin() as session:
            await session.execute(update(GameRow).where(GameRow.id == table).values(status="stopped"))

    async def chat(self, table: str, line: dict[str, object]) -> None:
        """Append a chat line."""
        async with self.sessions.begin() as session:
            session.add(
                ChatRow(
                    game_id=table,
                    seat=int(line["seat"]),  # type: ignore[call-overload]
                    name=str(line["name"]),
                    text=str(line["text"]),
                    at=_when(int(line["at"]) / 1000),  # type: ignore[call-overload]
                )
            )

    async def unfinished(self) -> list[StoredTable]:
        """Every waiting or playing game with its seats, actions and recent chat, oldest first."""
        async with self.sessions() as session:
            games = (
                await session.scalars(
                    select(GameRow).where(GameRow.status.in_(("waiting", "playing"))).order_by(GameRow.created_at)
                )
            ).all()
            return [await _stored(session, game) for game in games]


async def _player(session: AsyncSession, name: str) -> int:
    found = await session.scalar(select(PlayerRow.id).where(PlayerRow.name == name))
    if found is not None:
        return found
    try:
        async with session.begin_nested():  # another table may add the same name at the same moment
            row = PlayerRow(name=name, created_at=datetime.now(UTC))
            session.add(row)
        return row.id
    except IntegrityError:
        found = await session.scalar(select(PlayerRow.id).where(PlayerRow.name == name))
        assert found is not None
        return found


def _hand_row(record: Record, event: dict[str, Any]) -> HandRow:
    return HandRow(
        game_id=record.table,
        number=record.deal,
        round_wind=record.round_wind,
        dealer=record.dealer,
        winner=event.get("winner"),
        termination=str(event.get("termination")),
        win_by=event.get("win_by"),
        discarder=event.get("discarder"),
        value=_winning_value(event),
        result=event,
        changes=list(event.get("changes") or [0, 0, 0, 0]),
        totals=list(event.get("totals") or []),
        finished_at=_when(record.at),
    )


def _winning_value(event: dict[str, Any]) -> int | None:
    winner, scores = event.get("winner"), event.get("scores")
    if not isinstance(winner, int) or not isinstance(scores, list) or not 0 <= winner < len(scores):
        return None
    value = scores[winner].get("value") if isinstance(scores[winner], dict) else None
    return value if isinstance(value, int) else None


async def _stored(session: AsyncSession, game: GameRow) -> StoredTable:
    settings = TableSettings(
        game.name, ruleset(game.ruleset, game.overrides), Timers.from_json(game.timers), game.public
    )
    seats: list[SeatRecord | None] = [None] * 4
    for row in await session.scalars(select(SeatRow).where(SeatRow.game_id == game.id)):
        seats[row.seat] = SeatRecord(row.name, row.token_hash)
    actions = [
        (row.seat, dict(row.action))
        for row in await session.scalars(select(ActionRow).where(ActionRow.game_id == game.id).order_by(ActionRow.seq))
    ]
    recent = (
        await session.scalars(
            select(ChatRow).where(ChatRow.game_id == game.id).order_by(ChatRow.id.desc()).limit(CHAT_KEPT)
        )
    ).all()
    chat: list[dict[str, object]] = [
        {"seat": c.seat, "name": c.name, "text": c.text, "at": round(to_seconds(c.at) * 1000)} for c in reversed(recent)
    ]
    return StoredTable(
        game.id, settings, game.seed, to_seconds(game.created_at), game.status, game.owner_seat, seats, actions, chat
    )
