"""A full server makes room (issue 31: no visitor can exhaust the server): when it runs as many tables
as it may, a new table or an adjourned one being opened takes the place of a table nobody is at, the
one that has waited longest, with nothing lost: a game paused because everyone left is adjourned (as a
day of that pause would adjourn it) and plays on when it is opened again. Only when every table has
someone at it, or waits for players, is the server full."""

from __future__ import annotations

import pytest
from tablekit import Client, Kit

from server.tables.actor import TableActor
from server.tables.errors import TableError

pytestmark = pytest.mark.asyncio

TIMERS = {"turn": 5, "claim": 3, "grace": 20, "bot_delay": 0.5}


async def left_by_everyone(kit: Kit, seed: int) -> tuple[TableActor, Client]:
    """A game Ann started with three bots, played a little, then left: it pauses after the grace period."""
    actor, (ann,) = await kit.table(humans=1, timers=TIMERS, seed=seed)
    await kit.advance(actor, 10)
    ann.detach()
    await kit.settle(actor)
    await kit.advance(actor, 30)
    assert actor.deserted_since is not None and actor.status == "playing"
    return actor, ann


async def test_a_full_server_adjourns_the_longest_deserted_game_for_a_new_table_and_it_plays_on_when_opened() -> None:
    kit = Kit()
    kit.lobby.max_tables = 3
    first, ann = await left_by_everyone(kit, seed=1)
    second, _ = await left_by_everyone(kit, seed=2)
    busy, (bob,) = await kit.table(humans=1, timers=TIMERS, seed=3)  # someone is here: it never goes
    version, log = first.game.version, list(first.game.log)

    made = await kit.lobby.create({"name": "New", "player": "Cy"}, seed=4)
    assert first.id not in kit.lobby.tables and first.done  # out of memory, its timers gone
    assert kit.journal.tables[first.id].status == "adjourned"  # stored, to be brought back
    assert set(kit.lobby.tables) == {second.id, busy.id, str(made["table"])}

    back = await kit.lobby.find(first.id)  # opened again while full: the next deserted game makes room
    assert back is not None and back is not first
    assert second.id not in kit.lobby.tables and kit.journal.tables[second.id].status == "adjourned"
    assert back.game.version == version and back.game.log == log
    assert ann.token is not None
    again = Client(back, ann.token)
    await again.attach()
    await kit.settle(back)
    again.pump()
    assert back.status == "playing" and again.state["seat"] == 0
    for _ in range(10):
        await kit.advance(back, 5)
    assert back.game.version > version  # bots and clocks run again

    # every table has someone at it, or waits for players: the server is full, and says so
    with pytest.raises(TableError) as full:
        await kit.lobby.create({"name": "One more", "player": "Di"}, seed=5)
    assert full.value.reason == "server/full" and full.value.status == 503
    assert set(kit.lobby.tables) == {back.id, busy.id, str(made["table"])}
    assert bob.actor is busy and busy.status == "playing"
    await kit.lobby.close()


async def test_a_finished_game_nobody_is_at_makes_room_before_a_paused_one() -> None:
    kit = Kit()
    kit.lobby.max_tables = 2
    paused, _ = await left_by_everyone(kit, seed=1)
    finished, (ann,) = await kit.table(humans=1, seed=2, overrides={"game_length": "east"}, timers={"turn": 3})
    while finished.status == "playing":  # Ann times out every turn, the bots play
        await kit.advance(finished, 3)
    ann.detach()
    await kit.settle(finished)
    assert finished.quiet_since is not None
    kit.clock.advance(1)
    await kit.lobby.create({"name": "New", "player": "Cy"}, seed=3)
    assert finished.id not in kit.lobby.tables and paused.id in kit.lobby.tables
    assert paused.status == "playing"  # still paused in memory, not adjourned
    assert kit.journal.tables[finished.id].status == "over"  # its game stays in the history
    await kit.lobby.close()


async def test_a_deserted_game_that_cannot_be_stored_as_adjourned_stays_and_the_server_says_it_is_full() -> None:
    kit = Kit()
    kit.lobby.max_tables = 1
    paused, _ = await left_by_everyone(kit, seed=1)
    version = paused.game.version
    stored = kit.journal.adjourned

    async def unreachable(table: str) -> None:
        raise OSError("the database is out of reach")

    kit.journal.adjourned = unreachable
    for _ in range(3):  # asked again and again: refused each time, and nothing is lost
        with pytest.raises(TableError) as full:
            await kit.lobby.create({"name": "New", "player": "Cy"}, seed=2)
        assert full.value.reason == "server/full"
    assert set(kit.lobby.tables) == {paused.id} and paused.status == "playing" and not paused.done
    assert paused.game.version == version and kit.journal.tables[paused.id].status == "playing"

    kit.journal.adjourned = stored  # the database is back: the next new table makes room
    made = await kit.lobby.create({"name": "New", "player": "Cy"}, seed=2)
    assert set(kit.lobby.tables) == {str(made["table"])}
    assert kit.journal.tables[paused.id].status == "adjourned"
    await kit.lobby.close()
