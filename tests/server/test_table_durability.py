"""Durability first (ARCHITECTURE lesson 11): no seat hears of an action before the journal holds it,
and an action the journal cannot hold is refused and changes nothing.
"""

from __future__ import annotations

import asyncio

import pytest
from tablekit import Client, Kit

from game.view import view
from server.tables.journal import MemoryJournal, Record


class GatedJournal(MemoryJournal):
    """A memory journal whose action records wait for the test to let them through (or fail them)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate: asyncio.Event | None = None
        self.fail_next = False

    async def record(self, record: Record) -> None:
        if self.fail_next:
            self.fail_next = False
            raise OSError("disk full")
        if self.gate is not None:
            await self.gate.wait()
        await super().record(record)


def discarder(clients: list[Client]) -> Client:
    """The client whose turn it is to discard."""
    (client,) = [c for c in clients if any(a["type"] == "discard" for a in c.legal)]
    return client


async def turns(n: int = 20) -> None:
    for _ in range(n):
        await asyncio.sleep(0)


@pytest.mark.asyncio
async def test_no_seat_hears_of_an_action_before_the_journal_holds_it() -> None:
    journal = GatedJournal()
    kit = Kit(journal)
    actor, clients = await kit.table(humans=4, timers={"turn": None})
    stored = len(journal.records)
    journal.gate = asyncio.Event()
    player = discarder(clients)
    request = player.act(next(a for a in player.legal if a["type"] == "discard"))
    await turns()
    assert [c.pump() for c in clients] == [[], [], [], []]  # the write is not durable: nobody is told
    assert len(journal.records) == stored

    journal.gate.set()
    await kit.settle(actor)
    assert len(journal.records) == stored + 1
    for c in clients:
        assert [f["t"] for f in c.pump()] == ["diff"]  # every seat sees the discard, once
        assert c.state["game"] == view(actor.game, c.conn.seat)
    assert player.answers[request]["t"] == "ack"


@pytest.mark.asyncio
async def test_an_action_the_journal_cannot_hold_is_refused_and_changes_nothing() -> None:
    journal = GatedJournal()
    kit = Kit(journal)
    actor, clients = await kit.table(humans=4, timers={"turn": None})
    assert actor.game is not None
    version, stored = actor.game.version, len(journal.records)
    player = discarder(clients)
    discard = next(a for a in player.legal if a["type"] == "discard")
    journal.fail_next = True
    request = player.act(discard)
    await kit.settle(actor)
    assert [f["t"] for f in player.pump()] == ["refused"]
    refused = player.answers[request]
    assert refused["t"] == "refused" and refused["d"]["reason"] == "server/storage"
    assert [c.pump() for c in clients if c is not player] == [[], [], []]
    assert actor.game.version == version and len(journal.records) == stored
    assert player.state["game"] == view(actor.game, player.conn.seat)

    again = player.act(discard)  # the same discard, once the journal can hold it, is played
    await kit.settle(actor)
    player.pump()
    assert player.answers[again]["t"] == "ack"
    assert actor.game.version == version + 1 and len(journal.records) == stored + 1
    for c in clients:
        c.pump()
        assert c.state["game"] == view(actor.game, c.conn.seat)
