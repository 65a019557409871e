"""Whole stored games as logs: load one for export, store an imported one."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from game.game import Game
from game.rules import Rules
from game.rulesets import Ruleset
from server.history.logfile import GameLog, LoggedAction
from server.store.journal import SqlJournal, to_seconds
from server.tables.journal import Record, SeatRecord, StoredTable, new_table_id
from server.tables.settings import TableSettings, Timers

__all__ = ["load_log", "store_log"]


async def load_log(session: AsyncSession, game_id: str) -> tuple[GameLog, str] | None:
    """The stored game ``game_id`` as a log, with its status; None if there is no such game."""
    from server.store.models import ActionRow, GameRow, SeatRow

    game = await session.get(GameRow, game_id)
    if game is None:
        return None
    seats = [{"name": "", "bot": True} for _ in range(4)]
    for row in await session.scalars(select(SeatRow).where(SeatRow.game_id == game_id)):
        seats[row.seat] = {"name": row.name, "bot": row.bot}
    actions = [
        LoggedAction(row.seat, dict(row.action), row.auto, to_seconds(row.at))
        for row in await session.scalars(select(ActionRow).where(ActionRow.game_id == game_id).order_by(ActionRow.seq))
    ]
    log = GameLog(
        game.name,
        game.ruleset,
        dict(game.overrides),
        Rules.from_json(game.options),
        game.seed,
        seats,
        actions,
        id=game.id,
        started=None if game.started_at is None else to_seconds(game.started_at),
    )
    return log, game.status


async def store_log(journal: SqlJournal, log: GameLog, now: float) -> str:
    """Store a replayed log as a new game (status ``over``, or ``stopped`` if it never finished);
    returns its id.

    :raises RulesError: if the log does not replay (read it with `read_log` first).
    """
    table_id = new_table_id()
    ruleset = Ruleset(log.ruleset, log.rules, tuple(sorted(log.overrides.items())))
    settings = TableSettings(log.name[:40] or "Imported game", ruleset, Timers(), public=True)
    started = log.started if log.started is not None else now
    await journal.table_created(StoredTable(table_id, settings, log.seed, started))
    seats = [SeatRecord(str(s["name"])[:24] or f"Seat {i}", None, bool(s.get("bot"))) for i, s in enumerate(log.seats)]
    await journal.seats_changed(table_id, list(seats), None)
    await journal.started(table_id, started)
    game = Game(log.rules, log.seed)
    for a in log.actions:
        deal, dealer, wind = game.deal_number, game.deal.dealer, game.deal.round_wind.code
        events = game.apply(a.seat, a.action)
        at = a.at if a.at is not None else now
        record = Record(table_id, game.version, a.seat, game.log[-1][1], events, at, a.auto, deal, dealer, wind)
        await journal.record(record)
    if game.outcome is None:
        await journal.stopped(table_id)
    return table_id
