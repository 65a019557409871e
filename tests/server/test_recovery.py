"""Crash recovery and graceful shutdown with the server as a real process (issue 5): SIGKILL it in the
middle of a hand and every seat reconnects to exactly the state it had; SIGTERM closes sockets with
1012 and loses nothing that was acknowledged. On SQLite, and on PostgreSQL when it is reachable.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import httpx
import pytest
from dbkit import BACKENDS
from livekit import TIMEOUT, LiveClient, hurried_move
from processkit import ServerProcess, served
from websockets.asyncio.client import connect

pytestmark = [pytest.mark.asyncio, pytest.mark.parametrize("backend", BACKENDS)]

TIMERS = {"bot_delay": 0, "claim": 120, "turn": 600, "ready": None}  # no deadline fires during a test


async def _seat_four(server: ServerProcess) -> tuple[str, list[str]]:
    base = f"http://127.0.0.1:{server.port}"
    async with httpx.AsyncClient(base_url=base, trust_env=False, timeout=TIMEOUT) as http:
        owner = (await http.post("/api/tables", json={"player": "Ann", "timers": TIMERS})).json()
        tokens = [owner["token"]]
        for name in ("Bob", "Cy", "Di"):
            tokens.append((await http.post(f"/api/tables/{owner['table']}/join", json={"name": name})).json()["token"])
        assert (await http.post(f"/api/tables/{owner['table']}/start", json={"token": tokens[0]})).json() == {
            "started": True
        }
    return owner["table"], tokens


async def _connect(server: ServerProcess, table: str, tokens: list[str]) -> list[LiveClient]:
    clients = [LiveClient(await connect(f"ws://127.0.0.1:{server.port}/ws")) for _ in tokens]
    for client, token in zip(clients, tokens, strict=True):
        await client.hello(table, token)
    for client in clients:  # until each sees all four connected
        await client.wait_for(lambda c=client: all(s["connected"] for s in c.state["table"]["seats"]), "everyone")
    return clients


async def _play(clients: list[LiveClient], actions: int, *, until_between: bool = False) -> int:
    done = 0
    while done < actions:
        if until_between and clients[0].game["phase"] != "deal":
            break
        movers = [(c, m) for c in clients if (m := hurried_move(c)) is not None]
        if not movers:
            # Everyone has answered a claim window: it stays open for the fair pause (R6.9).
            # Any seat's frame counts (the seat that discarded may hear nothing while the others answer).
            mark = [len(c.received) for c in clients]
            if not await _any_frame(clients, mark, 5):
                break
            continue
        if (movers[0][0].game["turn"] or {}).get("phase") not in ("claim", "rob"):
            movers = movers[:1]
        movers = movers[: actions - done]
        # Everyone asked answers a claim window at once, as people do: an answer in the fair pause is
        # acknowledged only when the pause ends or every person asked has answered (R6.9).
        window: int = movers[0][0].state["clock"]["window"]
        acked = await asyncio.gather(*(_act(client, move) for client, move in movers))
        for c in clients:
            await c.wait_for(lambda c=c, w=window: _held(c, w), "the update")
        done += sum(acked)
    return done


async def _any_frame(clients: list[LiveClient], mark: list[int], timeout: float) -> bool:
    """Whether any client receives a frame past ``mark`` within ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not any(len(c.received) > m for c, m in zip(clients, mark, strict=True)):
        if loop.time() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


async def _act(client: LiveClient, move: dict[str, Any]) -> bool:
    """Make ``move``; whether it was acknowledged. A client that moved on a state the table had
    already left (its update still on the way: another seat's answer closed the window) is told so,
    as a person's page would be, and tries again on the next state."""
    answer = await client.act(move)
    while answer["t"] == "refused" and answer["d"]["reason"] == "rate/limited":
        await asyncio.sleep(0.2)  # back off as a client must (10 messages/s): the bucket refills with time
        answer = await client.act(move)
    if answer["t"] == "refused" and answer["d"]["reason"] in ("action/window_closed", "window/stale"):
        return False
    assert answer["t"] == "ack", answer
    return True


async def _at_rest(clients: list[LiveClient]) -> None:
    """Play on until the table waits on one seat's discard, which no timer moves during a test, and
    every client holds that decision. A claim window is not at rest: once its fair pause ends it
    closes by itself (R6.9), so a snapshot taken in it can be overtaken by an update on the way."""
    for _ in range(50):
        turns = {((c.game["turn"] or {}).get("phase"), (c.game["turn"] or {}).get("seat")) for c in clients}
        windows = {c.state["clock"]["window"] for c in clients}
        if len(turns) == 1 and next(iter(turns))[0] == "turn" and len(windows) == 1:
            return
        if await _play(clients, 1) == 0:
            mark = [len(c.received) for c in clients]
            await _any_frame(clients, mark, 2)
    raise AssertionError("the table never came to rest on a seat's turn")


def _held(client: LiveClient, window: int) -> bool:
    """Whether ``client`` has held decision ``window`` (tokens are opaque: it may have moved on since)."""
    return any(r.state is not None and r.state["clock"]["window"] == window for r in client.received)


def _comparable(state: dict[str, Any]) -> dict[str, Any]:
    """The state without the deadline, which a restart re-arms from the new start (plus a grace), and
    the decision token, which a restart draws afresh."""
    return {**state, "clock": {**state["clock"], "deadline": None, "window": None}}


async def test_sigkill_mid_hand_then_restart_restores_every_seat_exactly(backend: str, tmp_path: Path) -> None:
    async with served(backend, tmp_path) as server:
        table, tokens = await _seat_four(server)
        clients = await _connect(server, table, tokens)
        assert await _play(clients, 15) == 15
        await _at_rest(clients)
        assert (await clients[1].request("chat", {"text": "before the crash"}))["t"] == "ack"
        for c in clients:
            await c.wait_for(lambda c=c: len(c.state["chat"]) == 1, "the chat line")
        before = [_comparable(c.state) for c in clients]
        assert server.signal(signal.SIGKILL) == -signal.SIGKILL
        for c in clients:
            await c.closed()
        await server.start()
        again = await _connect(server, table, tokens)
        assert [_comparable(c.state) for c in again] == before
        assert all(c.state["clock"]["deadline"] is not None for c in again if c.legal)
        played = await _play(again, 2000, until_between=True)
        assert played > 0 and again[0].game["phase"] in ("between", "over")
        assert again[0].game["result"]["changes"] is not None
        for c in again:
            await c.close()


@pytest.mark.parametrize(
    ("stop", "statuses"),
    [
        (signal.SIGTERM, (0, -signal.SIGTERM)),  # uvicorn re-raises SIGTERM once shut down
        (signal.SIGINT, (0,)),  # Ctrl+C: a stop asked for, status 0
    ],
)
async def test_sigterm_and_ctrl_c_close_sockets_with_1012_quietly_and_keep_every_acknowledged_action(
    backend: str, tmp_path: Path, stop: signal.Signals, statuses: tuple[int, ...]
) -> None:
    async with served(backend, tmp_path) as server:
        table, tokens = await _seat_four(server)
        clients = await _connect(server, table, tokens)
        await _play(clients, 6)
        await _at_rest(clients)
        before = [_comparable(c.state) for c in clients]
        assert server.signal(stop) in statuses
        assert "Traceback" not in (tmp_path / "server.log").read_text()  # a stop asked for is not a crash
        assert [await c.closed() for c in clients] == [1012] * 4
        await server.start()
        again = await _connect(server, table, tokens)
        assert [_comparable(c.state) for c in again] == before
        for c in again:
            await c.close()
