"""Benchmark of the history pages (issue 7: pages load in < 300 ms with 1,000 stored games).

Fills a fresh database with finished games, then serves it with ``sparrow serve`` in a process of
its own and times, over HTTP from this one, each history page's HTML and the API call its script
makes (the browser waits for both before it shows anything), and reports p50, p95 and max.

The games are East rounds (an evening's game) played by the engine with the built-in bot policy,
by a club: Ann hosts every game, so hers is the heaviest player page there is; two or three of
fifteen regulars join her and bots fill the rest. They are written with bulk inserts of the very
rows `SqlJournal` writes as a table plays (`SqlJournal.record` and the calls before it); one game
is also written through `SqlJournal` itself and the two copies are compared row by row first.

SQLite in a temporary directory always; PostgreSQL too when one answers on 127.0.0.1:5432 (in a
fresh database, dropped afterwards).

With ``--replays GAMES`` it measures hand replays instead (SQLite only): it stores GAMES full games
(four rounds) and, on a fresh server, asks for a late hand of each game that has one, face up and as
each seat saw it, then asks again, and reports the server process's CPU per request.

    .venv/bin/python benchmarks/history.py [--games 1000] [--requests 50] [--seed 1] [--no-postgres]
    .venv/bin/python benchmarks/history.py --replays 40 [--hand 27] [--repeats 10]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import dataclasses
import multiprocessing
import os
import platform
import random
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import psutil
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from sqlalchemy import delete, func, insert, select
from sqlalchemy.ext.asyncio import AsyncEngine

from game.game import Game, GamePhase
from game.policy import choose
from game.rulesets import Ruleset, ruleset
from server.rates.policy import LOAD_FLAGS
from server.store.journal import (  # the journal's own row builders: the same rows
    SqlJournal,
    action_row,
    game_row,
    hand_row,
)
from server.store.migrate import upgrade
from server.store.models import ActionRow, ChatRow, GameRow, HandRow, PlayerRow, SeatRow
from server.store.session import make_engine
from server.tables.journal import Record, SeatRecord, StoredTable, hash_token
from server.tables.settings import TableSettings, Timers

TARGET_MS = 300.0
HOST = "Ann"
REGULARS = [
    "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lou", "Mei", "Ned", "Ola", "Pip",
]  # fmt: skip
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
GAP = 8 * 3600.0  # a game every eight hours or so: 1,000 games are about a year of evenings
BATCH = 25  # games per bulk-insert transaction

console = Console(width=None if sys.stdout.isatty() else 120)


# ------------------------------------------------------------------ playing
@dataclass
class PlayedGame:
    """One finished game as the journal would have been told it."""

    table: StoredTable
    seats: list[SeatRecord | None]
    started: float
    records: list[Record] = field(default_factory=list)


def _rules(length: str = "east") -> Ruleset:
    return ruleset("classical", {"game_length": length})


def play(job: tuple[int, int, str]) -> PlayedGame:
    """Game ``index`` of the club's year, played by the bot policy for every seat (in a worker), an
    East round or a ``full`` game of four rounds."""
    index, seed, length = job
    rng = random.Random(seed * 1_000_003 + index)
    table_id = base64.urlsafe_b64encode(rng.randbytes(9)).decode()  # like `secrets.token_urlsafe(9)`
    humans = [HOST, *rng.sample(REGULARS, rng.choice((1, 2, 2, 3, 3, 3)))]
    rng.shuffle(humans)
    seats: list[SeatRecord | None] = []
    for s in range(4):
        if s < len(humans):
            seats.append(SeatRecord(humans[s], hash_token(rng.randbytes(16).hex())))
        else:
            seats.append(SeatRecord(f"Bot {s - len(humans) + 1}", None))
    now = time.time() - 400 * 86400 + index * GAP + rng.uniform(0, 3600)
    rules = _rules(length)
    settings = TableSettings(f"Evening {index + 1}", rules, Timers(), public=True)
    game_seed = rng.getrandbits(63)
    played = PlayedGame(StoredTable(table_id, settings, game_seed, now), seats, now + rng.uniform(30, 300))
    game = Game(rules.rules, game_seed)
    at = played.started
    while game.phase is not GamePhase.OVER:
        seat = game.to_act()[0]
        action = choose(game, seat)
        deal, dealer, wind = game.deal_number, game.deal.dealer, game.deal.round_wind.code
        events = game.apply(seat, action)
        at += rng.uniform(0.8, 6.0)
        person = seats[seat] is not None and seats[seat].token_hash is not None  # type: ignore[union-attr]
        auto = ("timer" if rng.random() < 0.03 else None) if person else "bot"
        played.records.append(
            Record(table_id, game.version, seat, game.log[-1][1], events, at, auto, deal, dealer, wind)
        )
    return played


# ------------------------------------------------------------------ writing
def _when(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def rows_of(played: PlayedGame, players: dict[str, int], table_id: str | None = None) -> dict[str, list[Any]]:
    """The rows the journal leaves for ``played`` once it is over, as dicts for bulk inserts (hands:
    the journal's own `HandRow` objects).
    """
    t = played.table
    gid = table_id or t.id
    game: dict[str, Any] = game_row(t) | {
        "id": gid,
        "status": "playing",
        "owner_seat": 0,
        "started_at": _when(played.started),
        "finished_at": None,
    }
    seats = []
    for i, seat in enumerate(played.seats):
        assert seat is not None
        bot = seat.token_hash is None
        seats.append(
            {
                "game_id": gid,
                "seat": i,
                "name": seat.name,
                "bot": bot,
                "player_id": None if bot else players[seat.name],
                "token_hash": seat.token_hash,
                "score": None,
            }
        )
    actions, hands = [], []
    for r in played.records:
        record = r if table_id is None else dataclasses.replace(r, table=gid)
        actions.append(action_row(record))
        game["version"] = record.version
        for event in record.events:
            if event["type"] == "deal_end":
                hands.append(hand_row(record, event))
                totals = list(event["totals"])  # type: ignore[call-overload]
                game.update(hands=record.deal + 1, scores=totals)
                for seat_row, total in zip(seats, totals, strict=True):
                    seat_row["score"] = total
            elif event["type"] == "game_end":
                game.update(status="over", finished_at=_when(record.at), scores=event["scores"])
    return {"games": [game], "seats": seats, "actions": actions, "hands": hands}


def _hand_dict(row: HandRow) -> dict[str, Any]:
    return {c.key: getattr(row, c.key) for c in HandRow.__table__.columns}


async def write_rows(engine: AsyncEngine, batch: list[dict[str, list[Any]]]) -> None:
    """Insert many games' rows in one transaction."""
    games = [g for rows in batch for g in rows["games"]]
    seats = [s for rows in batch for s in rows["seats"]]
    actions = [a for rows in batch for a in rows["actions"]]
    hands = [_hand_dict(h) for rows in batch for h in rows["hands"]]
    async with engine.begin() as conn:
        await conn.execute(insert(GameRow), games)
        await conn.execute(insert(SeatRow), seats)
        for start in range(0, len(actions), 5000):
            await conn.execute(insert(ActionRow), actions[start : start + 5000])
        await conn.execute(insert(HandRow), hands)


async def add_players(engine: AsyncEngine) -> dict[str, int]:
    """The club's players, as `SqlJournal` adds a name the first time it sits down."""
    async with engine.begin() as conn:
        now = datetime.now(UTC)
        await conn.execute(insert(PlayerRow), [{"name": n, "created_at": now} for n in [HOST, *REGULARS]])
        return {name: pid for pid, name in (await conn.execute(select(PlayerRow.id, PlayerRow.name))).all()}


async def through_journal(engine: AsyncEngine, played: PlayedGame) -> None:
    """Write a game exactly as a live table does: one `SqlJournal` call per event, as it happens."""
    journal = SqlJournal(engine)
    await journal.table_created(played.table)
    await journal.seats_changed(played.table.id, played.seats, 0)
    await journal.started(played.table.id, played.started)
    for record in played.records:
        await journal.record(record)


async def same_rows(engine: AsyncEngine, live_id: str, bulk_id: str) -> list[str]:
    """Where the rows of two copies of a game differ (their ids aside); empty when they are the same."""
    problems = []
    async with engine.connect() as conn:
        for model, key in ((GameRow, "id"), (SeatRow, "game_id"), (ActionRow, "game_id"), (HandRow, "game_id")):
            table = model.__table__
            column = table.c[key]
            order = [c for c in table.primary_key.columns if c.key != key]
            rows = {}
            for gid in (live_id, bulk_id):
                result = await conn.execute(select(table).where(column == gid).order_by(*order))
                rows[gid] = [{k: v for k, v in row._mapping.items() if k != key} for row in result]
            if rows[live_id] != rows[bulk_id]:
                problems.append(f"{table.name}: {len(rows[live_id])} rows written live, {len(rows[bulk_id])} in bulk")
    return problems


async def forget(engine: AsyncEngine, game_id: str) -> None:
    async with engine.begin() as conn:
        for model in (ActionRow, HandRow, SeatRow, ChatRow):
            await conn.execute(delete(model).where(model.game_id == game_id))
        await conn.execute(delete(GameRow).where(GameRow.id == game_id))


async def fill(url: str, games: int, seed: int, label: str, length: str = "east") -> dict[str, Any]:
    """Create the schema and store ``games`` finished games (East rounds, or ``full`` games); returns
    what was stored."""
    engine = make_engine(url)
    await upgrade(engine)
    players = await add_players(engine)
    started = time.perf_counter()
    jobs = [(i, seed, length) for i in range(games)]
    columns = (
        TextColumn(f"[bold]{label}[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("games"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    # spawned workers: forking would copy the database driver's threads and locks mid-flight
    workers = ProcessPoolExecutor(max_workers=os.cpu_count() or 1, mp_context=multiprocessing.get_context("spawn"))
    with workers as pool, Progress(*columns, console=console) as bar:
        task = bar.add_task("fill", total=games)
        batch: list[dict[str, list[Any]]] = []
        for i, played in enumerate(pool.map(play, jobs, chunksize=8)):
            if i == 0:  # the first game also goes through SqlJournal: both copies must be the same rows
                twin = played.table.id + "~"
                await through_journal(engine, played)
                await write_rows(engine, [rows_of(played, players, table_id=twin)])
                problems = await same_rows(engine, played.table.id, twin)
                await forget(engine, twin)
                if problems:
                    raise SystemExit("bulk rows differ from SqlJournal's: " + "; ".join(problems))
            else:
                batch.append(rows_of(played, players))
            if len(batch) >= BATCH:
                await write_rows(engine, batch)
                batch = []
            bar.advance(task)
        if batch:
            await write_rows(engine, batch)
    seconds = time.perf_counter() - started
    async with engine.connect() as conn:
        counts = {
            model.__tablename__: await conn.scalar(select(func.count()).select_from(model))
            for model in (GameRow, HandRow, ActionRow)
        }
        ids = [g for (g,) in await conn.execute(select(GameRow.id).order_by(GameRow.created_at))]
        hands = dict((await conn.execute(select(GameRow.id, GameRow.hands))).all())
        busiest = await conn.execute(
            select(SeatRow.name, func.count())
            .where(SeatRow.bot.is_(False), SeatRow.name != HOST)
            .group_by(SeatRow.name)
            .order_by(func.count().desc(), SeatRow.name)
        )
        regular = busiest.first()
    await engine.dispose()
    assert regular is not None
    return {"seconds": seconds, "counts": counts, "ids": ids, "hands": hands, "regular": tuple(regular)}


# ------------------------------------------------------------------ serving
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def served(url: str) -> Iterator[tuple[str, int]]:
    """``sparrow serve --db url`` in its own process, an open club (the pages need no login); its base
    URL and process id until it is stopped."""
    port = free_port()
    command = [sys.executable, "-m", "server.cli", "serve", "--db", url, "--port", str(port), "--club-mode", "open"]
    command += LOAD_FLAGS  # every request comes from this one address
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if server.poll() is not None:
                raise SystemExit(f"the server stopped: {server.stderr.read() if server.stderr else ''}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise SystemExit("the server did not answer in 60 s")
            time.sleep(0.2)
        yield base, server.pid
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


@dataclass
class Measured:
    page: str
    html: str
    api: str
    html_ms: list[float]
    api_ms: list[float]

    @property
    def load_ms(self) -> list[float]:
        return [h + a for h, a in zip(self.html_ms, self.api_ms, strict=True)]


def _timed(client: httpx.Client, path: str) -> tuple[float, int]:
    started = time.perf_counter()
    response = client.get(path)
    body = response.read()
    elapsed = (time.perf_counter() - started) * 1000
    if response.status_code != 200:
        raise SystemExit(f"GET {path}: {response.status_code} {body[:200]!r}")
    return elapsed, len(body)


def measure(base: str, stored: dict[str, Any], requests: int) -> list[Measured]:
    """Each page's HTML then its script's API call, ``requests`` times, over a spread of games."""
    ids: list[str] = stored["ids"]
    hands: dict[str, int] = stored["hands"]
    spread = [ids[(k * len(ids)) // requests] for k in range(requests)]
    longest = sorted(ids, key=lambda g: -hands[g])[:requests]
    regular = stored["regular"][0]
    size = 20
    pages: list[tuple[str, Callable[[int], tuple[str, str]]]] = [
        ("games list, page 1", lambda k: ("/games", f"/api/games?limit={size}&offset=0")),
        (
            "games list, last page",
            lambda k: (f"/games?page={len(ids) // size}", f"/api/games?limit={size}&offset={len(ids) - size}"),
        ),
        (
            f"games list, {regular}'s",
            lambda k: (f"/games?player={regular}", f"/api/games?limit={size}&player={regular}"),
        ),
        ("game", lambda k: (f"/games/{spread[k]}", f"/api/games/{spread[k]}")),
        ("hand 1, face up", lambda k: (f"/games/{spread[k]}/hands/1", f"/api/games/{spread[k]}/hands/1")),
        (
            "last hand of the longest games",
            lambda k: (
                f"/games/{longest[k]}/hands/{hands[longest[k]]}",
                f"/api/games/{longest[k]}/hands/{hands[longest[k]]}",
            ),
        ),
        (
            "hand 1, one seat's view",
            lambda k: (f"/games/{spread[k]}/hands/1?seat={k % 4}", f"/api/games/{spread[k]}/hands/1?seat={k % 4}"),
        ),
        (f"player {HOST} (every game)", lambda k: (f"/players/{HOST}", f"/api/players/{HOST}")),
        (f"player {regular}", lambda k: (f"/players/{regular}", f"/api/players/{regular}")),
    ]
    out = []
    with httpx.Client(base_url=base, timeout=30) as client:
        for path in ("/games", "/api/games", f"/api/games/{ids[0]}/hands/1", f"/api/players/{HOST}"):
            _timed(client, path)  # warm up: imports, lookup tables, connection pool
        for name, paths in pages:
            html_ms, api_ms = [], []
            for k in range(requests):
                html, api = paths(k)
                html_ms.append(_timed(client, html)[0])
                api_ms.append(_timed(client, api)[0])
            example = paths(0)
            out.append(Measured(name, example[0], example[1], html_ms, api_ms))
    return out


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def report(backend: str, stored: dict[str, Any], results: list[Measured], requests: int) -> bool:
    """Print the figures; True if every page loads within the target at p95."""
    counts = stored["counts"]
    console.print(
        f"[bold]{backend}[/]: {counts['games']:,} games, {counts['hands']:,} hands, {counts['actions']:,} actions "
        f"stored in {stored['seconds']:.1f} s"
    )
    table = Table(title=f"{backend}: each page loaded {requests} times, ms (load = HTML + API call)")
    table.add_column("page")
    for column in ("HTML p50", "HTML p95", "API p50", "API p95", "load p50", "load p95", "load max"):
        table.add_column(column, justify="right")
    table.add_column(f"max < {TARGET_MS:.0f}", justify="center")
    ok = True
    for m in results:
        load = m.load_ms
        good = max(load) < TARGET_MS
        ok = ok and good
        figures = [_pct(m.html_ms, 0.5), _pct(m.html_ms, 0.95), _pct(m.api_ms, 0.5), _pct(m.api_ms, 0.95)]
        figures += [_pct(load, 0.5), _pct(load, 0.95), max(load)]
        table.add_row(m.page, *(f"{f:.1f}" for f in figures), "[green]yes[/]" if good else "[red]NO[/]")
    console.print(table)
    for m in results:
        console.print(f"  {m.page}: {m.html} then {m.api}", highlight=False, soft_wrap=True)
    return ok


# ------------------------------------------------------------------ replays
def server_cpu(pid: int) -> float:
    """CPU seconds used so far by the server process and its children (the journal's writer)."""
    server = psutil.Process(pid)
    total = 0.0
    for process in (server, *server.children(recursive=True)):
        with contextlib.suppress(psutil.Error):
            times = process.cpu_times()
            total += times.user + times.system
    return total


@dataclass
class Replayed:
    what: str
    requests: int
    cpu_ms: float  # the server's, per request
    wall_ms: list[float]
    size: int  # the largest JSON body, bytes (uncompressed)


def measure_replays(base: str, pid: int, games: list[str], other: str, hand: int, repeats: int) -> list[Replayed]:
    """Hand ``hand - 1`` then hand ``hand`` of each game, face up then as each seat saw it, each view
    asked for the first time on a fresh server; then every view of hand ``hand`` asked again. A hand
    of game ``other`` is replayed first, to build what the first replay in a process builds."""
    views = [""] + [f"?seat={s}" for s in range(4)]
    before = [f"/api/games/{g}/hands/{hand - 1}" for g in games]
    face_up = [f"/api/games/{g}/hands/{hand}" for g in games]
    seats = [f"/api/games/{g}/hands/{hand}{v}" for g in games for v in views[1:]]
    again = [f"/api/games/{g}/hands/{hand}{v}" for g in games for v in views] * repeats
    out = []
    with httpx.Client(base_url=base, timeout=60) as client:
        _timed(client, f"/api/games/{other}/hands/2")  # warm up: imports, lookup tables, connection pool
        for what, paths in (
            (f"hand {hand - 1}, face up, cold", before),
            (f"hand {hand}, face up, cold (after {hand - 1})", face_up),
            (f"hand {hand}, each seat's view, cold", seats),
            (f"hand {hand}, all 5 views again (warm)", again),
        ):
            cpu, wall, size = server_cpu(pid), [], 0
            for path in paths:
                ms, length = _timed(client, path)
                wall.append(ms)
                size = max(size, length)
            out.append(Replayed(what, len(paths), (server_cpu(pid) - cpu) * 1000 / len(paths), wall, size))
    return out


def run_replays(url: str, args: argparse.Namespace) -> None:
    """Store ``args.replays`` full games (four rounds); time the replays of a late hand in each game
    that has it."""
    stored = asyncio.run(fill(url, args.replays, args.seed, "SQLite: filling", length="full"))
    hands: dict[str, int] = stored["hands"]
    games = [g for g in stored["ids"] if hands[g] >= args.hand]
    if not games:
        raise SystemExit(f"no stored game reached hand {args.hand} (longest: {max(hands.values())}): store more")
    counts = stored["counts"]
    console.print(
        f"SQLite: {counts['games']:,} full games, {counts['hands']:,} hands, {counts['actions']:,} actions; "
        f"{len(games)} reach hand {args.hand}"
    )
    with served(url) as (base, pid):
        other = next(g for g in stored["ids"] if g not in games)
        results = measure_replays(base, pid, games, other, args.hand, args.repeats)
    table = Table(title=f"GET /api/games/{{id}}/hands/{{n}} in {len(games)} games, server CPU per request")
    table.add_column("request")
    for column in ("requests", "CPU ms", "wall p50 ms", "wall max ms", "JSON kB (max)"):
        table.add_column(column, justify="right")
    for r in results:
        figures = (r.cpu_ms, _pct(r.wall_ms, 0.5), max(r.wall_ms), r.size / 1000)
        table.add_row(r.what, str(r.requests), *(f"{f:.1f}" for f in figures))
    console.print(table)


# ------------------------------------------------------------------ backends
@contextlib.asynccontextmanager
async def postgres() -> AsyncIterator[str | None]:
    """A fresh PostgreSQL database's URL, dropped afterwards; None if none answers."""
    try:
        admin = await asyncpg.connect(PG_ADMIN, timeout=3)
    except (OSError, asyncpg.PostgresError) as exc:
        console.print(f"PostgreSQL: skipped, nothing answers at 127.0.0.1:5432 ({exc.__class__.__name__})")
        yield None
        return
    name = f"sparrow_bench_{secrets.token_hex(4)}"
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        yield f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}"
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


def run_backend(backend: str, url: str, args: argparse.Namespace) -> bool:
    stored = asyncio.run(fill(url, args.games, args.seed, f"{backend}: filling"))
    with served(url) as (base, _):
        results = measure(base, stored, args.requests)
    return report(backend, stored, results, args.requests)


def machine() -> str:
    cpu = "unknown CPU"
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as info:
        cpu = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), cpu)
    return (
        f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.machine()}, Python {platform.python_version()}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="finished games to store (default 1000)")
    parser.add_argument("--requests", type=int, default=50, help="loads of each page (default 50)")
    parser.add_argument("--seed", type=int, default=1, help="the club's year is determined by it (default 1)")
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only")
    parser.add_argument(
        "--replays",
        type=int,
        metavar="GAMES",
        help="instead of the pages: store GAMES full games and time hand replays, CPU per request (SQLite)",
    )
    parser.add_argument("--hand", type=int, default=27, help="with --replays: the hand to ask for (default 27)")
    parser.add_argument("--repeats", type=int, default=10, help="with --replays: warm passes (default 10)")
    args = parser.parse_args(argv)
    console.print(f"machine: {machine()}")
    if args.replays:
        with tempfile.TemporaryDirectory(prefix="sparrow-bench-") as tmp:
            run_replays(f"sqlite+aiosqlite:///{Path(tmp) / 'replays.db'}", args)
        return 0
    ok = True
    with tempfile.TemporaryDirectory(prefix="sparrow-bench-") as tmp:
        ok = run_backend("SQLite", f"sqlite+aiosqlite:///{Path(tmp) / 'history.db'}", args) and ok
    if not args.no_postgres:

        async def with_postgres() -> bool:
            async with postgres() as url:
                if url is None:
                    return True
                return await asyncio.to_thread(run_backend, "PostgreSQL", url, args)

        ok = asyncio.run(with_postgres()) and ok
    console.print("every page within the target" if ok else "[red]some page missed the target[/]")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
