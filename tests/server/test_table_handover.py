"""A table handed to another server process while it plays (server/tables/handover.py), on a fake
clock: rebuilt from its journal, it goes on from the same decision (its token, so that a move sent for
it counts), with the time left on its clocks, the answers held for the fair pause, who is away, and
every socket, each sent a snapshot numbered on from its last update; and a table read beforehand
catches up with the actions played since.
"""

from __future__ import annotations

from typing import Any

import pytest
from tablekit import Client, Kit

from game import view
from server.tables.actor import TableActor
from server.tables.connection import Connection
from server.tables.handover import Baton

pytestmark = pytest.mark.asyncio

TIMERS = {"turn": 30, "claim": 20, "pause": 5, "bot_delay": 0, "ready": None}


def _deciding(client: Client) -> bool:
    game = client.state["game"]
    return bool(game and game["legal_actions"]) and "answer" not in client.state


async def _to_a_claim_both_people_answer(kit: Kit, actor: TableActor, ann: Client, bob: Client) -> None:
    """Play the people's turns (the drawn tile, or the last one offered) and pass their claims until a
    bot's discard opens a claim window that both Ann and Bob are to answer."""
    for _ in range(200):
        for c in (ann, bob):
            c.pump()
        turn = ann.state["game"]["turn"]
        if turn["phase"] != "turn" and _deciding(ann) and _deciding(bob) and turn["from"] not in (0, 1):
            return
        for c in (ann, bob):
            if not _deciding(c):
                continue
            legal = c.legal
            passes = [a for a in legal if a["type"] == "pass"]
            discards = [a for a in legal if a["type"] == "discard"]
            drawn = c.state["game"]["turn"].get("drawn")
            move = passes[0] if passes else next((a for a in discards if a["tile"] == drawn), (discards or legal)[-1])
            c.act(move)
        await kit.advance(actor, 5)  # (the fair pause, for the bots' answers)
    raise AssertionError("no claim window for both people came")


def _moved(kit: Kit, baton: Baton, conns: list[Connection], stored: Any) -> TableActor:
    """The table as the next process runs it: read, caught up, going on from ``baton`` with ``conns``."""
    moved = TableActor.loaded(stored, clock=kit.clock, journal=kit.journal)
    moved.go_on(baton, conns)
    moved.start()
    return moved


async def test_a_table_goes_on_elsewhere_from_the_same_decision_with_its_clocks_its_held_answers_and_sockets() -> None:
    kit = Kit()
    actor, (ann, bob) = await kit.table(humans=2, timers=TIMERS)
    await _to_a_claim_both_people_answer(kit, actor, ann, bob)
    before = ann.state["clock"]
    request = ann.act({"type": "pass"})  # held for the fair pause: Bob has not answered (R6.9)
    await kit.advance(actor, 2)
    ann.pump()
    assert "answer" in ann.state and request not in ann.answers
    seqs = [ann.seq, bob.seq]

    stored = await kit.journal.load(actor.id)  # (read beforehand, as the next process does)
    handed = await actor.hand_over()
    assert handed is not None and actor.status == "closed"
    baton, old = handed
    assert not ann.conn.closed and not bob.conn.closed  # the sockets stay open
    assert [h[0] for h in baton.held] == [0]

    new = {id(conn): Connection(None) for conn in old}  # the same sockets, as the next process holds them
    moved = _moved(kit, baton, [new[id(conn)] for conn in old], stored)
    for c in (ann, bob):
        c.actor, c.conn = moved, new[id(c.conn)]
    await kit.settle(moved)
    for c, seq in zip((ann, bob), seqs, strict=True):
        frames = c.pump()
        assert frames[0]["t"] == "snapshot" and frames[0]["d"]["seq"] == seq + 1  # numbered on
    after = ann.state["clock"]
    assert after == before  # the same decision, token and deadline: nothing started again
    assert ann.state["answer"] == {"type": "pass"} and request not in ann.answers  # still held

    await kit.advance(moved, 2.9)  # the pause had 3 s left
    ann.pump()
    assert request not in ann.answers
    await kit.advance(moved, 0.2)
    ann.pump()
    assert ann.answers[request]["t"] == "ack"  # applied where it went, once the pause ended
    assert moved.game is not None and (0, {"type": "pass"}) in moved.game.log


async def test_a_table_read_beforehand_catches_up_with_the_moves_played_since() -> None:
    kit = Kit()
    actor, (ann,) = await kit.table(humans=1, timers={**TIMERS, "pause": 0.5})
    stored = await kit.journal.load(actor.id)  # read while it still plays
    for _ in range(3):  # then Ann plays three turns, the bots answer
        while not (_deciding(ann) and ann.state["game"]["turn"]["phase"] == "turn"):
            for action in [a for a in ann.legal if a["type"] == "pass"][:1]:
                ann.act(action)
            await kit.advance(actor, 1)
            ann.pump()
        drawn = ann.state["game"]["turn"]["drawn"]
        ann.act(next(a for a in ann.legal if a["type"] == "discard" and a["tile"] == drawn))
        await kit.advance(actor, 1)
        ann.pump()
    assert actor.game is not None and actor.game.version > len(stored.actions)
    played = actor.game.version

    handed = await actor.hand_over()
    assert handed is not None
    baton, old = handed
    moved = TableActor.loaded(stored, clock=kit.clock, journal=kit.journal)
    assert moved.game is not None
    moved.catch_up(actor.game.log[moved.game.version :], list(actor.chat))
    assert moved.game.version == played and view(moved.game, 0) == view(actor.game, 0)
    conn = Connection(None)
    moved.go_on(baton, [conn])
    assert ann.state["clock"]["window"] == moved.window
