"""Group commit in the SQL journal: concurrent tables share transactions, yet each write returns only
once committed, in order; a write that fails alone fails only its caller; `close` flushes; a writer
that dies fails its writes instead of leaving them waiting. On SQLite, and on PostgreSQL when reachable.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dbkit import BACKENDS, DISCARD, action_seqs, created_tables, discard_record, journal_on
from sqlalchemy import event, func, select
from sqlalchemy.exc import IntegrityError, OperationalError
from tablekit import Kit

from game.game import replay
from game.rulesets import ruleset
from server.store.journal import SqlJournal, to_seconds
from server.store.models import ActionRow, GameRow, HandRow, SeatRow
from server.store.session import make_sessions
from server.store.writer import WriterError
from server.tables.journal import Record

pytestmark = [pytest.mark.asyncio, pytest.mark.parametrize("backend", BACKENDS)]


class Commits:
    """Counts the transactions the journal's writer commits from now on (on SQLite its process
    counts them; on PostgreSQL the engine's commit events are counted too, and must agree)."""

    def __init__(self, journal: SqlJournal) -> None:
        self.writer = journal.writer
        self.before = journal.writer.commits
        self.events = 0
        self.engine = journal.engine.sync_engine
        event.listen(self.engine, "commit", self._committed)

    @property
    def count(self) -> int:
        counted = self.writer.commits - self.before
        if self.engine.dialect.name != "sqlite":
            assert counted == self.events
        return counted

    def _committed(self, _connection: Any) -> None:
        self.events += 1


@contextlib.contextmanager
def held(journal: SqlJournal) -> Iterator[None]:
    """While inside, the writer takes no batch: every write made meanwhile waits, and the writer
    takes them together afterwards. On SQLite its process (already running) is paused; on
    PostgreSQL the writer task only starts on the loop's next turn anyway.
    """
    pid = journal.writer.process_id
    if journal.engine.dialect.name == "sqlite":
        assert pid is not None, "the writer process starts with the first write"
        os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        if pid is not None:
            os.kill(pid, signal.SIGCONT)


async def test_concurrent_tables_share_commits_and_every_row_lands_in_order(backend: str, tmp_path: Path) -> None:
    async with journal_on(backend, tmp_path) as (journal, engine):
        ids = await created_tables(journal, 50)
        commits = Commits(journal)

        async def play(table: str) -> None:
            for seq in range(1, 21):
                await journal.record(discard_record(table, seq))  # returns only once committed, as a table waits

        await asyncio.gather(*(play(t) for t in ids))
        assert await action_seqs(engine) == {t: list(range(1, 21)) for t in ids}
        async with make_sessions(engine)() as session:
            versions = set((await session.scalars(select(GameRow.version))).all())
        assert versions == {20}
        assert commits.count < 50 * 20 // 10  # 1,000 records in (far) fewer than 100 transactions


async def test_action_rows_read_back_exactly_as_recorded(backend: str, tmp_path: Path) -> None:
    """On SQLite the action rows skip Core's statement building; what a reader gets back (the JSON of
    the action and its events, the time with its zone, who acted) must be what was recorded.
    """
    async with journal_on(backend, tmp_path) as (journal, engine):
        (table,) = await created_tables(journal, 1)
        events: list[dict[str, object]] = [{"type": "discard", "seat": 2, "tile": "Wé"}, {"type": "turn", "seat": 3}]
        await journal.record(Record(table, 1, 2, DISCARD, events, 1_700_000_000.25, "timer"))
        await journal.record(Record(table, 2, 3, {"type": "pass"}, [], 1_700_000_001.0))
        async with make_sessions(engine)() as session:
            rows = (await session.scalars(select(ActionRow).order_by(ActionRow.seq))).all()
            game = await session.get(GameRow, table)
        assert [(r.seq, r.seat, r.action, r.events, r.auto) for r in rows] == [
            (1, 2, DISCARD, events, "timer"),
            (2, 3, {"type": "pass"}, [], None),
        ]
        assert [to_seconds(r.at) for r in rows] == [1_700_000_000.25, 1_700_000_001.0]
        assert game is not None and game.version == 2


