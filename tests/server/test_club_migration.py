"""Upgrading to accounts: a database written before the club existed, with games stored under
free-text names, upgrades with every game, seat, hand and score intact, and the server stays open to
the people who played there (no one is locked out before an admin sets the club up).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from dbkit import BACKENDS, fresh_database
from tablekit import Kit

from server.app import create_app
from server.club.club import ClubConfig
from server.store.journal import SqlJournal
from server.store.migrate import head_revision, upgrade
from server.store.session import make_engine

pytestmark = [pytest.mark.asyncio, pytest.mark.parametrize("backend", BACKENDS)]

TABLES = ("players", "games", "seats", "actions", "hands", "chat")  # in foreign-key order
BEFORE_CLUB = "0002"


def _plain(value: Any) -> Any:
    """A time as naive UTC (SQLite hands back what it was given; PostgreSQL, times with a zone)."""
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    return value


def _rows(connection: sa.Connection) -> dict[str, list[dict[str, Any]]]:
    meta = sa.MetaData()
    meta.reflect(connection, only=TABLES)
    return {
        name: [
            {k: _plain(v) for k, v in r._mapping.items()}
            for r in connection.execute(sa.select(meta.tables[name]).order_by(*meta.tables[name].primary_key))
        ]
        for name in TABLES
    }


def _copy(rows: dict[str, list[dict[str, Any]]]) -> Any:
    def run(connection: sa.Connection) -> None:
        meta = sa.MetaData()
        meta.reflect(connection, only=TABLES)
        for name in TABLES:
            columns = set(meta.tables[name].columns.keys())
            old = [{k: v for k, v in row.items() if k in columns} for row in rows[name]]
            if old:
                connection.execute(meta.tables[name].insert(), old)

    return run


async def test_games_stored_under_free_text_names_survive_the_upgrade_to_accounts(backend: str, tmp_path: Path) -> None:
    # Games as today's server stores them: Ann and Bob by the names they typed, and bots.
    made = tmp_path / "made"
    made.mkdir()
    async with fresh_database("sqlite", made) as source_url:
        engine = make_engine(source_url)
        await upgrade(engine)
        journal = SqlJournal(engine)
        kit = Kit(journal)
        await kit.finished_game(seed=3, humans=2)
        await kit.finished_game(seed=5, humans=1)
        await journal.close()
        async with engine.connect() as connection:
            written = await connection.run_sync(_rows)
        await engine.dispose()
    assert {s["name"] for s in written["seats"] if not s["bot"]} == {"Ann", "Bob"}
    assert len(written["games"]) == 2 and written["hands"] and written["actions"]

    async with fresh_database(backend, tmp_path) as url:
        engine = make_engine(url)
        try:
            assert await upgrade(engine, BEFORE_CLUB) == (None, BEFORE_CLUB)
            async with engine.begin() as connection:
                await connection.run_sync(_copy(written))
            assert await upgrade(engine) == (BEFORE_CLUB, head_revision())
            async with engine.connect() as connection:
                upgraded = await connection.run_sync(_rows)
        finally:
            await engine.dispose()
        # A bot's level came after the club: stored before it, bots have none (and play as "normal").
        written["seats"] = [{**row, "level": None} for row in written["seats"]]
        for name in TABLES:
            assert upgraded[name] == written[name], name  # every row, every column, member_id still empty

        app = create_app(db=url, club=ClubConfig("secret"))
        async with app.router.lifespan_context(app):
            assert app.state.club.mode == "open"  # it was open before: it stays open until an admin decides
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://sparrow") as http:
                board = (await http.get("/api/leaderboard", params={"period": "all"})).json()["standings"]
                ann = (await http.get("/api/players/Ann")).json()
                games = (await http.get("/api/games")).json()
    finished = [g for g in written["games"] if g["status"] == "over"]
    assert games["total"] == 2 and len(finished) == 2
    assert {s["name"] for s in board} == {"Ann", "Bob"}
    totals = {s["name"]: s["total"] for s in board}
    for person in ("Ann", "Bob"):
        seats = [s for s in written["seats"] if s["name"] == person]
        starts = {g["id"]: g["options"]["starting_score"] for g in written["games"]}
        assert totals[person] == sum(s["score"] - starts[s["game_id"]] for s in seats)
    assert ann["games"] == 2
