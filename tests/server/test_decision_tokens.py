"""The decision token (`clock.window`) is opaque (lesson 16, R12.2): it was the game's action count, so
after a claim window closed every seat could tell how many seats had answered it."""

from __future__ import annotations

import pytest
from tablekit import Kit

from server.protocol import MAX_ID

pytestmark = pytest.mark.asyncio


async def test_tokens_do_not_count_the_actions_between_decisions() -> None:
    kit = Kit()
    actor, clients = await kit.table(humans=1, timers={"turn": 3})
    watcher = clients[0]
    seen: list[tuple[int, int]] = []  # (token, game version when it was seen)
    while actor.status == "playing" and len(seen) < 200:
        token = watcher.state["clock"]["window"]
        if not seen or seen[-1][0] != token:
            seen.append((token, actor.game.version))
        await kit.advance(actor, 3)
        watcher.pump()
    tokens = [t for t, _ in seen]
    assert len(seen) >= 50
    assert all(isinstance(t, int) and 1 <= t <= MAX_ID for t in tokens)
    assert len(set(tokens)) == len(tokens)  # a fresh token for every decision
    # Neither the tokens nor their differences follow the number of actions played in between.
    assert sum(1 for (t, v) in seen if t == v) < 3
    steps = [(b - a, vb - va) for (a, va), (b, vb) in zip(seen, seen[1:], strict=False)]
    assert sum(1 for dt, dv in steps if dt == dv) < 3
    assert sorted(tokens) != tokens


async def test_same_seed_and_moves_give_different_tokens() -> None:
    """Two tables dealt alike, played alike: what a seat holds is the same but for the token."""
    tokens = []
    for _ in range(2):
        kit = Kit()
        actor, clients = await kit.table(humans=1, seed=11)
        tokens.append(clients[0].state["clock"]["window"])
        tokens.append(clients[0].state["game"])
    assert tokens[0] != tokens[2] and tokens[1] == tokens[3]
