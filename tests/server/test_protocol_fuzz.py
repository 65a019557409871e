"""Protocol fuzzing against a live server over real sockets: more than 10,000 hostile messages of
every kind (bad ids and numbers, deep nesting, oversized and binary frames, wrong types in every
field, unknown tags, stale tokens, other seats' moves, spectators acting, bad chat, illegal actions,
floods). Each is answered with a refusal whose code docs/protocol.md lists; afterwards every table
still plays; and a real `sparrow serve` stops on a single SIGTERM after the same abuse."""

from __future__ import annotations

import asyncio
import json
import random
import re
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from livekit import TIMEOUT, LiveClient, LiveServer, turn_seat
from processkit import ServerProcess, free_port
from websockets.asyncio.client import connect

from server.ws import SocketConfig

pytestmark = pytest.mark.asyncio

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
DOCUMENTED = set(re.findall(r"`([a-z_]+/[a-z_]+)`", DOC))
SEED = 20261124
PER_SOCKET = 3400  # three sockets: over 10,000 messages

Hostile = Callable[[random.Random, dict[str, Any]], str | bytes]


def _junk(rng: random.Random) -> Any:
    return rng.choice([None, True, -1, 2**64, 1.5, "x" * rng.randint(0, 50), [], {}, [[[]]], {"a": {"b": 1}}])


def _bad_id(rng: random.Random, ctx: dict[str, Any]) -> str:
    request = rng.choice(
        [
            "18446744073709551616",
            "9007199254740992",
            "-1",
            "-9999999999999999999999",
            "1.5",
            "true",
            "false",
            "null",
            '"7"',
            "[]",
            "{}",
            "1e400",
            "-0.0",
        ]
    )
    tag = rng.choice(["act", "chat"])
    body = '{"action": {"type": "pass"}, "window": 1}' if tag == "act" else '{"text": "hi"}'
    return f'{{"t": "{tag}", "id": {request}, "d": {body}}}'


def _deep(rng: random.Random, ctx: dict[str, Any]) -> str:
    depth = rng.randint(17, 1900)
    opener, closer = rng.choice([("[", "]"), ('{"a":', "}")])
    inner = opener * depth + "1" + closer * depth
    return rng.choice([inner, f'{{"t": "ping", "d": {{"x": {inner}}}}}', "[" * depth])


def _oversized(rng: random.Random, ctx: dict[str, Any]) -> str:
    return json.dumps({"t": "chat", "id": ctx["id"], "d": {"text": "x" * rng.randint(4100, 20000)}})


def _binary(rng: random.Random, ctx: dict[str, Any]) -> bytes:
    return rng.choice([b"\x00\xff\xfe", json.dumps({"t": "ping"}).encode(), rng.randbytes(rng.randint(1, 300))])


def _not_json(rng: random.Random, ctx: dict[str, Any]) -> str:
    return rng.choice(
        [
            "{not json",
            "",
            " ",
            "[1, 2",
            '"string"',
            "42",
            "null",
            "true",
            "{'t': 'ping'}",
            "\ufeff{}",
            "".join(chr(rng.randint(32, 0x2FFF)) for _ in range(rng.randint(1, 80))),
        ]
    )


def _unknown(rng: random.Random, ctx: dict[str, Any]) -> str:
    tag = rng.choice(["dance", "ACT", "Act", "", "hello2", "snapshot", "diff", "refused"])
    return json.dumps({"t": tag, "id": ctx["id"]})


def _wrong_types(rng: random.Random, ctx: dict[str, Any]) -> str:
    shape = rng.choice(["no_d", "d", "action", "window", "seat", "tag"])
    frame: dict[str, Any] = {
        "t": "act",
        "id": ctx["id"],
        "d": {"action": {"type": "discard", "tile": "zz"}, "window": ctx["window"]},
    }
    if shape == "no_d":
        frame["d"] = {}
    elif shape == "d":
        frame["d"] = rng.choice([[], "x", 5, True])
    elif shape == "action":
        frame["d"]["action"] = rng.choice(
            [
                5,
                [],
                "pass!",
                {"type": 3},
                {"type": "fly"},
                {"type": "chow", "tiles": 7},
                {"type": "discard", "tile": ["1b"]},
                None,
            ]
        )
    elif shape == "window":
        frame["d"]["window"] = rng.choice([None, "1", [1], {"w": 1}, -1, 2**53, 2**64, 1.25, True])
    elif shape == "seat":
        frame["d"]["seat"] = rng.choice([-1, 4, 2**70, "0", True, [0], 1.0])
    else:
        frame["t"] = _junk(rng)
    return json.dumps(frame)


