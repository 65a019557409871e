"""Tables nobody is at stop (issue 19, point 11): when no seated person has been connected for the
grace period, no clock runs and no bot moves until one comes back; after a long pause the table is
adjourned, listed as such, and a seated person who opens it resumes it. Hands a bot played for an
absent person are marked in the history."""

from __future__ import annotations

from pathlib import Path

import pytest
from tablekit import Client, Kit

from server.history.queries import game_detail
from server.store.journal import SqlJournal
from server.store.migrate import upgrade
from server.store.session import make_engine, make_sessions

pytestmark = pytest.mark.asyncio

TIMERS = {"turn": 5, "claim": 3, "grace": 20, "bot_delay": 0.5}


async def test_a_table_everyone_left_pauses_then_adjourns_then_resumes() -> None:
    kit = Kit()
    actor, clients = await kit.table(humans=2, timers=TIMERS)
    token = clients[0].token
    for c in clients:
        c.detach()
    await kit.settle(actor)
    await kit.advance(actor, 19)
    moved = actor.game.version
    assert actor.paused_since is None
    await kit.advance(actor, 2)  # the grace period is over: nobody is here, the table stops
    assert actor.paused_since is not None and actor.state.public()["paused"] is True
    stopped = actor.game.version
    for _ in range(60):
        await kit.advance(actor, 60)  # an hour: no clock fires, no bot moves
    assert actor.game.version == stopped and kit.clock.pending() == 1  # only the adjournment is due
    assert stopped >= moved
    await kit.advance(actor, 24 * 3600)
    assert actor.status == "adjourned"
    assert await kit.lobby.public_tables() == []  # listed to its players and the admin only
    listed = await kit.lobby.public_tables(1, admin=True)
    assert [t["status"] for t in listed] == ["adjourned"]
    back = Client(actor, token)  # a seated person opens the table: it goes on
    await back.attach()
    await kit.settle(actor)
    back.pump()
    assert actor.status == "playing" and actor.paused_since is None
    assert back.state["table"]["status"] == "playing" and back.state["table"]["paused"] is False
    await kit.advance(actor, 30)
    assert actor.game.version > stopped  # clocks and bots run again
    await kit.lobby.close()


async def test_a_person_coming_back_within_the_grace_keeps_the_table_running() -> None:
    kit = Kit()
    actor, clients = await kit.table(humans=1, timers=TIMERS)
    clients[0].detach()
    await kit.settle(actor)
    await kit.advance(actor, 15)
    back = Client(actor, clients[0].token)
    await back.attach()
    await kit.settle(actor)
    await kit.advance(actor, 30)
    assert actor.paused_since is None and actor.status == "playing"
    await kit.lobby.close()


async def test_hands_a_stand_in_played_are_marked_as_such() -> None:
    kit = Kit()
    actor, clients = await kit.table(humans=2, timers=TIMERS)
    clients[1].detach()  # Bob leaves; Ann stays, so the table plays on and a bot stands in for Bob
    await kit.settle(actor)
    for _ in range(200):
        await kit.advance(actor, 5)
        if any(r.auto == "stand-in" for r in kit.journal.records):
            break
    stand_in = [r for r in kit.journal.records if r.auto == "stand-in"]
    assert stand_in and {r.seat for r in stand_in} == {1}
    assert all(r.auto != "stand-in" for r in kit.journal.records if r.seat in (2, 3))  # real bots are bots
    await kit.lobby.close()


async def test_the_game_page_says_which_hands_a_stand_in_played(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path / 'club.db'}")
    await upgrade(engine)
    journal = SqlJournal(engine)
    try:
        kit = Kit(journal)
        actor, clients = await kit.table(humans=2, timers={**TIMERS, "ready": 3}, overrides={"game_length": "east"})
        clients[1].detach()
        await kit.settle(actor)
        while actor.game.deal_number < 2 and actor.status == "playing":
            await kit.advance(actor, 5)
        async with make_sessions(engine)() as session:
            detail = await game_detail(session, actor.id)
        assert detail is not None
        rows = detail["hand_rows"]
        assert len(rows) >= 2 and all(row["stand_ins"] in ([], [1]) for row in rows)
        assert any(row["stand_ins"] == [1] for row in rows)  # a bot played Bob's hands; the bots' own are not marked
        await kit.lobby.close()
    finally:
        await journal.close()
        await engine.dispose()
