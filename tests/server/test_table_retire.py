"""A finished table leaves the server's memory once nobody has been at it for a while; its game stays
stored, and the table's address then leads to the game in the history (see test_history_api)."""

from __future__ import annotations

import pytest
from tablekit import Client, Kit

from server.lobby import RETIRE_AFTER
from server.tables.errors import TableError

pytestmark = pytest.mark.asyncio


async def test_a_finished_table_nobody_is_at_leaves_after_a_while_and_its_game_stays_stored() -> None:
    kit = Kit()
    done, (ann,) = await kit.table(humans=1, seed=7, overrides={"game_length": "east"}, timers={"turn": 3})
    while done.status == "playing":
        await kit.advance(done, 3)
        ann.pump()
    playing, _ = await kit.table(humans=1, seed=3)
    watcher = Client(done, None)
    await watcher.attach()
    await kit.settle(done)

    kit.clock.advance(RETIRE_AFTER + 60)
    assert await kit.lobby.retire() == []  # people are still looking at the final scores
    ann.detach()
    await kit.settle(done)
    kit.clock.advance(RETIRE_AFTER / 2)
    assert await kit.lobby.retire() == []  # one still is
    watcher.detach()
    await kit.settle(done)
    kit.clock.advance(RETIRE_AFTER - 1)
    assert await kit.lobby.retire() == []  # not yet: the quiet began when the last one left
    kit.clock.advance(2)
    assert await kit.lobby.retire() == [done.id]

    with pytest.raises(TableError) as gone:
        kit.lobby.get(done.id)
    assert gone.value.status == 404
    assert all(t["id"] != done.id for t in kit.lobby.all_tables())
    assert kit.journal.tables[done.id].status == "over"  # the game itself stays, for the history
    assert kit.lobby.get(playing.id) is playing and playing.status == "playing"  # never let go
