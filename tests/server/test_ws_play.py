"""Four people play a whole hand over real sockets against a live server (uvicorn + `websockets`)."""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from typing import Any

import pytest
from livekit import LiveClient, LiveServer, within

from game.notation import parse_tiles
from game.view import view

_CONCEALED = re.compile(r"\bconcealed\b")  # the field, not rule options such as concealed_doubles


def _choose(game: dict[str, Any]) -> dict[str, Any]:
    """A simple player choosing from its own legal actions: win, claim a pung or kong, pass any other
    claim; in its turn discard its loneliest tile (an honour on its own first, a pair never).
    """
    legal: list[dict[str, Any]] = game["legal_actions"]
    for kind in ("win", "kong", "pung", "pass"):
        for action in legal:
            if action["type"] == kind:
                return action
    discards = [a for a in legal if a["type"] == "discard"]
    if not discards:
        return legal[0]
    held = Counter(t.code for t in parse_tiles(game["seats"][game["seat"]]["concealed"]))

    def loneliness(action: dict[str, Any]) -> int:
        tile: str = action["tile"]
        if held[tile] > 1:
            return 0
        if tile[0].isdigit():  # a suit tile: worse alone than with a neighbour to build a chow on
            rank, suit = int(tile[0]), tile[1:]
            return 1 if any(held[f"{rank + d}{suit}"] for d in (-2, -1, 1, 2)) else 2
        return 3

    return max(discards, key=loneliness)


def _deal_running(state: Any) -> bool:
    game = state["game"] if state else None
    return game is not None and game["phase"] == "deal"


async def _play_hand(client: LiveClient) -> int:
    """Act from this seat's own legal actions until the deal ends; how many actions it took."""
    acted = 0
    while True:
        await client.wait_for(lambda: not _deal_running(client.state) or client.deciding, "a decision or the end")
        if not _deal_running(client.state):
            return acted
        answer = await client.act(_choose(client.game))
        while answer["t"] == "refused" and answer["d"]["reason"] == "rate/limited":
            await asyncio.sleep(0.2)  # back off as a client must: a pause after every discard asks for many passes
            answer = await client.act(_choose(client.game))
        # The table queues its diff before the answer, so by now the state shows the outcome.
        if answer["t"] == "refused":
            # A claim resolves as soon as no unanswered seat could outrank it (R6.3), so an answer
            # sent meanwhile by an outranked seat arrives too late: refused, never applied.
            assert answer["d"]["reason"] == "window/stale", answer
            continue
        assert answer["t"] == "ack", answer
        acted += 1


def _assert_saw_only_its_own_tiles(client: LiveClient, seat: int | None) -> None:
    """Until the deal ends (R12.3 then shows every hand), no frame carries another seat's concealed
    tiles: the state rebuilt after each frame holds only this seat's, and the frame's text names the
    field at most once (for this seat; never for a spectator), whatever the diff format.
    """
    for got in client.received:
        if got.frame["t"] not in ("snapshot", "diff"):
            continue
        game = got.state["game"]
        if game is not None and game["phase"] != "deal":
            break  # the deal is over: every hand is face up from here on
        mentions = len(_CONCEALED.findall(got.raw))
        assert mentions <= (0 if seat is None else 1), f"seat {seat} was sent {got.raw}"
        if game is not None:
            shown = {s["seat"] for s in game["seats"] if "concealed" in s}
            assert shown == ({seat} if seat is not None else set()), f"seat {seat} sees the hands of {shown}"
            turn = game["turn"]
            assert "drawn" not in (turn or {}) or turn["seat"] == seat, f"seat {seat} saw another's draw"


@pytest.mark.asyncio
@pytest.mark.parametrize("seed", [7, 60, 55])  # when written: a win on a discard, a self-draw, a wash-out
async def test_four_sockets_play_a_hand_each_seeing_only_its_own_tiles(seed: int) -> None:
    async with LiveServer.running(seed=seed) as live:
        # No fair pause (R6.9): at its end the table passes for a seat that could only pass and had not
        # yet said so, which a busy machine's slow client may not have; here every action is a socket's.
        table_id, tokens = await live.seat_four(overrides={"claim_pause": False})
        clients = [await live.attach(table_id, token) for token in tokens]
        watcher = await live.attach(table_id, None)
        for seat, client in enumerate(clients):
            assert client.state["seat"] == seat and client.game is None  # waiting: nothing dealt yet
        await live.start(table_id, tokens[0])

        acted = await asyncio.wait_for(asyncio.gather(*(_play_hand(c) for c in clients)), within(20))

        actor = live.table(table_id)
        assert actor.game is not None and actor.game.phase.value in ("between", "over")
        assert sum(acted) == actor.game.version  # every action came from a socket; none from a timer
        await watcher.wait_for(lambda: not _deal_running(watcher.state), "the watcher to see the end")
        for seat, client in enumerate([*clients, watcher]):
            who = seat if seat < 4 else None
            assert client.game == view(actor.game, who)  # snapshot + diffs rebuilt exactly the server's view
            assert client.state == json.loads(json.dumps(actor.state.document(who)))
            assert client.game["result"] is not None
            _assert_saw_only_its_own_tiles(client, who)
            # After the deal every hand is face up to everyone, spectators too (R12.3).
            assert all("concealed" in s for s in client.game["seats"])
