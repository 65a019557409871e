from __future__ import annotations

import pytest
from tablekit import Kit

from game.view import view


@pytest.mark.asyncio
async def test_bots_play_a_hand_and_clients_follow() -> None:
    kit = Kit()
    actor, clients = await kit.table(humans=1)
    (ann,) = clients
    for _ in range(300):
        ann.pump()
        legal = ann.legal
        if legal:
            ann.act(legal[-1])
        await kit.settle(actor)
        ann.pump()
        assert ann.state["game"] == view(actor.game, 0)
        if actor.game.phase.value == "between":
            break
    assert actor.game.phase.value == "between"
