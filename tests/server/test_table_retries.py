"""Faults are retried, not dropped (lesson 17): a bot move or a deadline whose write fails is made
again until it is stored, so a table whose database was unwritable for a while plays on afterwards."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from tablekit import Kit

from server.tables.journal import MemoryJournal, Record

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
