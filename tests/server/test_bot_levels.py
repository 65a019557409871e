"""Bot levels at a table (issue 22): the owner picks easy, normal or strong when filling the seats,
every seat sees each bot's level, a bot plays at its level from its own seat's view, and the level is
stored with the seat, so a restart keeps it."""

from __future__ import annotations

from pathlib import Path

import pytest
from dbkit import BACKENDS, journal_on
from tablekit import Client, Kit

from game.bots import make_bot
from game.game import Game, GamePhase
from game.seatview import SeatView
from server.lobby import Lobby
from server.tables.errors import TableError
from server.tables.messages import AddBots, Start

pytestmark = pytest.mark.asyncio


async def _table(kit: Kit) -> tuple[str, str]:
    owner = await kit.lobby.create({"name": "Levels", "player": "Ann", "timers": {"bot_delay": 0}}, seed=11)
    return str(owner["table"]), str(owner["token"])


async def test_the_owner_picks_a_level_and_everyone_sees_it() -> None:
    kit = Kit()
    table, token = await _table(kit)
    actor = kit.lobby.get(table)
    for bad in ("grandmaster", 3, ["strong"]):
        with pytest.raises(TableError) as refused:
            await actor.ask(AddBots(token, None, bad))
        assert refused.value.reason == "bot/bad_level"
    assert actor.seats[1:] == [None, None, None]  # a refusal seats nobody
    assert await actor.ask(AddBots(token, None, "strong")) == {"added": [1, 2, 3]}
    watcher = Client(actor, None)
    await watcher.attach()
    await kit.settle(actor)
    watcher.pump()
    seats = watcher.state["table"]["seats"]
    assert [s["level"] for s in seats] == [None, "strong", "strong", "strong"]


async def test_a_bot_left_without_a_level_plays_normal() -> None:
    kit = Kit()
    table, token = await _table(kit)
    actor = kit.lobby.get(table)
    await actor.ask(AddBots(token))
    assert [s.level if s else None for s in actor.seats] == [None, "normal", "normal", "normal"]


@pytest.mark.parametrize("level", ["normal", "strong"])
async def test_each_bot_move_is_what_its_level_decides_from_its_own_view(level: str) -> None:
    """Every move the bots made at the table is the move a bot of that level makes from that seat's
    view of the game at that moment (the deterministic levels, replayed from the table's log)."""
    kit = Kit()
    table, token = await _table(kit)
    actor = kit.lobby.get(table)
    await actor.ask(AddBots(token, None, level))
    ann = Client(actor, token)
    await ann.attach()
    await actor.ask(Start(token))
    await kit.settle(actor)
    for _ in range(200):  # Ann's clock runs out on every turn of hers; the bots play theirs
        ann.pump()
        if actor.game.phase is not GamePhase.DEAL:
            break
        await kit.advance(actor, 10)
    records = [r for r in kit.journal.records if r.table == table]
    bot_moves = [r for r in records if r.auto == "bot"]
    assert len(bot_moves) > 20
    game = Game(actor.game.rules, actor.seed)
    reference = make_bot(level, 0)
    for record in records:
        if record.auto == "bot":
            assert reference.decide(SeatView.of(game, record.seat)).to_json() == record.action
        game.apply(record.seat, record.action)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_levels_are_stored_with_the_seats_and_survive_a_restart(backend: str, tmp_path: Path) -> None:
    async with journal_on(backend, tmp_path) as (journal, _engine):
        kit = Kit(journal)
        table, token = await _table(kit)
        await kit.lobby.get(table).ask(AddBots(token, None, "easy"))
        await kit.lobby.close()
        again = Lobby(clock=kit.clock, journal=journal)
        assert await again.restore() == 1
        restored = again.get(table)
        assert [s.level if s else None for s in restored.seats] == [None, "easy", "easy", "easy"]
        assert restored.state.public()["seats"][2]["level"] == "easy"
        await again.close()