def _stale(rng: random.Random, ctx: dict[str, Any]) -> str:
    window = rng.choice([w for w in (0, 1, rng.randint(1, 2**53 - 1)) if w != ctx["window"]])
    return json.dumps({"t": "act", "id": ctx["id"], "d": {"action": {"type": "pass"}, "window": window}})


def _other_seat(rng: random.Random, ctx: dict[str, Any]) -> str:
    seat = rng.choice([s for s in range(4) if s != ctx["seat"]])
    action = {"type": "discard", "tile": "1b"}
    return json.dumps({"t": "act", "id": ctx["id"], "d": {"action": action, "window": ctx["window"], "seat": seat}})


def _bad_chat(rng: random.Random, ctx: dict[str, Any]) -> str:
    text = rng.choice(["", "   ", "x" * 301, "bell\x07", "zero\u200bwidth", "\ue000", 5, None, ["hi"], {"text": "x"}])
    return json.dumps({"t": "chat", "id": ctx["id"], "d": {"text": text}})


def _illegal(rng: random.Random, ctx: dict[str, Any]) -> str:
    action = rng.choice(
        [
            {"type": "discard", "tile": "zz"},
            {"type": "discard", "tile": 9},
            {"type": "fly"},
            {"type": "chow", "tiles": ["1b", "1b"]},
            {"type": "kong", "tile": "Q"},
            {"type": "ready"},
            {"type": "win", "extra": "x" * 100},
            {},
        ]
    )
    return json.dumps({"t": "act", "id": ctx["id"], "d": {"action": action, "window": ctx["window"]}})


def _hello_again(rng: random.Random, ctx: dict[str, Any]) -> str:
    return json.dumps({"t": "hello", "d": {"table": "x" * rng.randint(0, 40), "token": _junk(rng)}})


KINDS: list[Hostile] = [
    _bad_id,
    _deep,
    _oversized,
    _binary,
    _not_json,
    _unknown,
    _wrong_types,
    _stale,
    _other_seat,
    _bad_chat,
    _illegal,
    _hello_again,
]


async def _abuse(client: LiveClient, rng: random.Random, count: int, seat: int | None) -> dict[str, int]:
    """Send ``count`` hostile messages, pipelined; wait for as many refusals; their reasons, counted."""
    mark = client.mark()
    window = client.state["clock"]["window"]
    for n in range(count):
        ctx = {"id": 10_000 + n, "window": window, "seat": seat}
        await client.ws.send(rng.choice(KINDS)(rng, ctx))
        if n % 200 == 0:
            await asyncio.sleep(0)  # let the reader keep up
    answered = lambda: sum(1 for r in client.received[mark:] if r.frame["t"] == "refused")  # noqa: E731
    await client.wait_for(lambda: answered() >= count, f"{count} refusals", timeout=120)
    frames = [r.frame for r in client.received[mark:]]
    assert all(f["t"] in ("refused", "diff") for f in frames), [f for f in frames if f["t"] not in ("refused", "diff")]
    assert answered() == count  # exactly one answer each
    reasons: dict[str, int] = {}
    for f in frames:
        if f["t"] == "refused":
            reasons[f["d"]["reason"]] = reasons.get(f["d"]["reason"], 0) + 1
            assert f["d"]["message"], f
    return reasons


def _legal_move(client: LiveClient) -> dict[str, Any]:
    legal = client.legal
    for kind in ("pass", "discard"):
        for action in legal:
            if action["type"] == kind:
                return action
    return legal[0]


