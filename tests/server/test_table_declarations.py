"""Original Call (R5.4) at a live table: offered to the seat, declared through the protocol, shown to
every seat, written to the journal and declared again when the table is restored from it."""

from __future__ import annotations

import pytest
from tablekit import Kit

from server.lobby import Lobby

pytestmark = pytest.mark.asyncio

# With this seed the dealer's 14 tiles are one discard (N) from a ready hand.
SEED = 1528
CALL = {"type": "original_call", "tile": "N"}


async def test_original_call_is_declared_at_a_table_and_restored_from_its_journal() -> None:
    kit = Kit()
    actor, [ann] = await kit.table(humans=1, seed=SEED, overrides={"original_call": True})
    assert CALL in ann.legal and {"type": "discard", "tile": "N"} in ann.legal
    request = ann.act(CALL)
    await kit.settle(actor)
    ann.pump()
    assert ann.answers[request]["t"] == "ack"
    assert ann.state["game"]["seats"][0]["original_call"] == "declared"
    assert actor.game.deal.discards[0].tile.code == "N"
    assert any(r.action == CALL for r in kit.journal.records if r.seat == 0)
    digest = actor.game.digest()
    table = actor.id
    await kit.lobby.close()
    again = Lobby(clock=kit.clock, journal=kit.journal)
    assert await again.restore() == 1
    restored = again.get(table)
    assert restored.game.deal.calls[0] == "declared" and restored.game.digest() == digest
    await again.close()


async def test_a_table_without_the_option_refuses_the_call() -> None:
    kit = Kit()
    actor, [ann] = await kit.table(humans=1, seed=SEED)
    assert CALL not in ann.legal
    request = ann.act(CALL)
    await kit.settle(actor)
    ann.pump()
    refused = ann.answers[request]
    assert refused["t"] == "refused" and "Original Call" in refused["d"]["message"]
    assert "original_call" not in ann.state["game"]["seats"][0]
    await kit.lobby.close()
