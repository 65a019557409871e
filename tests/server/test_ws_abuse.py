"""Abuse of the live server — foreign pages, other seats' moves, junk frames, floods, huge frames,
bad API requests — is refused with a reason, and the table plays on afterwards.
"""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import httpx
import pytest
from livekit import LiveClient, LiveServer, turn_seat
from starlette.requests import Request
from websockets.exceptions import InvalidStatus

from game.notation import parse_tiles
from game.view import view
from server import api
from server.tables.errors import TableError
from server.ws import SocketConfig


def _refused(reason: str, request: int | None = None) -> Any:
    def match(frame: dict[str, Any]) -> bool:
        d = frame["d"]
        return frame["t"] == "refused" and d["reason"] == reason and d["id"] == request and bool(d["message"])

    return match


def _simple(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """Pass a claim; in a turn, discard."""
    for kind in ("pass", "discard"):
        for action in legal:
            if action["type"] == kind:
                return action
    return legal[0]


async def _plays_on(clients: list[LiveClient]) -> None:
    """The table is still playing: the seats to act make legal moves and get `ack` until the
    decision closes, and every connected seat sees the next one open.
    """
    here = [c for c in clients if c.close_code is None]
    window = here[0].state["clock"]["window"]
    while True:
        # The table sends its diff before the ack, so the mover's state is current; while the
        # window is open, only the answering seat's own view changes.
        mover = next(c for c in here if c.deciding)
        answer = await mover.act(_simple(mover.legal))
        assert answer["t"] == "ack", answer
        if mover.state["clock"]["window"] != window:
            break
    for client in here:
        await client.wait_for(lambda c=client: c.state["clock"]["window"] != window, "the next decision")


# ------------------------------------------------------------------ the handshake
@pytest.mark.asyncio
async def test_socket_from_another_sites_page_is_refused_with_403(live: LiveServer) -> None:
    table_id, clients = await live.playing()
    for origin in (
        "http://evil.example",
        f"https://127.0.0.1:{live.port}",  # the right host under another scheme
        f"http://127.0.0.1:{live.port + 1}",
        "null",
    ):
        with pytest.raises(InvalidStatus) as refused:
            await live.connect(origin=origin)
        assert refused.value.response.status_code == 403, origin
    # A Host header proves nothing: whoever sends the request chooses it.
    reader, writer = await asyncio.open_connection("127.0.0.1", live.port)
    writer.write(
        b"GET /ws HTTP/1.1\r\nHost: evil.example\r\nOrigin: http://evil.example\r\nUpgrade: websocket\r\n"
        b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    assert (await reader.readuntil(b"\r\n")).startswith(b"HTTP/1.1 403 ")
    writer.close()
    # A page served by this very host may open one (its Origin names the Host it talks to).
    mover = clients[turn_seat(clients[0])]
    again = await live.attach(table_id, mover.token, origin=f"http://127.0.0.1:{live.port}")
    assert again.state["seat"] == mover.state["seat"]
    await _plays_on([again, *(c for c in clients if c is not mover)])


async def _handshake(port: int, *keys: bytes) -> tuple[bytes, bytes]:
    """The status line and the rest of the answer to a socket handshake sending ``keys``."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        head = b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        head += b"".join(b"Sec-WebSocket-Key: " + key + b"\r\n" for key in keys)
        writer.write(head + b"Sec-WebSocket-Version: 13\r\n\r\n")
        status = await asyncio.wait_for(reader.readuntil(b"\r\n"), 30)
        rest = await asyncio.wait_for(reader.read(4096), 30) if not status.startswith(b"HTTP/1.1 101 ") else b""
        return status, rest
    finally:
        writer.close()


@pytest.mark.asyncio
async def test_a_handshake_without_a_valid_websocket_key_is_refused_with_400(live: LiveServer) -> None:
    table_id, clients = await live.playing()
    good = base64.b64encode(bytes(range(16)))
    for keys in (
        (b"",),
        (b"abc",),
        (b"A" * 28,),  # base64, of 21 bytes
        (b"A" * 24,),  # 24 characters, but of 18 bytes
        (b"A" * 21 + b"===",),  # 24 characters, padded wrong
        (b"!" * 22 + b"==",),  # not base64
        (good, good),  # one key, RFC 6455 says
    ):
        status, rest = await _handshake(live.port, *keys)
        assert status.startswith(b"HTTP/1.1 400 "), (keys, status)
        assert b'"reason":"input/bad_handshake"' in rest, (keys, rest)
    status, _ = await _handshake(live.port)  # no key at all
    assert status.startswith(b"HTTP/1.1 400 "), status
    status, _ = await _handshake(live.port, good)
    assert status.startswith(b"HTTP/1.1 101 "), status
    # Nothing changed: the seats' sockets play on, and one more opens as before.
    mover = clients[turn_seat(clients[0])]
    again = await live.attach(table_id, mover.token)
    await _plays_on([again, *(c for c in clients if c is not mover)])


@pytest.mark.asyncio
async def test_api_posts_from_another_sites_page_are_refused(live: LiveServer) -> None:
    body = {"player": "Ann"}
    for origin in ("http://evil.example", f"https://127.0.0.1:{live.port}"):
        response = await live.post("/api/tables", body, headers={"Origin": origin, "Host": "evil.example"})
        _refusal(response, 403, "auth/bad_origin")
    assert (await live.http.get("/api/tables")).json()["tables"] == []
    for origin in (f"http://127.0.0.1:{live.port}", f"http://localhost:{live.port}"):
        assert (await live.post("/api/tables", body, headers={"Origin": origin})).status_code == 200


@pytest.mark.asyncio
async def test_public_url_decides_which_pages_may_connect() -> None:
    config = SocketConfig(public_origins=("https://club.example",))
    async with LiveServer.running(socket_config=config) as live:
        table_id, clients = await live.playing()
        watcher = await live.attach(table_id, None, origin="https://CLUB.example:443")
        assert watcher.state["seat"] is None
        for origin in ("http://club.example", f"http://127.0.0.1:{live.port}"):  # behind a proxy: only the public one
            with pytest.raises(InvalidStatus) as refused:
                await live.connect(origin=origin)
            assert refused.value.response.status_code == 403
        await _plays_on([*clients, watcher])


@pytest.mark.asyncio
async def test_origin_the_operator_allowed_is_accepted() -> None:
    async with LiveServer.running(socket_config=SocketConfig(allowed_origins=("https://club.example",))) as live:
        table_id, clients = await live.playing()
        watcher = await live.attach(table_id, None, origin="https://club.example")
        assert watcher.state["seat"] is None
        with pytest.raises(InvalidStatus) as refused:
            await live.connect(origin="https://other.example")
        assert refused.value.response.status_code == 403
        await _plays_on([*clients, watcher])


@pytest.mark.asyncio
async def test_bad_hello_is_refused_and_the_socket_closed_with_1008(live: LiveServer) -> None:
    table_id, clients = await live.playing()
    attempts = [
        ("hello", {"table": table_id, "token": "not-a-seat-token"}, "auth/bad_token"),
        ("hello", {"table": "no-such-table", "token": None}, "table/not_found"),
        ("ping", None, "auth/hello_first"),
    ]
    for tag, data, reason in attempts:
        intruder = await live.connect()
        await intruder.send(tag, data)
        await intruder.frame(_refused(reason), reason)
        assert await intruder.closed() == 1008
        assert intruder.state is None  # never got a snapshot
    await _plays_on(clients)


@pytest.mark.asyncio
async def test_a_lone_surrogate_is_refused_before_it_reaches_a_table(
    live: LiveServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A seat token holding a lone surrogate (the JSON escape \\ud800 alone) failed the table where
    it was hashed: six hellos, or six API calls, from anyone closed any table they could name."""
    table_id, clients = await live.playing()
    lone = '"\\ud800"'  # as JSON text: a string of one lone surrogate
    for _ in range(7):
        intruder = await live.connect()
        await intruder.ws.send(f'{{"t": "hello", "d": {{"table": "{table_id}", "token": {lone}}}}}')
        await intruder.frame(_refused("message/malformed"), "a lone surrogate refused")
        assert await intruder.closed() == 1008
        for route in ("leave", "start", "bots", "remove", "rematch"):
            raw = f'{{"token": {lone}, "seat": 1}}'.encode()
            _refusal(await live.post(f"/api/tables/{table_id}/{route}", content=raw), 400, "input/malformed")
    mover = clients[turn_seat(clients[0])]
    for raw, request in ((f'{{"t": "chat", "id": 7, "d": {{"text": {lone}}}}}', 7), (f'{{"{lone[1:-1]}": 1}}', None)):
        mark = mover.mark()
        await mover.ws.send(raw)
        await mover.frame(_refused("message/malformed", request), "a lone surrogate refused", after=mark)
    answer = await mover.request("chat", {"text": "\N{GRINNING FACE}"})  # sent as the pair \\ud83d\\ude00
    assert answer["t"] == "ack", answer
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
    assert (await live.http.get(f"/api/tables/{table_id}")).json()["status"] == "playing"
    await _plays_on(clients)


@pytest.mark.asyncio
async def test_socket_that_never_says_hello_is_closed_with_1008() -> None:
    async with LiveServer.running(socket_config=SocketConfig(hello_timeout=0.2)) as live:
        table_id, clients = await live.playing()
        silent = await live.connect()
        assert await silent.closed() == 1008  # a close frame, not a dropped connection (1006)
        await _plays_on(clients)


@pytest.mark.asyncio
async def test_a_socket_silent_past_the_idle_limit_is_closed_and_its_seat_kept() -> None:
    async with LiveServer.running(socket_config=SocketConfig(idle_timeout=0.5)) as live:
        table_id, tokens = await live.seat_four()
        await live.start(table_id, tokens[0])
        quiet = await live.attach(table_id, tokens[1])
        talker = await live.attach(table_id, tokens[2])
        for _ in range(4):  # pings keep a socket open past the limit
            await asyncio.sleep(0.2)
            await talker.send("ping")
        assert await quiet.closed() == 1001  # going away: the client may reconnect
        assert talker.close_code is None
        back = await live.attach(table_id, tokens[1])  # same token: the seat was kept
        assert back.state["seat"] == 1
        await back.close()
        await talker.close()


# ------------------------------------------------------------------ acting out of place
@pytest.mark.asyncio
async def test_moves_for_another_seat_or_out_of_turn_are_refused(live: LiveServer) -> None:
    table_id, clients = await live.playing()
    turn = turn_seat(clients[0])
    mover, other = clients[turn], clients[(turn + 1) % 4]
    held = parse_tiles(other.game["seats"][other.state["seat"]]["concealed"])

    answer = await other.act({"type": "discard", "tile": held[0].code})  # a tile it holds, but not its turn
    assert _refused("action/not_your_turn", answer["d"]["id"])(answer), answer

    answer = await mover.act(mover.legal[0], seat=other.state["seat"])  # claiming to be another seat
    assert _refused("seat/not_yours", answer["d"]["id"])(answer), answer

    watcher = await live.attach(table_id, None)
    answer = await watcher.act(mover.legal[0])
    assert _refused("seat/spectator", answer["d"]["id"])(answer), answer
    assert watcher.game["legal_actions"] == []

    answer = await mover.act(mover.legal[0], seat=mover.state["seat"])  # naming its own seat is fine
    assert answer["t"] == "ack", answer
    await _plays_on([*clients, watcher])


# ------------------------------------------------------------------ junk frames
def _act(request: int, action: object, window: int) -> str:
    return json.dumps({"t": "act", "id": request, "d": {"action": action, "window": window}})


@pytest.mark.asyncio
async def test_junk_frames_are_refused_and_the_socket_stays_open(live: LiveServer) -> None:
    table_id, clients = await live.playing()
    mover = clients[turn_seat(clients[0])]

    window = mover.state["clock"]["window"]
    mark = mover.mark()
    await mover.ws.send(json.dumps({"t": "ping", "d": {"pad": "x" * 5000}}))
    await mover.frame(_refused("message/too_large"), "too_large", after=mark)

    for raw, reason, request in [
        ("{not json", "message/malformed", None),
        ('["t", "ping"]', "message/malformed", None),
        ('{"t": "dance", "id": 41}', "message/unknown", 41),
        ('{"t": "act", "d": {"action": {"type": "pass"}, "window": 0}}', "message/bad_id", None),
        ('{"t": "act", "id": "seven", "d": {}}', "message/bad_id", None),
        ('{"t": "act", "id": 42, "d": {"window": 0}}', "message/bad_field", 42),
        (_act(43, 5, window), "action/malformed", 43),
        (_act(44, {"type": "fly"}, window), "action/unknown_type", 44),
    ]:
        mark = mover.mark()
        await mover.ws.send(raw)
        await mover.frame(_refused(reason, request), reason, after=mark)

    await _plays_on(clients)  # the decision moves on …
    next_mover = next(c for c in clients if c.deciding)
    answer = await next_mover.act(next_mover.legal[0], window=window)  # … so the old token is stale
    assert _refused("window/stale", answer["d"]["id"])(answer), answer
    assert answer["d"]["message"] == "too late: that decision had already closed"  # words, no window ids
    assert mover.close_code is None
    await _plays_on(clients)


# ------------------------------------------------------------------ floods
@pytest.mark.asyncio
async def test_flood_is_rate_limited_and_play_continues() -> None:
    config = SocketConfig(rate=50.0, burst=20)
    async with LiveServer.running(socket_config=config) as live:
        table_id, clients = await live.playing()
        flooder = clients[turn_seat(clients[0])]
        window = flooder.state["clock"]["window"]
        mark = flooder.mark()
        for _ in range(200):
            await flooder.send("ping")

        def answers() -> list[dict[str, Any]]:
            return [r.frame for r in flooder.received[mark:] if r.frame["t"] in ("pong", "refused")]

        await flooder.wait_for(lambda: len(answers()) == 200, "an answer to every ping")
        limited = [f for f in answers() if f["t"] == "refused"]
        assert all(_refused("rate/limited")(f) for f in limited)
        assert config.burst <= 200 - len(limited) < 100  # the burst got through, most of the rest did not
        assert flooder.close_code is None

        # Straight after the flood the move may be limited too: refused, but matched to its id.
        # A well-behaved client waits for the bucket to refill and tries again.
        while True:
            answer = await flooder.act(_simple(flooder.legal))
            if answer["t"] == "ack":
                break
            assert _refused("rate/limited", answer["d"]["id"])(answer), answer
            await asyncio.sleep(1 / config.rate)
        for client in clients:  # the other seats were never limited: the table plays on
            await client.wait_for(lambda c=client: c.state["clock"]["window"] != window, "the discard")
        await _plays_on(clients)


@pytest.mark.asyncio
async def test_client_that_keeps_flooding_is_cut_off_and_the_table_plays_on() -> None:
    config = SocketConfig(rate=0.5, burst=5, max_refusals=20)
    async with LiveServer.running(socket_config=config) as live:
        table_id, clients = await live.playing()
        flooder = clients[(turn_seat(clients[0]) + 1) % 4]
        for _ in range(config.burst):
            await flooder.send("ping")
        # Requests refused unread for flooding are still answered by their id.
        answer = await flooder.act({"type": "pass"})
        assert _refused("rate/limited", answer["d"]["id"])(answer), answer
        answer = await flooder.request("chat", {"text": "hello?"})
        assert _refused("rate/limited", answer["d"]["id"])(answer), answer
        mark = flooder.mark()
        for _ in range(40):
            await flooder.send("ping")
        assert await flooder.closed() == 1008
        got = [r.frame for r in flooder.received[mark:]]
        # Frames still queued when the socket is cut off are dropped, so some answers may be missing.
        assert not any(f["t"] == "pong" for f in got)
        assert all(_refused("rate/limited")(f) for f in got if f["t"] == "refused")
        others = [c for c in clients if c is not flooder]
        await others[0].wait_for(
            lambda: not others[0].state["table"]["seats"][flooder.state["seat"]]["connected"], "the seat to go away"
        )
        await _plays_on(others)


@pytest.mark.asyncio
async def test_frame_over_the_socket_limit_closes_only_that_socket(live: LiveServer) -> None:
    table_id, clients = await live.playing()
    turn = turn_seat(clients[0])
    victim = clients[(turn + 2) % 4]
    seat = victim.state["seat"]
    await victim.ws.send("x" * 70_000)  # over uvicorn's ws_max_size (64 KiB)
    assert await victim.closed() == 1009
    others = [c for c in clients if c is not victim]
    for client in others:
        await client.wait_for(
            lambda c=client: not c.state["table"]["seats"][seat]["connected"], "the seat to show as away"
        )
    await _plays_on(others)
    back = await live.attach(table_id, victim.token)  # the seat is still theirs
    assert back.game == view(live.table(table_id).game, seat)
    assert back.state["table"]["seats"][seat]["connected"]
    await _plays_on([*others, back])


# ------------------------------------------------------------------ the HTTP API
def _refusal(response: httpx.Response, status: int, reason: str) -> None:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["reason"] == reason and error["message"], error


@pytest.mark.asyncio
async def test_bad_api_requests_are_refused_with_a_reason(live: LiveServer) -> None:
    _refusal(await live.post("/api/tables", content=b"{not json"), 400, "input/malformed")
    _refusal(await live.post("/api/tables", [1, 2]), 400, "input/malformed")
    _refusal(await live.post("/api/tables", content=b"{" + b" " * 20_000 + b"}"), 413, "input/too_large")
    _refusal(await live.post("/api/tables", {"player": "Ann", "ruleset": "klondike"}), 400, "table/bad_rules")
    for timers in ({"turn": 1}, {"claim": "soon"}, {"warp": 3}, [30]):
        _refusal(await live.post("/api/tables", {"player": "Ann", "timers": timers}), 400, "table/bad_timers")
    _refusal(await live.post("/api/tables", {"player": ""}), 400, "input/bad_text")
    _refusal(await live.post("/api/tables/nope/join", {"name": "Eve"}), 404, "table/not_found")
    assert (await live.http.get("/api/tables")).json()["tables"] == []  # no refused request left a table

    owner = await live.create()
    table_id = owner["table"]
    bob = await live.join(table_id, "Bob")
    _refusal(await live.post(f"/api/tables/{table_id}/join", {"name": "bob"}), 409, "seat/name_taken")
    _refusal(await live.post(f"/api/tables/{table_id}/start", {"token": owner["token"]}), 409, "table/not_full")
    await live.join(table_id, "Cy")
    await live.join(table_id, "Di")
    _refusal(await live.post(f"/api/tables/{table_id}/join", {"name": "Eve"}), 409, "seat/full")
    _refusal(await live.post(f"/api/tables/{table_id}/start", {"token": bob["token"]}), 403, "table/not_owner")
    _refusal(await live.post(f"/api/tables/{table_id}/start", {}), 401, "auth/missing_token")
    _refusal(await live.post(f"/api/tables/{table_id}/start", {"token": "forged"}), 403, "table/not_owner")

    await live.start(table_id, owner["token"])  # the table is none the worse
    _refusal(await live.post(f"/api/tables/{table_id}/join", {"name": "Eve"}), 409, "table/started")
    shown = (await live.http.get(f"/api/tables/{table_id}")).json()
    assert shown["status"] == "playing" and [s["name"] for s in shown["seats"]] == ["Ann", "Bob", "Cy", "Di"]


@pytest.mark.asyncio
async def test_a_huge_body_is_refused_without_being_read_whole() -> None:
    """A body over the limit was read to its end, and held, before it was refused: a few uploads of
    a gigabyte (to the login, which anyone may call) took the server's memory."""
    chunk, chunks, read = 4096, 2000, 0

    async def receive() -> dict[str, Any]:
        nonlocal read
        read += 1
        return {"type": "http.request", "body": b" " * chunk, "more_body": read < chunks}

    request = Request({"type": "http", "method": "POST", "headers": []}, receive)
    with pytest.raises(TableError) as refused:
        await api.body(request)
    assert refused.value.reason == "input/too_large" and refused.value.status == 413
    assert read * chunk <= api.MAX_BODY + chunk  # stopped at the limit


@pytest.mark.asyncio
async def test_a_body_nested_too_deep_is_refused_as_malformed(live: LiveServer) -> None:
    for raw in (b"[" * 5000, b'{"player": ' + b"[" * 3000 + b"]" * 3000 + b"}", b'{"a": ' + b'{"a": ' * 2500):
        _refusal(await live.post("/api/tables", content=raw), 400, "input/malformed")
        _refusal(await live.post("/api/club/login", content=raw), 400, "input/malformed")
    assert (await live.http.get("/api/tables")).json()["tables"] == []


# ------------------------------------------------------ the outside tester's messages
@pytest.mark.asyncio
async def test_out_of_range_ids_are_refused_and_the_table_plays_on(live: LiveServer) -> None:
    """A request id beyond 2**53 - 1 (2**64 once killed the table's actor for good), negative,
    fractional or boolean is refused without echoing it, from players and spectators alike."""
    table_id, clients = await live.playing()
    mover = clients[turn_seat(clients[0])]
    watcher = await live.attach(table_id, None)
    window = mover.state["clock"]["window"]
    for client in (mover, watcher):
        for request in ("18446744073709551616", "9007199254740992", "-1", "1.5", "true", "1e400"):
            for body in (f'{{"action": {{"type": "pass"}}, "window": {window}}}', '{"text": "hi"}'):
                tag = "act" if "action" in body else "chat"
                mark = client.mark()
                await client.ws.send(f'{{"t": "{tag}", "id": {request}, "d": {body}}}')
                await client.frame(_refused("message/bad_id"), f"{tag} id {request}", after=mark)
    mark = mover.mark()
    await mover.ws.send(_act(2**53 - 1, {"type": "fly"}, window))  # the largest id is still fine
    await mover.frame(_refused("action/unknown_type", 2**53 - 1), "the largest id", after=mark)
    await _plays_on(clients)
    assert (await live.http.get(f"/api/tables/{table_id}")).json()["status"] == "playing"


@pytest.mark.asyncio
async def test_deeply_nested_json_is_refused_as_malformed(live: LiveServer, caplog: pytest.LogCaptureFixture) -> None:
    table_id, clients = await live.playing()
    mover = clients[turn_seat(clients[0])]
    for raw in ("[" * 2000 + "]" * 2000, '{"t": "ping", "d": {"x": ' + "[" * 1500 + "]" * 1500 + "}}", "[" * 4000):
        mark = mover.mark()
        await mover.ws.send(raw)
        await mover.frame(_refused("message/malformed"), "nesting refused", after=mark)
    mark = mover.mark()
    await mover.ws.send('{"t": "ping", "d": {"pad": "' + "[" * 3000 + '"}}')  # brackets in a string are text
    await mover.frame(lambda f: f["t"] == "pong", "pong", after=mark)
    assert mover.close_code is None
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
    await _plays_on(clients)


@pytest.mark.asyncio
async def test_binary_frames_are_refused_not_executed(live: LiveServer) -> None:
    table_id, clients = await live.playing()
    mover = clients[turn_seat(clients[0])]
    window = mover.state["clock"]["window"]
    mark = mover.mark()
    await mover.ws.send(_act(7, _simple(mover.legal), window).encode())  # a legal move, as bytes
    await mover.frame(_refused("message/binary"), "binary refused", after=mark)
    assert mover.state["clock"]["window"] == window and mover.close_code is None
    await _plays_on(clients)


@pytest.mark.asyncio
async def test_act_with_a_bad_window_or_seat_is_refused(live: LiveServer) -> None:
    table_id, clients = await live.playing()
    mover = clients[turn_seat(clients[0])]
    for extra in (
        {"window": 2**64},
        {"window": -3},
        {"window": "12"},
        {"window": [1]},
        {"seat": 2**70},
        {"seat": True},
    ):
        answer = await mover.act(_simple(mover.legal), **extra)
        assert answer["t"] == "refused" and answer["d"]["reason"] == "message/bad_field", (extra, answer)
    await _plays_on(clients)


@pytest.mark.asyncio
async def test_numbers_out_of_range_are_refused_before_anything_is_stored(live: LiveServer) -> None:
    for score in (10**20, 2**63 - 1, -1, 1_000_001, 2.5, True, "2000"):
        _refusal(
            await live.post("/api/tables", {"player": "Ann", "overrides": {"starting_score": score}}),
            400,
            "table/bad_rules",
        )
    for overrides in ([], "limit", 5, [["limit", 1000]]):
        _refusal(await live.post("/api/tables", {"player": "Ann", "overrides": overrides}), 400, "table/bad_rules")
    assert (await live.http.get("/api/tables")).json()["tables"] == []
    created = await live.create(overrides={"starting_score": 1_000_000})
    shown = (await live.http.get(f"/api/tables/{created['table']}")).json()
    assert shown["ruleset"]["options"]["starting_score"] == 1_000_000
