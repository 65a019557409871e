"""Micro-benchmark of the SQL journal's writes: group commit against a transaction per action.

M tables play at once, as fast as the journal lets them: each awaits `SqlJournal.record` for its
next action, as a live table does, with no think time, so the journal is the only limit. The
actions are real ones (East rounds played by the built-in bot policy, prepared before timing), and
each mode writes them to a fresh SQLite file (WAL, ``synchronous=FULL``, as `make_engine` makes it):

- ``per action``: the journal's code before group commit, kept here only to compare: each
  `record` opens its own session and transaction, so up to the pool's 15 connections write at once;
- ``writer, cap 1``: the group writer taking one write per transaction (one writer, no batching);
- ``writer, cap N``: the group writer as the server runs it (``--cap``, default 500).

For each mode it prints actions/s, wall ms per action, CPU ms per action (this process, all its
threads, and the journal's writer process), the latency of one `record` call (p50/p99), and the
transactions committed; then it checks that every mode left exactly the same rows.

    .venv/bin/python benchmarks/journal.py [--tables 50] [--actions 200] [--cap 500] [--readers 0] [--heavy-reads]
        [--one-connection] [--modes before,one,batched]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
from sqlalchemy import event, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from game.game import Game, GamePhase
from game.policy import choose
from game.rulesets import ruleset
from server.store.journal import SqlJournal, _when, hand_row
from server.store.migrate import upgrade
from server.store.models import ActionRow, GameRow, HandRow, SeatRow
from server.store.session import make_engine
from server.tables.journal import Record, SeatRecord, StoredTable, hash_token
from server.tables.settings import TableSettings, Timers


class PerActionJournal(SqlJournal):
    """`SqlJournal.record` as it was before group commit: one session and transaction per action."""

    async def record(self, record: Record) -> None:
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
            for event_ in record.events:
                if event_["type"] == "deal_end":
                    session.add(hand_row(record, event_))
                    totals = list(event_["totals"])  # type: ignore[call-overload]
                    values.update(hands=record.deal + 1, scores=totals)
                    for seat, total in enumerate(totals):
                        await session.execute(
                            update(SeatRow)
                            .where(SeatRow.game_id == record.table, SeatRow.seat == seat)
                            .values(score=total)
                        )
                elif event_["type"] == "game_end":
                    values.update(status="over", finished_at=_when(record.at), scores=event_["scores"])
            await session.execute(update(GameRow).where(GameRow.id == record.table).values(**values))


def play(index: int, actions: int) -> tuple[StoredTable, list[SeatRecord | None], list[Record]]:
    """Table ``index``: its first ``actions`` actions (fewer if its game ends first) as records."""
    table_id = f"bench{index:05d}"
    rules = ruleset("classical", {"game_length": "east"})
    stored = StoredTable(table_id, TableSettings(f"Bench {index}", rules, Timers(), True), index, 1_700_000_000.0)
    seats: list[SeatRecord | None] = [
        SeatRecord("Ann", hash_token(f"t{index}")),
        *(SeatRecord(f"Bot {i}", None) for i in (1, 2, 3)),
    ]
    game = Game(rules.rules, index)
    records: list[Record] = []
    at = stored.created + 60
    while game.phase is not GamePhase.OVER and len(records) < actions:
        seat = game.to_act()[0]
        deal, dealer, wind = game.deal_number, game.deal.dealer, game.deal.round_wind.code
        events = game.apply(seat, choose(game, seat))
        at += 1.5
        auto = None if seat == 0 else "bot"
        records.append(Record(table_id, game.version, seat, game.log[-1][1], events, at, auto, deal, dealer, wind))
    return stored, seats, records


async def run(
    mode: str,
    make: Callable[[AsyncEngine], SqlJournal],
    tables: list[tuple[StoredTable, list[SeatRecord | None], list[Record]]],
    folder: Path,
    readers: int,
    heavy: bool,
    pool: dict[str, Any],
) -> dict[str, Any]:
    """Write every table's records through the journal ``make`` builds, the tables at once."""
    name = mode.replace(" ", "_").replace(",", "").replace("(", "").replace(")", "")
    engine = make_engine(f"sqlite+aiosqlite:///{folder / name}.db", **pool)
    await upgrade(engine)
    journal = make(engine)
    for stored, seats, _ in tables:  # one by one: the same player ids in every mode
        await journal.table_created(stored)
        await journal.seats_changed(stored.id, seats, 0)
        await journal.started(stored.id, stored.created + 30)
    commits = 0

    def committed(_connection: Any) -> None:
        nonlocal commits
        commits += 1

    event.listen(engine.sync_engine, "commit", committed)  # the journal before group commit
    writer = getattr(journal, "writer", None)
    written_before = writer.commits if writer is not None else 0  # the writer counts its process's
    latencies: list[float] = []
    read_times: list[float] = []
    reads = 0
    stop = asyncio.Event()

    async def table(records: list[Record]) -> None:
        for record in records:
            began = time.perf_counter()
            await journal.record(record)
            latencies.append(time.perf_counter() - began)

    async def reader() -> None:  # every 10 ms, a game and its actions so far (heavy: every action stored)
        nonlocal reads
        while not stop.is_set():
            game = tables[reads % len(tables)][0].id
            began = time.perf_counter()
            async with journal.sessions() as session:
                await session.get(GameRow, game)
                wanted = select(ActionRow) if heavy else select(ActionRow).where(ActionRow.game_id == game)
                (await session.scalars(wanted)).all()
            read_times.append(time.perf_counter() - began)
            reads += 1
            await asyncio.sleep(0.01)

    watchers = [asyncio.create_task(reader()) for _ in range(readers)]
    cpu, wall = cpu_seconds(), time.perf_counter()
    await asyncio.gather(*(table(records) for _, _, records in tables))
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    if writer is not None:
        commits += writer.commits - written_before
    stop.set()
    await asyncio.gather(*watchers)
    await journal.close()
    rows = await snapshot(engine)
    await engine.dispose()
    n = len(latencies)
    latencies.sort()
    return {
        "mode": mode,
        "actions": n,
        "per_s": n / wall,
        "wall_ms": wall * 1000 / n,
        "cpu_ms": cpu * 1000 / n,
        "p50": statistics.median(latencies) * 1000,
        "p99": latencies[min(n - 1, int(n * 0.99))] * 1000,
        "commits": commits,
        "reads": reads,
        "read_p99": sorted(read_times)[int(len(read_times) * 0.99)] * 1000 if read_times else 0.0,
        "rows": rows,
    }


