"""Storage (issue 5): migrations from an empty database agree with the models; a stored game replays
from its log to the same final scores; the leaderboard query; a database newer than the code is refused.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from dbkit import BACKENDS, fresh_database
from sqlalchemy import select, text
from sqlalchemy.engine import Connection
from tablekit import Kit

from game.game import replay
from game.rulesets import ruleset
from server.store.journal import SqlJournal
from server.store.leaderboard import leaderboard
from server.store.migrate import DatabaseTooNew, current_revision, head_revision, upgrade
from server.store.models import ActionRow, Base, GameRow, HandRow, SeatRow
from server.store.session import make_engine, make_sessions

pytestmark = [pytest.mark.asyncio, pytest.mark.parametrize("backend", BACKENDS)]


def _differences(connection: Connection) -> list[object]:
    return list(compare_metadata(MigrationContext.configure(connection), Base.metadata))


async def test_migrations_from_an_empty_database_match_the_models(backend: str, tmp_path: Path) -> None:
    async with fresh_database(backend, tmp_path) as url:
        engine = make_engine(url)
        try:
            assert await current_revision(engine) is None
            assert await upgrade(engine) == (None, head_revision())
            assert await upgrade(engine) == (head_revision(), head_revision())  # a second run does nothing
            async with engine.connect() as connection:
                assert await connection.run_sync(_differences) == []  # what `alembic check` checks
        finally:
            await engine.dispose()


async def test_upgrading_from_the_first_schema_keeps_and_backfills_stored_hands(backend: str, tmp_path: Path) -> None:
    async with fresh_database(backend, tmp_path) as url:
        engine = make_engine(url)
        try:
            assert await upgrade(engine, "0001") == (None, "0001")
            result = {"winner": 2, "win_by": "discard", "discarder": 1, "scores": [{}, {}, {"value": 96}, {}]}
            async with engine.begin() as connection:
                await connection.execute(
                    text(
                        "INSERT INTO games (id, name, ruleset, ruleset_version, options, overrides, timers, public,"
                        " seed, status, version, hands, created_at) VALUES ('g1', 'Old', 'classical', 'x', '{}',"
                        " '{}', '{}', true, 1, 'over', 0, 1, CURRENT_TIMESTAMP)"
                    )
                )
                await connection.execute(
                    text(
                        "INSERT INTO hands (game_id, number, round_wind, dealer, winner, termination, result,"
                        " changes, totals, finished_at) VALUES ('g1', 0, 'E', 0, 2, 'discard', :result, '[]', '[]',"
                        " CURRENT_TIMESTAMP)"
                    ),
                    {"result": json.dumps(result)},
                )
            assert await upgrade(engine) == ("0001", head_revision())
            async with make_sessions(engine)() as session:
                hand = (await session.scalars(select(HandRow))).one()
            assert (hand.win_by, hand.discarder, hand.value, hand.result) == ("discard", 1, 96, result)
        finally:
            await engine.dispose()


async def test_a_database_newer_than_the_code_is_refused(backend: str, tmp_path: Path) -> None:
    async with fresh_database(backend, tmp_path) as url:
        engine = make_engine(url)
        try:
            await upgrade(engine)
            async with engine.begin() as connection:
                await connection.execute(text("UPDATE alembic_version SET version_num = 'ffff_future'"))
            with pytest.raises(DatabaseTooNew, match="ffff_future.*newer than this Sparrow"):
                await upgrade(engine)
        finally:
            await engine.dispose()


async def test_a_stored_finished_game_replays_to_the_same_final_scores(backend: str, tmp_path: Path) -> None:
    async with fresh_database(backend, tmp_path) as url:
        engine = make_engine(url)
        try:
            await upgrade(engine)
            journal = SqlJournal(engine)
            actor = await Kit(journal).finished_game()
            await journal.close()
            assert actor.status == "over" and actor.game is not None
            async with make_sessions(engine)() as session:
                game = await session.get(GameRow, actor.id)
                assert game is not None and game.status == "over" and game.finished_at is not None
                log = (
                    await session.scalars(
                        select(ActionRow).where(ActionRow.game_id == actor.id).order_by(ActionRow.seq)
                    )
                ).all()
                hands = (await session.scalars(select(HandRow).where(HandRow.game_id == actor.id))).all()
                seats = (
                    await session.scalars(select(SeatRow).where(SeatRow.game_id == actor.id).order_by(SeatRow.seat))
                ).all()
            rebuilt = replay(ruleset(game.ruleset, game.overrides).rules, game.seed, [(a.seat, a.action) for a in log])
            assert [a.seq for a in log] == list(range(1, len(log) + 1))
            assert rebuilt.outcome is not None
            assert list(rebuilt.outcome.scores) == game.scores == [s.score for s in seats]
            assert rebuilt.digest() == actor.game.digest()
            assert len(hands) == game.hands == len(rebuilt.results) >= 4
            assert sum(sum(h.changes) for h in hands) == 0
            assert hands[-1].totals == game.scores
        finally:
            await engine.dispose()


async def test_leaderboard_counts_games_totals_and_averages(backend: str, tmp_path: Path) -> None:
    async with fresh_database(backend, tmp_path) as url:
        engine = make_engine(url)
        try:
            await upgrade(engine)
            journal = SqlJournal(engine)
            kit = Kit(journal)
            finals = []
            for seed in (1, 2):
                actor = await kit.finished_game(seed=seed)
                finals.append(actor.game.scores[0] - 2000)  # type: ignore[union-attr]
            await journal.close()
            async with make_sessions(engine)() as session:
                board = await leaderboard(session)
            ann = next(row for row in board if row.name == "Ann")
            assert (ann.games, ann.total) == (2, sum(finals))
            assert ann.average == pytest.approx(sum(finals) / 2)
            assert all(row.name != "Bot 1" for row in board)  # bots are not players
            async with make_sessions(engine)() as session:  # a period: games finished since a moment
                later = await leaderboard(session, since=datetime(3000, 1, 1, tzinfo=UTC))
                earlier = await leaderboard(session, since=datetime(2000, 1, 1, tzinfo=UTC))
            assert later == [] and earlier == board
        finally:
            await engine.dispose()