async def test_a_batch_larger_than_one_statement_lands_whole(backend: str, tmp_path: Path) -> None:
    """On SQLite a batch's action rows and versions are written a few statements at a time (at most
    999 parameters each); a full batch of 500 records across 400 games still lands row for row.
    """
    async with journal_on(backend, tmp_path) as (journal, engine):
        ids = await created_tables(journal, 400)
        commits = Commits(journal)
        firsts = [asyncio.ensure_future(journal.record(discard_record(t, 1))) for t in ids]
        more = [asyncio.ensure_future(journal.record(discard_record(ids[7], seq))) for seq in range(2, 102)]
        with held(journal):
            await asyncio.sleep(0.05)
        await asyncio.gather(*firsts, *more)
        assert commits.count <= 2
        seqs = await action_seqs(engine)
        assert seqs == {t: [1] for t in ids} | {ids[7]: list(range(1, 102))}
        async with make_sessions(engine)() as session:
            versions = {row.id: row.version for row in await session.execute(select(GameRow.id, GameRow.version))}
        assert versions == {t: 1 for t in ids} | {ids[7]: 101}


def _deal_end(table: str, i: int) -> Record:
    totals = [i, -i, 2 * i, -2 * i]
    events: list[dict[str, object]] = [
        {"type": "deal_end", "termination": "wash_out", "changes": [0, 0, 0, 0], "totals": totals}
    ]
    if i % 10 == 0:
        events.append({"type": "game_end", "scores": totals})
    return Record(table, 1, i % 4, DISCARD, events, 3_000.0 + i, deal=0, dealer=0, round_wind="E")


async def test_deals_ending_at_many_tables_in_one_batch_land_whole(backend: str, tmp_path: Path) -> None:
    """On SQLite the hand rows, the seats' totals and the games' rows of a batch are one statement
    each (per 999 parameters), as the action rows are: 300 deals ending at once, 30 of them ending
    their game, still land row for row, each table's values its own.
    """
    async with journal_on(backend, tmp_path) as (journal, engine):
        ids = await created_tables(journal, 300)
        commits = Commits(journal)
        ends = [asyncio.ensure_future(journal.record(_deal_end(t, i))) for i, t in enumerate(ids)]
        seconds = [asyncio.ensure_future(journal.record(discard_record(t, 2))) for t in ids[:50]]
        with held(journal):
            await asyncio.sleep(0.05)
        await asyncio.gather(*ends, *seconds)
        assert commits.count <= 2
        async with make_sessions(engine)() as session:
            games = {g.id: g for g in (await session.scalars(select(GameRow))).all()}
            seats = {(s.game_id, s.seat): s.score for s in (await session.scalars(select(SeatRow))).all()}
            hands = {h.game_id: h for h in (await session.scalars(select(HandRow))).all()}
        for i, t in enumerate(ids):
            totals = [i, -i, 2 * i, -2 * i]
            game = games[t]
            assert (game.version, game.hands, game.scores) == (2 if i < 50 else 1, 1, totals)
            assert game.status == ("over" if i % 10 == 0 else "waiting")
            assert (game.finished_at is not None and to_seconds(game.finished_at)) == (
                3_000.0 + i if i % 10 == 0 else False
            )
            assert (seats[t, 0], seats[t, 3]) == (i, -2 * i)  # the seats that have rows (_tables)
            assert (hands[t].number, hands[t].totals, hands[t].termination) == (0, totals, "wash_out")
            assert to_seconds(hands[t].finished_at) == 3_000.0 + i


async def test_writes_keep_their_order_within_one_batch(backend: str, tmp_path: Path) -> None:
    async with journal_on(backend, tmp_path) as (journal, engine):
        (table,) = await created_tables(journal, 1)
        commits = Commits(journal)
        with held(journal):
            writes = [asyncio.ensure_future(journal.record(discard_record(table, seq))) for seq in range(1, 31)]
            writes.append(asyncio.ensure_future(journal.started(table, 3_000.0)))
            await asyncio.sleep(0.05)
        await asyncio.gather(*writes)
        assert commits.count == 1
        assert await action_seqs(engine) == {table: list(range(1, 31))}
        async with make_sessions(engine)() as session:
            game = await session.get(GameRow, table)
        assert game is not None and (game.version, game.status) == (30, "playing")


