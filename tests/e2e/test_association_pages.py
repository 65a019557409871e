"""The association rulesets in the browser (R16, R17): a game of bots by `dmjl` and one by `bmja`,
each played to the end of its East round at a real table, show on their history pages the ruleset's
name and every option on which it differs from classical."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from browserkit import LiveServer
from historykit import _settle, _table, api
from playwright.sync_api import expect

from game.rulesets import RULESETS, differences
from server.lobby import Lobby
from server.store.journal import SqlJournal
from server.store.migrate import upgrade
from server.store.session import make_engine
from server.tables.clock import FakeClock

pytestmark = pytest.mark.e2e

NAMES = ("dmjl", "bmja")


async def _build(url: str) -> dict[str, str]:
    engine = make_engine(url)
    await upgrade(engine)
    clock = FakeClock()
    journal = SqlJournal(engine)
    lobby = Lobby(clock=clock, journal=journal)
    ids = {}
    for seed, name in enumerate(NAMES, start=21):
        actor = await _table(
            lobby, clock, f"{name} club", "Ann", seed, {"turn": 3}, ruleset=name, overrides={"game_length": "east"}
        )
        while actor.status == "playing":
            clock.advance(3)
            await _settle(clock, actor)
        ids[name] = actor.id
    await lobby.close()
    await journal.close()
    await engine.dispose()
    return ids


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, dict[str, str]]]:
    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('books') / 'club.db'}"
    out: dict[str, dict[str, str]] = {}
    thread = threading.Thread(target=lambda: out.setdefault("ids", asyncio.run(_build(url))))
    thread.start()
    thread.join(timeout=300)
    assert "ids" in out, "playing the two games failed"
    with LiveServer(db=url) as server:
        yield server, out["ids"]


@pytest.mark.parametrize("name", NAMES)
def test_a_finished_game_by_the_book_shows_its_differences(
    club: tuple[LiveServer, dict[str, str]], new_page: Any, name: str
) -> None:
    live, ids = club
    page = new_page(1280, 900)
    detail = api(page, f"{live.url}/api/games/{ids[name]}")
    assert detail["status"] == "over" and detail["hand_rows"]
    page.goto(f"{live.url}/games/{ids[name]}")
    expect(page.locator("#ruleset-line")).to_contain_text(f"{name} rules")
    table = page.locator("#differences tbody")
    rules = RULESETS[name].with_overrides({"game_length": "east", "claim_pause": True})
    options = [option for option, _, _ in differences(RULESETS["classical"], rules)]
    expect(table.locator("tr")).to_have_count(len(options))
    for option in ("special hands", "loser pairs", "pao"):
        expect(table).to_contain_text(option)
    expect(table).to_contain_text("own bonus" if name == "dmjl" else "max chows")
    expect(page.locator("#hand-rows tr")).to_have_count(len(detail["hand_rows"]))
