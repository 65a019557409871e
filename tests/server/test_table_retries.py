"""Faults are retried, not dropped (lesson 17): a bot move or a deadline whose write fails is made
again until it is stored, so a table whose database was unwritable for a while plays on afterwards;
and a table whose database stopped answering mid-write waits until it can be read back."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from tablekit import Kit

from server.tables.journal import MemoryJournal, Record, StoredTable, WriteOutcomeUnknown

pytestmark = pytest.mark.asyncio


@dataclass
class FlakyJournal(MemoryJournal):
    """A memory journal whose writes fail while ``failing`` (as a full disk would)."""

    failing: bool = False
    refused: int = 0

    async def record(self, record: Record) -> None:
        if self.failing:
            self.refused += 1
            raise OSError(28, "No space left on device")
        await super().record(record)


@pytest.mark.parametrize("humans", [0, 1])
async def test_bots_and_timers_move_again_once_writes_succeed(humans: int) -> None:
    journal = FlakyJournal()
    kit = Kit(journal)
    actor, clients = await kit.table(humans=max(humans, 1), timers={"turn": 3, "claim": 2, "bot_delay": 0.5})
    if humans == 0:  # the one person is away for good: a substitute plays their seat too
        clients[0].detach()
        await kit.advance(actor, 61)
    await kit.advance(actor, 10)
    before = actor.game.version
    assert before > 0
    journal.failing = True
    for _ in range(20):  # twenty seconds of a full disk
        await kit.advance(actor, 1)
    assert journal.refused >= 5 and actor.game.version == before  # nothing happened that was not stored
    journal.failing = False
    await kit.advance(actor, 6)  # within the longest wait between tries (5 s), plus a move
    assert actor.game.version > before
    stored = journal.tables[actor.id].actions
    assert len(stored) == actor.game.version and stored == [(s, a) for s, a in actor.game.log]
    await kit.lobby.close()


@dataclass
class CutOffJournal(MemoryJournal):
    """A memory journal that, once ``cut``, answers nothing and cannot be read (a database that stopped
    answering): the write under way when it was cut is stored if ``landed``, and its caller is told that
    its outcome is unknown."""

    cut: bool = False
    landed: bool = True

    async def record(self, record: Record) -> None:
        if self.cut:
            if self.landed:
                await super().record(record)
                self.landed = False
            raise WriteOutcomeUnknown("the database stopped answering as the write was committed")
        await super().record(record)

    async def load(self, table: str) -> StoredTable | None:
        if self.cut:
            raise OSError(111, "Connection refused")
        return await super().load(table)


@pytest.mark.parametrize("landed", [True, False])
async def test_a_table_whose_database_stopped_answering_mid_write_waits_and_plays_on(landed: bool) -> None:
    journal = CutOffJournal(landed=landed)
    kit = Kit(journal)
    actor, (client,) = await kit.table(humans=1, timers={"turn": 3, "claim": 2, "bot_delay": 0.5})
    for _ in range(10):
        await kit.advance(actor, 1)
    before = len(journal.tables[actor.id].actions)
    journal.cut = True
    for _ in range(30):  # thirty seconds of a database that does not answer
        await kit.advance(actor, 1)
    assert actor.status == "playing"  # not closed: it waits to be read back
    assert len(journal.tables[actor.id].actions) == before + landed  # and wrote nothing more meanwhile
    client.pump()
    asked = client.chat("still there?")
    await kit.settle(actor)
    client.pump()
    assert client.answers[asked]["d"]["reason"] == "server/storage"
    journal.cut = False
    mark = len(client.frames)
    for _ in range(10):  # read back within the longest wait between tries (5 s), then it moves
        await kit.advance(actor, 1)
    stored = journal.tables[actor.id].actions
    assert len(stored) > before + 1 and stored == [(s, a) for s, a in actor.game.log]
    client.pump()
    assert client.closed is None and "snapshot" in [frame["t"] for frame in client.frames[mark:]]
    await kit.lobby.close()
