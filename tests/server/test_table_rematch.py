"""Play again with the same seats: once a game is over its owner opens a new table with the same
settings, the same people in the same seats (their seat tokens work there) and the bots; everyone at
the old table learns where it is; nobody else can do it, nor before the end.
"""

from __future__ import annotations

import pytest
from tablekit import Client, Kit

from server.tables.errors import TableError
from server.tables.messages import Join, Start

pytestmark = pytest.mark.asyncio


async def test_the_owner_of_a_finished_game_plays_again_with_the_same_seats() -> None:
    kit = Kit()
    old, clients = await kit.table(humans=2, seed=5, overrides={"game_length": "east"}, timers={"turn": 3})
    ann, bob = clients
    watcher = Client(old, None)
    await watcher.attach()
    with pytest.raises(TableError) as early:
        await kit.lobby.rematch(old.id, ann.token, None)
    assert early.value.reason == "table/not_over"
    while old.status == "playing":
        await kit.advance(old, 3)
        for client in (ann, bob, watcher):
            client.pump()  # a client that reads nothing is dropped, as a browser would be
    with pytest.raises(TableError) as not_owner:
        await kit.lobby.rematch(old.id, bob.token, None)
    assert not_owner.value.reason == "table/not_owner"

    made = await kit.lobby.rematch(old.id, ann.token, None)
    assert await kit.lobby.rematch(old.id, ann.token, None) == made  # asked twice: one new table
    new = kit.lobby.get(str(made["table"]))
    await kit.settle(old)
    for client in (ann, bob, watcher):
        client.pump()
        assert client.state["table"]["rematch"] == new.id
    assert new.status == "waiting" and new.settings == old.settings
    assert [s.name if s else None for s in new.seats] == ["Ann", "Bob", "Bot 1", "Bot 2"]
    assert [s.bot if s else None for s in new.seats] == [False, False, True, True]
    assert new.owner == 0

    with pytest.raises(TableError) as seat_taken:  # nobody else can sit: the seats are theirs
        await new.ask(Join("Mallory"))
    assert seat_taken.value.reason == "seat/full"
    with pytest.raises(TableError):
        await new.ask(Start(bob.token))  # Bob's token is his seat's, not the owner's
    bob_again = Client(new, bob.token)
    await bob_again.attach()
    await kit.settle(new)
    bob_again.pump()
    assert bob_again.state["seat"] == 1
    assert await new.ask(Start(ann.token)) == {"started": True}


async def test_a_rematch_table_is_stored_with_its_seats() -> None:
    kit = Kit()
    old, clients = await kit.table(humans=1, seed=5, overrides={"game_length": "east"}, timers={"turn": 3})
    while old.status == "playing":
        await kit.advance(old, 3)
    made = await kit.lobby.rematch(old.id, clients[0].token, None)
    stored = kit.journal.tables[made["table"]]
    assert [s.name if s else None for s in stored.seats] == ["Ann", "Bot 1", "Bot 2", "Bot 3"]
    assert stored.owner == 0 and stored.status == "waiting"


async def test_a_private_games_rematch_is_shown_to_its_seated_players_only() -> None:
    kit = Kit()
    old, clients = await kit.table(
        humans=2, seed=5, public=False, overrides={"game_length": "east"}, timers={"turn": 3}
    )
    ann, bob = clients
    watcher = Client(old, None)  # someone who had the private table's link and watched the game
    await watcher.attach()
    while old.status == "playing":
        await kit.advance(old, 3)
        for client in (ann, bob, watcher):
            client.pump()
    made = await kit.lobby.rematch(old.id, ann.token, None)
    await kit.settle(old)
    for client in (ann, bob, watcher):
        client.pump()
    assert ann.state["table"]["rematch"] == bob.state["table"]["rematch"] == made["table"]
    assert watcher.state["table"]["rematch"] is None
    assert (await kit.lobby.show(old.id))["rematch"] is None  # GET /api/tables/{id}, as anyone may
    assert all(t["rematch"] is None for t in kit.lobby.all_tables())
    late = Client(old, None)  # a spectator who comes after the rematch was made
    await late.attach()
    await kit.settle(old)
    late.pump()
    assert late.state["table"]["rematch"] is None and late.state["table"]["status"] == old.status