async def snapshot(engine: AsyncEngine) -> dict[str, list[tuple[Any, ...]]]:
    """Every row the journal writes for a table as it plays, in key order."""
    rows = {}
    async with engine.connect() as conn:
        for model in (GameRow, SeatRow, ActionRow, HandRow):
            table = model.__table__
            result = await conn.execute(select(table).order_by(*table.primary_key.columns))
            rows[table.name] = [tuple(row) for row in result]
    return rows


def cpu_seconds() -> float:
    """CPU time of this process and its children (the journal's writer process) so far."""
    me = psutil.Process()
    processes = [me, *me.children(recursive=True)]
    total = 0.0
    for process in processes:
        with contextlib.suppress(psutil.Error):
            times = process.cpu_times()
            total += times.user + times.system
    return total


def machine() -> str:
    cpu = "unknown CPU"
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as info:
        cpu = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), cpu)
    return (
        f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.machine()}, Python {platform.python_version()}"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50, help="tables playing at once (50)")
    parser.add_argument("--actions", type=int, default=200, help="actions per table (200)")
    parser.add_argument("--cap", type=int, default=500, help="the writer's batch cap (500, the server's)")
    parser.add_argument("--readers", type=int, default=0, help="tasks reading a game every 10 ms meanwhile (0)")
    parser.add_argument("--heavy-reads", action="store_true", help="readers read every action stored, not one game's")
    parser.add_argument(
        "--modes", default="before,one,batched", help="which of before, one (cap 1), batched to run (all)"
    )
    parser.add_argument(
        "--one-connection", action="store_true", help="a pool of one connection (default: 5 + 10 overflow)"
    )
    args = parser.parse_args()
    prepared = time.perf_counter()
    tables = [play(i, args.actions) for i in range(args.tables)]
    total = sum(len(r) for _, _, r in tables)
    print(f"machine: {machine()}")
    print(
        f"{args.tables} table(s) at once, {total:,} actions (up to {args.actions} per table), {args.readers}"
        f"{' heavy' if args.heavy_reads else ''} reader(s)"
        f" (prepared in {time.perf_counter() - prepared:.1f} s)"
    )
    pool_name = "a pool of one connection" if args.one_connection else "the default pool (5 + 10 overflow)"
    print(f"SQLite WAL, synchronous=FULL, {pool_name}")
    every: dict[str, tuple[str, Callable[[AsyncEngine], SqlJournal]]] = {
        "before": ("per action (before)", PerActionJournal),
        "one": ("writer, cap 1", lambda e: SqlJournal(e, batch_cap=1)),
        "batched": (f"writer, cap {args.cap}", lambda e: SqlJournal(e, batch_cap=args.cap)),
    }
    modes = [every[m] for m in args.modes.split(",")]
    pool = {"pool_size": 1, "max_overflow": 0} if args.one_connection else {}
    results = []
    with tempfile.TemporaryDirectory(prefix="sparrow-journal-") as folder:
        for mode, make in modes:
            results.append(await run(mode, make, tables, Path(folder), args.readers, args.heavy_reads, pool))
    print(
        f"{'mode':<22}{'actions/s':>11}{'ms/action':>11}{'CPU ms/act':>12}"
        f"{'p50 ms':>9}{'p99 ms':>9}{'commits':>9}{'act/commit':>12}"
        + (f"{'reads':>8}{'read p99':>10}" if args.readers else "")
    )
    for r in results:
        print(
            f"{r['mode']:<22}{r['per_s']:>11,.0f}{r['wall_ms']:>11.3f}{r['cpu_ms']:>12.3f}"
            f"{r['p50']:>9.2f}{r['p99']:>9.2f}{r['commits']:>9,}{r['actions'] / r['commits']:>12.1f}"
            + (f"{r['reads']:>8,}{r['read_p99']:>10.2f}" if args.readers else "")
        )
    same = all(r["rows"] == results[0]["rows"] for r in results)
    counts = ", ".join(f"{len(v):,} {k}" for k, v in results[0]["rows"].items())
    print(f"rows: {counts}; the same in every mode: {'yes' if same else 'NO'}")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    asyncio.run(main())