async def test_a_write_that_fails_alone_fails_only_its_caller(
    backend: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with journal_on(backend, tmp_path) as (journal, engine):
        ids = await created_tables(journal, 10)
        await journal.record(discard_record(ids[0], 1))
        writes = [journal.record(discard_record(t, 1)) for t in ids[1:]]
        writes.insert(4, journal.record(discard_record(ids[0], 1)))  # the same action twice: a duplicate key
        writes.append(journal.record(discard_record("nowhere", 1)))  # an action of no game: a foreign key
        with caplog.at_level(logging.WARNING, logger="sparrow.store"):
            results = await asyncio.gather(*writes, return_exceptions=True)
        assert "a batch of 11 writes failed" in caplog.text
        assert isinstance(results.pop(4), IntegrityError)
        assert isinstance(results.pop(), IntegrityError)
        assert results == [None] * 9
        assert await action_seqs(engine) == {t: [1] for t in ids}
        await journal.record(discard_record(ids[0], 2))  # the writer carries on
        assert (await action_seqs(engine))[ids[0]] == [1, 2]


async def test_when_the_database_cannot_write_a_batch_is_not_retried_write_by_write(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if backend == "sqlite":
        pytest.skip("on SQLite the writes are made in the writer process: test_journal_process.py")
    async with journal_on(backend, tmp_path) as (journal, engine):
        ids = await created_tables(journal, 6)
        attempts: list[int] = []

        def locked(connection: object, writes: list[object]) -> None:
            attempts.append(len(writes))
            raise OperationalError("INSERT INTO actions …", {}, Exception("database is locked"))

        monkeypatch.setattr(journal.writer, "_write", locked)
        results = await asyncio.gather(*(journal.record(discard_record(t, 1)) for t in ids), return_exceptions=True)
        assert all(isinstance(r, OperationalError) for r in results)
        assert attempts == [6, 1]  # the batch, then its first write alone: the rest fail with it
        monkeypatch.undo()
        await asyncio.gather(*(journal.record(discard_record(t, 1)) for t in ids))
        assert await action_seqs(engine) == {t: [1] for t in ids}


async def test_close_flushes_what_is_waiting_then_refuses(backend: str, tmp_path: Path) -> None:
    async with journal_on(backend, tmp_path) as (journal, engine):
        ids = await created_tables(journal, 20)
        writes = [asyncio.ensure_future(journal.record(discard_record(t, 1))) for t in ids]
        await asyncio.sleep(0)  # every write is waiting for the writer
        await journal.close()
        assert all(w.done() and w.exception() is None for w in writes)
        assert await action_seqs(engine) == {t: [1] for t in ids}
        with pytest.raises(WriterError, match="closed"):
            await journal.record(discard_record(ids[0], 2))
        await journal.close()  # closing twice is harmless


async def test_a_writer_that_dies_fails_its_writes_and_the_next_write_restarts_it(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    if backend == "sqlite":
        pytest.skip("on SQLite the writer is a process: test_journal_process.py kills it")
    async with journal_on(backend, tmp_path) as (journal, engine):
        ids = await created_tables(journal, 5)

        def broken() -> list[object]:
            raise RuntimeError("a bug in the writer")

        monkeypatch.setattr(journal.writer, "_take", broken)
        with caplog.at_level(logging.ERROR, logger="sparrow.store"):
            results = await asyncio.gather(*(journal.record(discard_record(t, 1)) for t in ids), return_exceptions=True)
        assert all(isinstance(r, WriterError) for r in results)
        assert "the journal's writer stopped; 5 write(s) failed" in caplog.text
        monkeypatch.undo()
        await asyncio.gather(*(journal.record(discard_record(t, 1)) for t in ids))
        assert await action_seqs(engine) == {t: [1] for t in ids}


async def test_tables_playing_at_once_store_games_that_replay(backend: str, tmp_path: Path) -> None:
    async with journal_on(backend, tmp_path) as (journal, engine):
        commits = Commits(journal)
        actors = await asyncio.gather(*(Kit(journal).finished_game(seed=seed) for seed in (1, 2, 3)))
        async with make_sessions(engine)() as session:
            for actor in actors:
                game = await session.get(GameRow, actor.id)
                assert game is not None and game.status == "over" and actor.game is not None
                log = (
                    await session.scalars(
                        select(ActionRow).where(ActionRow.game_id == actor.id).order_by(ActionRow.seq)
                    )
                ).all()
                rebuilt = replay(
                    ruleset(game.ruleset, game.overrides).rules, game.seed, [(a.seat, a.action) for a in log]
                )
                assert rebuilt.digest() == actor.game.digest()
                assert rebuilt.outcome is not None and list(rebuilt.outcome.scores) == game.scores
                seats = (
                    await session.scalars(select(SeatRow).where(SeatRow.game_id == actor.id).order_by(SeatRow.seat))
                ).all()
                assert [s.score for s in seats] == game.scores
                hands = await session.scalar(
                    select(func.count()).select_from(HandRow).where(HandRow.game_id == actor.id)
                )
                assert hands == game.hands == len(rebuilt.results)
            actions = await session.scalar(select(func.count()).select_from(ActionRow))
        assert actions is not None and commits.count < actions
