"""Who is at the table: a seat whose person never connects is away from the start (with the same
grace as anyone who left), so a bot plays it instead of the table waiting forever."""

from __future__ import annotations

import pytest
from tablekit import Client, Kit

from server.tables.messages import AddBots, Join, Start

pytestmark = pytest.mark.asyncio


async def test_a_seat_whose_person_never_connects_is_played_by_a_bot_after_the_grace() -> None:
    kit = Kit()
    owner = await kit.lobby.create({"name": "T", "player": "Ann", "timers": {"grace": 20, "turn": 600, "claim": 120}})
    actor = kit.lobby.get(str(owner["table"]))
    for name in ("Bob", "Cy"):
        await actor.ask(Join(name))  # seated over HTTP, never opens the table
    await actor.ask(AddBots(str(owner["token"])))
    ann = Client(actor, str(owner["token"]))
    await ann.attach()
    await actor.ask(Start(str(owner["token"])))
    await kit.settle(actor)
    ann.pump()
    seats = ann.state["table"]["seats"]
    assert [s["away"] for s in seats] == [False, True, True, False]
    assert not any(s["substitute"] for s in seats)
    await kit.advance(actor, 21)
    ann.pump()
    assert [s["substitute"] for s in ann.state["table"]["seats"]] == [False, True, True, False]
    # Bob's and Cy's turns are now played for them: the game goes round to Ann again and again.
    for _ in range(6):
        while actor.game.deal.current != 0 or 0 not in actor.game.to_act():
            await kit.advance(actor, 1)
        ann.pump()
        discard = next(a for a in ann.legal if a["type"] == "discard")
        ann.act(discard)
        await kit.settle(actor)
    assert actor.game.version > 12
    await kit.lobby.close()
