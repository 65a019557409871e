"""The pieces of ``sparrow loadtest``: a small keep-alive HTTP client for the lobby API, and the
simulated players, four WebSocket clients per table that rebuild their state from snapshot + diffs
exactly as a browser does and answer their legal actions with a simple choice.

Latency is measured per intent: from the moment an ``act`` frame is sent until all four seats of the
table hold the update it caused. The state carries no action counter (it would tell other seats how
many answered a claim window, R12.2), and ``clock.window``, the decision token, is opaque; but every seat
sees every decision open, so each counts them (its "window" below is that count). The sender's ``ack``
rides in the diff of its own action (or follows it on the same socket), so its count when the ack arrives
is the decision its action opened; the intent is complete once every seat holds that decision. An intent
that opened no new decision (a pass, or a `ready`, that others still answer after) changes no other seat's
state: only its answer time counts.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import orjson
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException
from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import DATA_OPCODES, Frame, Opcode
from websockets.protocol import Event, State
from websockets.typing import BytesLike

from server.statediff import PatchError, patch_in_place

__all__ = ["HttpJson", "LoadError", "Player", "Stats", "Table", "api_base"]

RETRY_AFTER = 0.5  # seconds before acting again after a refusal that changed nothing (storage, rate)
INTENT_TIMEOUT = 10.0  # seconds without ack or refusal before an intent counts as timed out
PING_EVERY = 25.0  # the server closes sockets silent for 75 s


class LoadError(RuntimeError):
    """The load test cannot go on (the server refused to create or start a table, a bad URL)."""


def api_base(ws_url: str) -> tuple[str, int, bool, str]:
    """Host, port, TLS and path prefix of the HTTP API beside the socket at ``ws_url``.

    >>> api_base("ws://127.0.0.1:8765/ws")
    ('127.0.0.1', 8765, False, '')
    >>> api_base("wss://club.example/sparrow/ws")
    ('club.example', 443, True, '/sparrow')
    """
    parts = urlsplit(ws_url)
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        raise LoadError(f"expected a ws:// or wss:// URL such as ws://127.0.0.1:8765/ws, not {ws_url!r}")
    tls = parts.scheme == "wss"
    path = parts.path.rstrip("/")
    prefix = path[: -len("/ws")] if path.endswith("/ws") else path
    return parts.hostname, parts.port or (443 if tls else 80), tls, prefix


class HttpJson:
    """POSTs JSON over one keep-alive HTTP/1.1 connection (all the lobby API needs)."""

    def __init__(self, host: str, port: int, tls: bool, prefix: str) -> None:
        self.host, self.port, self.tls, self.prefix = host, port, tls, prefix
        self._streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def post(self, path: str, body: dict[str, Any], attempts: int = 5) -> dict[str, Any]:
        """The JSON answer to ``POST path``; a 503 (busy storage, "try again") is tried again.

        :raises LoadError: for an answer other than 200, with the server's message.
        """
        for attempt in range(attempts):
            status, answer = await self._post(path, body)
            if status == 200:
                return answer
            if status != 503 or attempt == attempts - 1:
                break
            await asyncio.sleep(RETRY_AFTER * (attempt + 1))
        raise LoadError(f"POST {path} answered {status}: {answer.get('error', answer)}")

    async def _post(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if self._streams is None:
            self._streams = await asyncio.open_connection(self.host, self.port, ssl=self.tls or None)
        reader, writer = self._streams
        data = json.dumps(body).encode()
        head = (
            f"POST {self.prefix}{path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
        )
        writer.write(head.encode() + data)
        lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        length = next((int(x.split(":")[1]) for x in lines[1:] if x.lower().startswith("content-length:")), 0)
        answer: dict[str, Any] = json.loads(await reader.readexactly(length)) if length else {}
        return int(lines[0].split()[1]), answer

    async def close(self) -> None:
        """Close the connection."""
        if self._streams is not None:
            self._streams[1].close()
            self._streams = None


@dataclass(slots=True)
class Stats:
    """Everything the run measures, shared by every client."""

    latencies: list[float] = field(default_factory=list)  # seconds, intent sent → all four seats updated
    completed: list[float] = field(default_factory=list)  # when each of those was complete (perf_counter)
    answers: list[float] = field(default_factory=list)  # seconds, intent sent → its ack (every intent)
    frames: int = 0
    bytes: int = 0  # message payloads, as the application sees them
    wire: int = 0  # what the sockets read after the handshake: frame headers, after permessage-deflate
    frame_sizes: list[int] = field(default_factory=list)
    diff_sizes: list[int] = field(default_factory=list)
    wire_diff_sizes: list[int] = field(default_factory=list)  # each diff's payload on the wire (deflated)
    snapshot_sizes: list[int] = field(default_factory=list)
    intents: int = 0
    refusals: Counter[str] = field(default_factory=Counter)
    disconnects: int = 0
    timeouts: int = 0
    resyncs: int = 0
    connect_failures: int = 0
    hands: int = 0
    # With several server processes: latencies and intents by the process the table runs in.
    process_latencies: dict[int, list[float]] = field(default_factory=dict)
    process_intents: Counter[int] = field(default_factory=Counter)

    def latency(self, sent: float, complete: float, process: int = 0) -> None:
        """An intent sent at ``sent`` whose update every seat held at ``complete``."""
        self.latencies.append(complete - sent)
        self.completed.append(complete)
        self.process_latencies.setdefault(process, []).append(complete - sent)


@dataclass(slots=True)
class _Intent:
    sent: float
    window: int  # complete once every seat holds this decision window
    latest: float = 0.0
    missing: set[int] = field(default_factory=set)


class Table:
    """One table of the load test: its four players and the intents still travelling."""

    def __init__(
        self, index: int, stats: Stats, hands: int, think: float, rate: float, start: float = 0.0, process: int = 0
    ) -> None:
        self.index, self.stats, self.hands_wanted = index, stats, hands
        self.process = process  # which of the server processes (``--url``) runs it
        self.start = start  # seconds after the go before this table's first move (spreads the tables out)
        self.id = ""
        self.players: list[Player] = []
        self.hands = 0
        self.intents: list[_Intent] = []
        self.think, self.rate = think, rate
        self.done = asyncio.Event()

    def finish_hand(self, hands: int, over: bool) -> None:
        """A deal ended (the ``hands``-th); the table stops at its target or when the game is over."""
        if hands > self.hands:
            self.stats.hands += hands - self.hands
            self.hands = hands
        if over or self.hands >= self.hands_wanted:
            self.stop()

    def stop(self) -> None:
        """The table is done: wake its players so that they leave."""
        self.done.set()
        for player in self.players:
            player.wake.set()

    def answered(self, sent: float, now: float, before: int, window: int) -> None:
        """An intent sent at ``sent`` in window ``before`` was acknowledged at ``now`` with the sender in
        ``window``: if it opened a new decision, time it until all four seats hold that.
        """
        self.stats.answers.append(now - sent)
        if window <= before:
            return
        intent = _Intent(sent, window)
        for p in self.players:
            at = p.reached(window)
            if at is None:
                intent.missing.add(p.seat)
            else:
                intent.latest = max(intent.latest, at)
        if intent.missing:
            self.intents.append(intent)
        else:
            self.stats.latency(sent, intent.latest, self.process)

    def seen(self, seat: int, window: int, now: float) -> None:
        """``seat`` holds decision ``window`` since ``now``."""
        if not self.intents:
            return
        keep = []
        for intent in self.intents:
            if intent.window <= window and seat in intent.missing:
                intent.missing.discard(seat)
                intent.latest = max(intent.latest, now)
                if not intent.missing:
                    self.stats.latency(intent.sent, intent.latest, self.process)
                    continue
            keep.append(intent)
        self.intents = keep


def _note_sizes(extension: PerMessageDeflate, sizes: deque[int]) -> None:
    """Make ``extension`` note the payload size of each data frame it inflates in ``sizes``."""
    inflate = extension.decode

    def decode(frame: Frame, *, max_size: int | None = None) -> Frame:
        if frame.opcode in DATA_OPCODES:
            sizes.append(len(frame.data))
        return inflate(frame, max_size=max_size)

    extension.decode = decode  # type: ignore[method-assign]


class _Socket(ClientConnection):
    """A client connection that hands each message to its player as soon as it is parsed.

    ``websockets`` would queue it for ``recv()``, which a reader task per socket awaits: an assembler,
    futures and a task switch per frame. Here the player's ``received`` runs from ``data_received``
    (every frame of one read stamped with the time of that read), ``connection_lost`` tells the player
    the socket is gone, and small frames are written at once without a task (``send_now``).

    With permessage-deflate, the extension's ``decode`` is wrapped to note each data frame's payload
    size as it came over the wire, before it is inflated.
    """

    player: Player | None = None
    now = 0.0  # when the current read arrived (time.perf_counter)

    def listen(self, player: Player) -> None:
        """From now on, give ``player`` every message and count the bytes read."""
        self.player = player
        self.wire_sizes: deque[int] = deque()
        self.parts: list[BytesLike] = []
        self.wire_parts = 0
        self.deflate = False
        for extension in self.protocol.extensions:
            if isinstance(extension, PerMessageDeflate):
                self.deflate = True
                _note_sizes(extension, self.wire_sizes)

    def data_received(self, data: bytes) -> None:
        player = self.player
        if player is not None:
            player.stats.wire += len(data)
            self.now = time.perf_counter()
        super().data_received(data)

    def process_event(self, event: Event) -> None:
        player = self.player
        if player is None or not isinstance(event, Frame) or event.opcode not in DATA_OPCODES:
            super().process_event(event)
            return
        payload = event.data
        wire = self.wire_sizes.popleft() if self.deflate else len(payload)
        if event.opcode is Opcode.CONT:  # the server sends whole messages, but a fragmented one would do
            if not self.parts:
                return
            self.parts.append(payload)
            self.wire_parts += wire
            if event.fin:
                whole, wire = b"".join(self.parts), self.wire_parts
                self.parts = []
                player.received(whole, wire, self.now)
        elif event.fin:
            player.received(payload if isinstance(payload, bytes) else bytes(payload), wire, self.now)
        else:
            self.parts, self.wire_parts = [payload], wire

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if self.player is not None:
            self.player.lost()

    def send_now(self, text: str) -> None:
        """Send one small text message now, from plain code: no task, no wait for the buffer to drain
        (the messages are a few dozen bytes). Nothing happens if the socket is no longer open.
        """
        if self.protocol.state is State.OPEN:
            self.protocol.send_text(text.encode())
            try:
                self.send_data()
            except Exception as exc:  # the transport broke: as websockets' own send would, drop it
                self.set_connection_exc(exc)


class Player:
    """One seat's WebSocket client."""

    def __init__(self, table: Table, seat: int, token: str) -> None:
        self.table, self.seat, self.token = table, seat, token
        self.stats = table.stats
        self.ws: _Socket | None = None
        self.state: Any = None
        self.seq = 0
        self.window = -1  # how many decisions this seat has held since the game began, less one
        self.token_held: object = None  # the decision token of the last one
        self.phase = ""
        self.history: deque[tuple[int, float]] = deque(maxlen=32)  # (decision window, first held at)
        self.resyncing = False
        self.closing = False
        self.next_id = 0
        self.pending: tuple[int, float, int] | None = None  # (request id, sent at, window when sent)
        self.acted = -1  # the seq of the state last acted on
        self.backoff = 0.0  # a pause before the next intent
        self.sent = time.perf_counter()  # when this client last sent anything
        self.wake = asyncio.Event()
        self.snapshot = asyncio.Event()
        self.tokens, self.stamp = 30.0, time.perf_counter()  # mirror of the server's rate limit

    async def connect(self, url: str, compression: str | None) -> None:
        """Open the socket, say hello and wait for the first snapshot."""
        ws = await connect(
            url,
            compression=compression,
            ping_interval=None,
            open_timeout=30,
            max_size=2**20,
            create_connection=_Socket,
            proxy=None,  # (else every connect looks for proxy settings)
        )
        assert isinstance(ws, _Socket)
        self.ws = ws
        ws.listen(self)
        ws.send_now(json.dumps({"t": "hello", "d": {"table": self.table.id, "token": self.token}}))

    # ------------------------------------------------------------ receiving
    def lost(self) -> None:
        """The socket is closed: a disconnect, unless this client closed it."""
        if not self.closing:
            self.stats.disconnects += 1
            self.table.stop()
        self.closing = True
        self.wake.set()

    def received(self, raw: bytes, wire: int, now: float) -> None:
        """One message, ``raw`` as inflated, ``wire`` bytes of payload on the wire, read at ``now``."""
        stats = self.stats
        size = len(raw)
        stats.frames += 1
        stats.bytes += size
        stats.frame_sizes.append(size)
        frame = orjson.loads(raw)
        tag, data = frame["t"], frame["d"]
        if tag == "diff":
            stats.diff_sizes.append(size)
            stats.wire_diff_sizes.append(wire)
            self._diff(data, now)
            if "ack" in data:  # the ack of this socket's intent rides in the diff it caused
                self._acked(data["ack"], now)
        elif tag == "snapshot":
            stats.snapshot_sizes.append(size)
            self.state, self.seq, self.resyncing = data["state"], data["seq"], False
            self.snapshot.set()
            self._update(now)
        elif tag == "ack":
            self._acked(data["id"], now)
        elif tag == "refused":
            reason = data.get("reason", "?")
            stats.refusals[reason] += 1
            if self.pending is not None and data.get("id") in (self.pending[0], None):
                self.pending = None  # a stale intent waits for the next update; others try again shortly
                if reason != "window/stale":
                    self.acted, self.backoff = -1, RETRY_AFTER
                self.wake.set()

    def _diff(self, data: dict[str, Any], now: float) -> None:
        if self.resyncing:
            return
        if data["seq"] != self.seq + 1:
            self._resync()
            return
        try:
            self.state = patch_in_place(self.state, data["ops"])
        except PatchError:
            self._resync()
            return
        self.seq = data["seq"]
        self._update(now)

    def _acked(self, request: object, now: float) -> None:
        if self.pending is not None and self.pending[0] == request:
            _, sent, before = self.pending
            self.pending = None
            self.table.answered(sent, now, before, self.window)
            self.wake.set()

    def _resync(self) -> None:
        self.resyncing = True
        self.stats.resyncs += 1
        self._send({"t": "resync"})

    def _update(self, now: float) -> None:
        game = self.state["game"]
        if game is None:
            return
        token = self.state["clock"]["window"]
        if token != self.token_held:  # a new decision: the tokens are opaque, so the seat counts them
            self.token_held = token
            self.window += 1
            self.history.append((self.window, now))
            self.table.seen(self.seat, self.window, now)
        phase = game["phase"]
        if phase != self.phase:
            if phase in ("between", "over") and self.phase == "deal":
                self.table.finish_hand(game["deal"] + 1, phase == "over")
            self.phase = phase
        if game["legal_actions"] and self.acted != self.seq and self.pending is None:
            self.wake.set()  # (with an intent pending, its answer wakes the player)

    def reached(self, window: int) -> float | None:
        """When this seat first held decision ``window`` or a later one (None: not yet)."""
        if self.window < window:
            return None
        first = self.history[0][1]
        for seen, at in reversed(self.history):  # the windows held only grow: the latest are at the end
            if seen < window:
                break
            first = at
        return first

    # ---------------------------------------------------------------- acting
    async def play(self, go: asyncio.Event, rng: random.Random) -> None:
        """Answer each decision after the think time, until the table is done."""
        await go.wait()
        table = self.table
        if table.start > 0:
            await asyncio.sleep(table.start)
        while not (self.closing or table.done.is_set()):
            await self.wake.wait()
            self.wake.clear()
            if self.pending is not None or self.state is None or self.resyncing:
                continue
            if table.think > 0 or self.backoff:
                await asyncio.sleep(table.think * rng.uniform(0.75, 1.25) + self.backoff)
                self.backoff = 0.0
            await self._throttle()
            if self.resyncing:  # the state may be half patched
                continue
            game = self.state["game"]
            action = (
                None if game is None or self.pending is not None else choose(game, table.hands_wanted - table.hands)
            )
            if action is None or self.closing or table.done.is_set() or self.acted == self.seq:
                continue
            self.next_id += 1
            self.acted = self.seq
            window = self.state["clock"]["window"]
            self.pending = (self.next_id, time.perf_counter(), self.window)
            self.stats.intents += 1
            self.stats.process_intents[table.process] += 1
            self._send({"t": "act", "id": self.next_id, "d": {"action": action, "window": window}})
        await self.close()  # a finished table leaves at once (an idle socket would be closed after 75 s)

    async def _throttle(self) -> None:
        """Keep under the server's per-socket rate limit (its refusals would only measure the limiter)."""
        rate = self.table.rate
        now = time.perf_counter()
        self.tokens = min(30.0, self.tokens + (now - self.stamp) * rate)
        self.stamp = now
        if self.tokens < 1:
            await asyncio.sleep((1 - self.tokens) / rate)
            self.tokens, self.stamp = 1.0, time.perf_counter()
        self.tokens -= 1

    def tick(self, now: float) -> None:
        """Once a second: give up on an intent unanswered for too long, ping a socket long silent."""
        if self.pending is not None and now - self.pending[1] > INTENT_TIMEOUT:
            self.stats.timeouts += 1
            self.pending, self.acted = None, -1
            self.wake.set()
        if now - self.sent > PING_EVERY:
            self._send({"t": "ping"})

    def _send(self, frame: dict[str, Any]) -> None:
        if self.ws is not None and not self.closing:
            self.sent = time.perf_counter()
            self.ws.send_now(json.dumps(frame, separators=(",", ":")))

    async def close(self) -> None:
        """Close the socket (not counted as a disconnect)."""
        self.closing = True
        self.wake.set()
        if self.ws is not None:
            try:
                await self.ws.close()
            except (WebSocketException, OSError):
                pass


def choose(game: dict[str, Any], hands_left: int) -> dict[str, Any] | None:
    """A simple choice: win if offered, else pass a claim, else discard the drawn tile (or the last
    discard offered); ready between deals while the table wants more hands.
    """
    legal: list[dict[str, Any]] = game["legal_actions"]
    by_type = {a["type"]: a for a in legal}
    if "win" in by_type:
        return by_type["win"]
    if "pass" in by_type:
        return by_type["pass"]
    if "ready" in by_type:
        return by_type["ready"] if hands_left > 0 else None
    discards = [a for a in legal if a["type"] == "discard"]
    if not discards:
        return legal[-1] if legal else None
    drawn = (game.get("turn") or {}).get("drawn")
    return next((a for a in discards if a.get("tile") == drawn), discards[-1])