async def test_ten_thousand_hostile_messages_are_each_refused_and_the_table_plays_on() -> None:
    rng = random.Random(SEED)
    async with LiveServer.running(socket_config=SocketConfig(rate=100_000, burst=100_000)) as live:
        table_id, clients = await live.playing()
        mover = clients[turn_seat(clients[0])]
        other = next(c for c in clients if c is not mover)
        watcher = await live.attach(table_id, None)
        reasons: dict[str, int] = {}
        for client, seat in ((mover, mover.state["seat"]), (other, other.state["seat"]), (watcher, None)):
            for reason, n in (await _abuse(client, rng, PER_SOCKET, seat)).items():
                reasons[reason] = reasons.get(reason, 0) + n
        assert sum(reasons.values()) >= 10_000
        undocumented = sorted(set(reasons) - DOCUMENTED)
        assert not undocumented, undocumented
        for expected in (
            "message/bad_id",
            "message/malformed",
            "message/too_large",
            "message/binary",
            "message/unknown",
            "message/bad_field",
            "window/stale",
            "seat/not_yours",
            "input/bad_text",
            "seat/spectator",
            "chat/spectator",
            "auth/already",
            "action/bad_tile",
        ):
            assert expected in reasons, (expected, reasons)
        assert all(c.close_code is None for c in (*clients, watcher))
        # The table is none the worse: a fresh hello gets a snapshot, and legal moves are acknowledged.
        again = await live.attach(table_id, mover.token)
        assert again.state["game"] == mover.state["game"]
        window = mover.state["clock"]["window"]
        answer = await again.act(_legal_move(again))
        assert answer["t"] == "ack", answer
        for c in (*clients, watcher):
            await c.wait_for(lambda c=c: c.state["clock"]["window"] != window, "the next decision")
        assert (await live.http.get(f"/api/tables/{table_id}")).json()["status"] == "playing"


async def test_floods_are_refused_with_rate_limited_and_the_table_plays_on(live: LiveServer) -> None:
    table_id, clients = await live.playing()
    mover = clients[turn_seat(clients[0])]
    mark = mover.mark()
    for n in range(120):
        await mover.ws.send(json.dumps({"t": "chat", "id": 500 + n, "d": {"text": "spam"}}))
    await mover.wait_for(
        lambda: sum(1 for r in mover.received[mark:] if r.frame["t"] in ("ack", "refused")) >= 120, "an answer to each"
    )
    limited = [r.frame for r in mover.received[mark:] if r.frame["t"] == "refused"]
    assert limited and all(f["d"]["reason"] == "rate/limited" and f["d"]["id"] >= 500 for f in limited)
    await asyncio.sleep(1.0)  # the bucket refills
    answer = await mover.act(_legal_move(mover))
    assert answer["t"] == "ack", answer


async def test_a_real_server_stops_on_one_sigterm_after_the_abuse(tmp_path: Path) -> None:
    rng = random.Random(SEED + 1)
    server = ServerProcess("memory", free_port(), tmp_path)
    try:
        await server.start()
        base = f"http://127.0.0.1:{server.port}"
        async with httpx.AsyncClient(base_url=base, trust_env=False, timeout=TIMEOUT) as http:
            owner = (await http.post("/api/tables", json={"player": "Ann", "timers": {"bot_delay": 0}})).json()
            await http.post(f"/api/tables/{owner['table']}/bots", json={"token": owner["token"]})
            await http.post(f"/api/tables/{owner['table']}/start", json={"token": owner["token"]})
        watcher = LiveClient(await connect(f"ws://127.0.0.1:{server.port}/ws"))
        await watcher.hello(owner["table"], None)
        player = LiveClient(await connect(f"ws://127.0.0.1:{server.port}/ws"))
        await player.hello(owner["table"], owner["token"])
        await watcher.ws.send('{"t": "chat", "id": 18446744073709551616, "d": {"text": "x"}}')
        await player.ws.send('{"t": "act", "id": 18446744073709551616, "d": {"action": {"type": "pass"}, "window": 1}}')
        for _ in range(25):  # within the default burst: each is read and refused
            await player.ws.send(rng.choice(KINDS)(rng, {"id": 1, "window": 1, "seat": 0}))
        await player.wait_for(lambda: sum(1 for r in player.received if r.frame["t"] == "refused") >= 26, "refusals")
        await watcher.wait_for(lambda: any(r.frame["t"] == "refused" for r in watcher.received), "its refusal")
        async with httpx.AsyncClient(base_url=base, trust_env=False, timeout=TIMEOUT) as http:
            assert (await http.get(f"/api/tables/{owner['table']}")).json()["status"] == "playing"
        assert server.signal(signal.SIGTERM) in (0, -signal.SIGTERM)  # one signal is enough (uvicorn re-raises it)
        assert await player.closed() == 1012 and await watcher.closed() == 1012
        assert "Traceback" not in server.log.read_text()
    finally:
        server.stop()
