from __future__ import annotations

import pytest
from tablekit import Kit

from game.view import view


@pytest.mark.asyncio
async def test_bots_play_a_hand_and_clients_follow() -> None:
    kit = Kit()
    actor, clients = await kit.table(humans=1)
    (ann,) = clients
    for _ in range(2000):
        ann.pump()
        legal = ann.legal
        if legal and "answer" not in ann.state:
            ann.act(legal[-1])
        await kit.advance(actor, 0.5)  # a claim window lasts at least the fair pause (R6.9)
        ann.pump()
        assert ann.state["game"] == view(actor.game, 0)
        if actor.game.phase.value == "between":
            break
    assert actor.game.phase.value == "between"
