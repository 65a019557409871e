"""A club's database for the history, review and accessibility pages in the browser: a finished East
round and a game still running, built by real tables on a fake clock (as the history API's tests build
theirs), served by a live server; and a JSON read through the page's own session.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from browserkit import LiveServer
from playwright.sync_api import Page

from game.game import GamePhase
from server.lobby import Lobby
from server.store.journal import SqlJournal
from server.store.migrate import upgrade
from server.store.session import make_engine
from server.tables.actor import TableActor
from server.tables.clock import FakeClock
from server.tables.connection import Connection
from server.tables.messages import AddBots, Attach, Start

CLUB = "Friday club"
IMG = "<img src=x onerror=alert(1)>"  # names come from people: markup in them must stay text
SVG = "<svg onload=alert(1)>"


async def _settle(clock: FakeClock, actor: TableActor) -> None:
    """Run the table until nothing more happens at the current (fake) time."""
    for _ in range(10_000):
        await actor.inbox.join()
        if clock.advance(0) == 0 and actor.inbox.empty():
            return
    raise AssertionError("the table never settled")


async def _table(
    lobby: Lobby, clock: FakeClock, name: str, person: str, seed: int, timers: dict[str, Any], **settings: Any
) -> TableActor:
    """A started table: ``person`` (at the table but never acting: the turn clock plays for them, and
    the table, with a person present, never pauses) and three bots."""
    request = {"name": name, "player": person, "timers": {"bot_delay": 0, **timers}, **settings}
    owner = await lobby.create(request, seed=seed)
    actor = lobby.get(str(owner["table"]))
    await actor.ask(Attach(Connection(None, limit=1_000_000), str(owner["token"])))
    await actor.ask(AddBots(str(owner["token"])))
    await actor.ask(Start(str(owner["token"])))
    await _settle(clock, actor)
    return actor


async def _build_club(url: str) -> dict[str, str]:
    """A finished East round, and a game still running: its first hand over, its second under way.
    The running game's turn clock is long, so once the live server restores it, it waits at Ann's
    turn for ten minutes (she never connects) instead of playing on while a test reads it.
    """
    engine = make_engine(url)
    await upgrade(engine)
    clock = FakeClock()
    journal = SqlJournal(engine)
    lobby = Lobby(clock=clock, journal=journal)
    done = await _table(lobby, clock, CLUB, "Ann", 7, {"turn": 3}, overrides={"game_length": "east"})
    while done.status == "playing":
        clock.advance(3)
        await _settle(clock, done)
    running = await _table(lobby, clock, IMG, SVG, 9, {"turn": 600})
    for _ in range(200):
        assert running.game is not None and running.status == "playing"
        game = running.game
        if game.phase is GamePhase.DEAL and game.deal_number >= 1 and len(game.deal.discards) >= 8:
            break
        clock.advance(600)
        await _settle(clock, running)
    ids = {"done": done.id, "running": running.id}
    await lobby.close()
    await journal.close()
    await engine.dispose()
    return ids


def build_club(url: str) -> dict[str, str]:
    """:func:`_build_club` on an event loop of its own (Playwright's sync API may own this thread's)."""
    out: dict[str, dict[str, str]] = {}
    thread = threading.Thread(target=lambda: out.setdefault("ids", asyncio.run(_build_club(url))))
    thread.start()
    thread.join(timeout=120)
    assert "ids" in out, "building the club's database failed"
    return out["ids"]


def served_club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, dict[str, str]]]:
    """The live server on a database with a finished and a running game; their ids (for a module's
    ``club`` fixture)."""
    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('club') / 'club.db'}"
    ids = build_club(url)
    with LiveServer(db=url) as server:
        yield server, ids


def api(page: Page, url: str) -> Any:
    response = page.request.get(url)
    assert response.ok, f"{url}: {response.status}"
    return response.json()
