"""The ready hint is a table's option, off unless its owner turns it on; each seat's state carries
only its own hint, and a spectator's none."""

from __future__ import annotations

import pytest
from tablekit import Kit

from game.hints import ready_hint
from server.tables.errors import TableError

pytestmark = pytest.mark.asyncio


async def test_each_seat_gets_its_own_hint_only_when_the_table_offers_it() -> None:
    kit = Kit()
    actor, clients = await kit.table(humans=2, seed=4, hints=True, timers={"turn": 3})
    assert actor.settings.hints
    shown = 0
    for _ in range(300):  # the people time out, the bots play: the bots' hands become ready now and then
        game = actor.game
        assert game is not None
        for client in clients:
            client.pump()
        documents = actor.state.documents([0, 1, 2, 3, None])
        for seat in range(4):
            expected = [{"tile": t.code, "unseen": n} for t, n in ready_hint(game.deal, seat)]
            assert documents[seat].get("hint", []) == expected  # none between hands
            shown += bool(expected)
        assert "hint" not in documents[None]  # a spectator has no hand to hint at
        for client in clients:  # what each person's socket holds is their own seat's hint
            assert client.state.get("hint", []) == documents[client.state["seat"]].get("hint", [])
        if shown >= 3 or actor.status != "playing":
            break
        await kit.advance(actor, 3)
    assert shown >= 3, "no hand was ever ready"

    plain, others = await kit.table(humans=2, seed=4)
    assert not plain.settings.hints and all("hint" not in c.state for c in others)


async def test_the_option_must_be_true_or_false() -> None:
    with pytest.raises(TableError) as refused:
        await Kit().lobby.create({"name": "T", "player": "Ann", "hints": "yes"})
    assert refused.value.reason == "table/bad_hints"
