"""The association rulesets at a table (R16): a game of bots plays to its end by them, and its history
page lists the options on which the ruleset differs from classical."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from tablekit import Kit

from game.rulesets import RULESETS, differences
from server.app import create_app
from server.club.club import OPEN_CLUB
from server.store.journal import SqlJournal
from server.store.migrate import upgrade
from server.store.session import make_engine

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize("name", ["dmjl", "bmja"])
async def test_a_game_of_bots_plays_to_the_end_and_its_page_shows_the_differences(tmp_path: Path, name: str) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'club.db'}"
    engine = make_engine(url)
    await upgrade(engine)
    journal = SqlJournal(engine)
    kit = Kit(journal)
    actor, _ = await kit.table(humans=1, seed=11, ruleset=name, overrides={"game_length": "east"}, timers={"turn": 3})
    while actor.status == "playing":
        await kit.advance(actor, 3)
    game = actor.game
    assert game is not None and game.outcome is not None and sum(game.scores) == 4 * game.rules.starting_score
    assert game.rules == RULESETS[name].with_overrides({"game_length": "east", "claim_pause": True})
    assert game.rules.dead_wall == (16 if name == "dmjl" else 14)  # R16.8: the book's kong box
    await journal.close()
    await engine.dispose()
    app = create_app(db=url, club=OPEN_CLUB)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sparrow") as http:
            detail = (await http.get(f"/api/games/{actor.id}")).json()
    assert detail["ruleset"]["name"] == name
    shown = {d["option"]: d["here"] for d in detail["ruleset"]["differences"]}
    expected = {option: here for option, _, here in differences(RULESETS["classical"], game.rules)}
    assert shown == expected
    assert shown["special_hands"] == name and shown["game_length"] == "east"
    assert shown.get("own_bonus") == ("both" if name == "dmjl" else None)
    assert shown.get("max_chows") == (1 if name == "bmja" else None) and ("limit" in shown) is (name == "bmja")
    assert len(detail["hand_rows"]) == len(game.results)
